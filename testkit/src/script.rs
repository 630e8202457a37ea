//! The script a fixture model follows: scenarios picked by the last user message, each a list of turns
//! (text, tool calls, errors, stalls). Loadable from JSON; turn selection is pure and unit-tested here.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::conversation;

/// Text streamed when a scenario has no turn left for the request.
pub const SCRIPT_FINISHED: &str = "(script finished)";

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    #[serde(default)]
    pub scenarios: Vec<Scenario>,
    /// Answer to non-streamed (title) requests no scenario title matched.
    #[serde(default)]
    pub default_title: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Case-insensitive substring of the last user message; "" matches everything.
    pub when: String,
    /// Answer to non-streamed (title) requests whose user messages contain `when`.
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub turns: Vec<Turn>,
    #[serde(default)]
    pub repeat_last_turn: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub tool_calls: Vec<ScriptedCall>,
    /// Stream this many extra tokens ("tok0 tok1 ...") after `text`.
    #[serde(default)]
    pub repeat_tokens: Option<usize>,
    /// Pause before each chunk is completed; 0 streams as fast as possible.
    #[serde(default)]
    pub chunk_delay_ms: u64,
    /// Answer with this HTTP error instead of streaming (always, or only `fail_first` times).
    #[serde(default)]
    pub error: Option<ScriptedError>,
    /// Fail the first N requests that reach this turn (with `error`, or a 500), then stream normally.
    #[serde(default)]
    pub fail_first: u32,
    /// Send this many text tokens, then keep the connection open without sending anything.
    #[serde(default)]
    pub stall_after_tokens: Option<usize>,
    /// Send this many SSE events, then wait while streams are held (`/_fixture/streams/hold`, until
    /// `/_fixture/streams/release`): a test sees an unfinished answer without racing the stream. Not held,
    /// the stream goes on at once.
    #[serde(default)]
    pub hold_after_events: Option<usize>,
    /// Send this many SSE events of the streamed answer (as the API frames it), then close the
    /// connection: no finish reason, no end marker. Counted over every event, so it can fall inside a
    /// tool call's arguments.
    #[serde(default)]
    pub close_after_events: Option<usize>,
    /// Gemini: each `functionCall` part in a chunk of its own (the finish reason on the last), rather
    /// than all of a turn's calls in one chunk. Gemini sends parallel calls either way.
    #[serde(default)]
    pub calls_in_separate_chunks: bool,
    /// After the text, start one `data:` line and never end it: bytes flow until the client hangs up.
    #[serde(default)]
    pub endless_line: bool,
    /// After the text, repeat what the request says the tools answered: the content of the tool
    /// messages that follow the last assistant message, each as ` [tool said: <content>]`. The
    /// reply then depends on what the client really sent, so a test can see it.
    #[serde(default)]
    pub echo_tool_results: bool,
    /// After the text (and any tool results echoed), ` model=<model>`: the model the request named.
    #[serde(default)]
    pub echo_model: bool,
    /// After the text (and the model, if echoed), ` tools=<n>`: how many tools the request offered.
    #[serde(default)]
    pub echo_tool_count: bool,
    /// After the text, an error inside the answered (HTTP 200) stream, in the API's streaming format,
    /// and the end of the stream: no finish. `status` picks the API's error type.
    #[serde(default)]
    pub stream_error: Option<ScriptedError>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedCall {
    pub name: String,
    /// A JSON string is sent raw as the arguments string (so invalid JSON can be scripted);
    /// any other value is serialized.
    #[serde(default = "empty_object")]
    pub arguments: Value,
    /// Arguments read from the request, for values only the client knows (an id it made): each named
    /// argument is set to the first capture group of the regular expression in the newest message, of
    /// any role, where it matches; with no match, to `"<no match for REGEX>"`. Needs object `arguments`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub fill: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedError {
    pub status: u16,
    pub message: String,
}

fn empty_object() -> Value {
    Value::Object(Default::default())
}

/// Why a script could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    #[error("cannot read script {path}: {source}")]
    Read { path: String, source: std::io::Error },
    #[error("invalid script: {0}")]
    Parse(#[from] serde_json::Error),
}

/// The turn chosen for a request, and the counter key (scenario, turn) for `fail_first`.
#[derive(Debug, Clone, PartialEq)]
pub struct Selected {
    pub key: Option<(usize, usize)>,
    pub turn: Turn,
}

impl Selected {
    /// The turn as sent in answer to a request naming `model` and offering `tools` tools: with
    /// `echo_model` and `echo_tool_count`, those are appended to its text.
    pub fn for_request(mut self, model: &str, tools: usize) -> Selected {
        let turn = &mut self.turn;
        let mut text = turn.text.take().unwrap_or_default();
        let mut append = |part: String| {
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(&part);
        };
        if turn.echo_model {
            append(format!("model={model}"));
        }
        if turn.echo_tool_count {
            append(format!("tools={tools}"));
        }
        turn.text = (!text.is_empty()).then_some(text);
        self
    }
}

impl Script {
    pub fn from_json(json: &str) -> Result<Self, ScriptError> {
        Ok(serde_json::from_str(json)?)
    }

    pub fn from_file(path: &std::path::Path) -> Result<Self, ScriptError> {
        let json = std::fs::read_to_string(path)
            .map_err(|source| ScriptError::Read { path: path.display().to_string(), source })?;
        Self::from_json(&json)
    }

    /// Picks the turn answering a streamed request with these (wire) messages.
    pub fn select(&self, messages: &[Value]) -> Selected {
        let last_user = conversation::last_user_text(messages);
        let Some(index) = self.scenarios.iter().position(|s| contains_ci(&last_user, &s.when)) else {
            return Selected { key: None, turn: Turn::text(format!("You said: {last_user}")) };
        };
        let scenario = &self.scenarios[index];
        let step = conversation::assistant_turns_since_last_user(messages);
        let resolved = if step < scenario.turns.len() {
            Some(step)
        } else if scenario.repeat_last_turn && !scenario.turns.is_empty() {
            Some(scenario.turns.len() - 1)
        } else {
            None
        };
        match resolved {
            Some(turn) => Selected { key: Some((index, turn)), turn: scenario.turns[turn].answering(messages) },
            None => Selected { key: None, turn: Turn::text(SCRIPT_FINISHED) },
        }
    }

    /// The title for a non-streamed request, if the script has one.
    pub fn title_for(&self, messages: &[Value]) -> Option<String> {
        let users = conversation::user_texts(messages);
        self.scenarios
            .iter()
            .filter(|s| users.iter().any(|u| contains_ci(u, &s.when)))
            .find_map(|s| s.title.clone())
            .or_else(|| self.default_title.clone())
    }
}

impl Scenario {
    pub fn new(when: impl Into<String>, turns: Vec<Turn>) -> Self {
        Self { when: when.into(), turns, ..Default::default() }
    }
}

impl Turn {
    pub fn text(text: impl Into<String>) -> Self {
        Self { text: Some(text.into()), ..Default::default() }
    }

    pub fn calls(calls: Vec<ScriptedCall>) -> Self {
        Self { tool_calls: calls, ..Default::default() }
    }

    /// This turn as sent in answer to `messages`: with `echo_tool_results`, the tool results the
    /// request carries are appended to the text; calls' `fill` arguments are read from the messages.
    fn answering(&self, messages: &[Value]) -> Turn {
        let mut turn = self.clone();
        for call in &mut turn.tool_calls {
            call.fill_from(messages);
        }
        if turn.echo_tool_results {
            let echoes: String = conversation::trailing_tool_results(messages)
                .iter()
                .map(|content| format!(" [tool said: {content}]"))
                .collect();
            turn.text = Some(format!("{}{echoes}", turn.text.unwrap_or_default()));
        }
        turn
    }
}

impl ScriptedCall {
    pub fn new(name: impl Into<String>, arguments: Value) -> Self {
        Self { name: name.into(), arguments, fill: BTreeMap::new() }
    }

    /// Sets the `fill` arguments from the newest message each pattern matches.
    fn fill_from(&mut self, messages: &[Value]) {
        let Value::Object(arguments) = &mut self.arguments else { return };
        for (name, pattern) in std::mem::take(&mut self.fill) {
            let value = match regex::Regex::new(&pattern) {
                Ok(re) => messages
                    .iter()
                    .rev()
                    .find_map(|m| {
                        let text = conversation::message_text(m);
                        re.captures(&text).and_then(|c| c.get(1)).map(|g| g.as_str().to_string())
                    })
                    .unwrap_or_else(|| format!("<no match for {pattern}>")),
                Err(e) => format!("<invalid pattern {pattern}: {e}>"),
            };
            arguments.insert(name, Value::String(value));
        }
    }

    /// The arguments string as it goes on the wire.
    pub fn arguments_string(&self) -> String {
        match &self.arguments {
            Value::String(raw) => raw.clone(),
            other => other.to_string(),
        }
    }
}

fn contains_ci(haystack: &str, needle: &str) -> bool {
    haystack.to_lowercase().contains(&needle.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn script() -> Script {
        Script::from_json(
            r#"{
              "default_title": "Untitled chat",
              "scenarios": [
                {"when": "Weather", "title": "Weather talk", "turns": [
                  {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}]},
                  {"text": "It is sunny."}
                ]},
                {"when": "loop", "repeat_last_turn": true, "turns": [{"text": "again"}]}
              ]
            }"#,
        )
        .unwrap()
    }

    fn user(text: &str) -> Value {
        json!({"role": "user", "content": text})
    }

    fn assistant(text: &str) -> Value {
        json!({"role": "assistant", "content": text})
    }

    #[test]
    fn first_request_gets_the_first_turn_of_the_matching_scenario() {
        let s = script().select(&[user("what's the WEATHER like?")]);
        assert_eq!(s.key, Some((0, 0)));
        assert_eq!(s.turn.tool_calls[0].name, "get_weather");
    }

    #[test]
    fn assistant_messages_after_the_last_user_message_advance_the_step() {
        let tool = json!({"role": "tool", "tool_call_id": "c1", "content": "sunny"});
        let s = script().select(&[user("weather?"), assistant(""), tool]);
        assert_eq!(s.key, Some((0, 1)));
        assert_eq!(s.turn.text.as_deref(), Some("It is sunny."));
    }

    #[test]
    fn only_the_last_user_message_picks_the_scenario_and_resets_the_step() {
        let s = script().select(&[user("weather?"), assistant("sunny"), user("and a loop")]);
        assert_eq!(s.key, Some((1, 0)));
    }

    #[test]
    fn past_the_end_the_script_says_it_is_finished() {
        let s = script().select(&[user("weather"), assistant(""), assistant(""), assistant("")]);
        assert_eq!(s.key, None);
        assert_eq!(s.turn.text.as_deref(), Some(SCRIPT_FINISHED));
    }

    #[test]
    fn repeat_last_turn_keeps_answering_with_the_last_turn() {
        let s = script().select(&[user("loop"), assistant("again"), assistant("again")]);
        assert_eq!(s.key, Some((1, 0)));
        assert_eq!(s.turn.text.as_deref(), Some("again"));
    }

    #[test]
    fn unmatched_requests_get_an_echo() {
        let s = script().select(&[json!({"role": "system", "content": "be nice"}), user("hello there")]);
        assert_eq!(s.turn.text.as_deref(), Some("You said: hello there"));
    }

    #[test]
    fn images_attached_after_tool_results_do_not_count_as_a_new_user_turn() {
        let tool = json!({"role": "tool", "tool_call_id": "c1", "content": "[image: image/png]"});
        let images = json!({"role": "user", "content": [
            {"type": "text", "text": "Images returned by tool call c1:"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
        ]});
        let s = script().select(&[user("weather?"), assistant(""), tool, images]);
        assert_eq!(s.key, Some((0, 1)));
    }

    #[test]
    fn user_content_given_as_parts_is_matched_by_its_text() {
        let parts = json!({"role": "user", "content": [{"type": "text", "text": "the weather"}]});
        assert_eq!(script().select(&[parts]).key, Some((0, 0)));
    }

    #[test]
    fn titles_come_from_the_matching_scenario_or_the_default() {
        let s = script();
        assert_eq!(s.title_for(&[user("Title for: weather in Oslo")]).as_deref(), Some("Weather talk"));
        assert_eq!(s.title_for(&[user("something else")]).as_deref(), Some("Untitled chat"));
    }

    #[test]
    fn string_arguments_are_sent_raw_and_others_serialized() {
        assert_eq!(ScriptedCall::new("f", json!("{not json")).arguments_string(), "{not json");
        assert_eq!(ScriptedCall::new("f", json!({"a": 1})).arguments_string(), r#"{"a":1}"#);
    }

    #[test]
    fn fill_arguments_are_read_from_the_newest_message_that_matches() {
        let mut call = ScriptedCall::new("read_result", json!({"offset": 5}));
        call.fill.insert("handle".into(), r#"handle": "([0-9a-f-]+)""#.into());
        call.fill.insert("other".into(), "nowhere (x)".into());
        let s = Script { scenarios: vec![Scenario::new("go", vec![Turn::calls(vec![call])])], default_title: None };
        let messages = [
            user("go"),
            json!({"role": "tool", "content": r#"{"handle": "0aa1"}"#}),
            json!({"role": "tool", "content": [{"type": "text", "text": r#"read {"handle": "0bb2"} next"#}]}),
        ];
        let args = &s.select(&messages).turn.tool_calls[0].arguments;
        assert_eq!(args, &json!({"offset": 5, "handle": "0bb2", "other": "<no match for nowhere (x)>"}));
    }

    #[test]
    fn an_echoing_turn_repeats_the_tool_results_it_was_sent() {
        let s = Script::from_json(
            r#"{"scenarios": [{"when": "clean", "turns": [
                {"tool_calls": [{"name": "shell"}]},
                {"text": "Understood.", "echo_tool_results": true}
            ]}]}"#,
        )
        .unwrap();
        let call = json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c1"}, {"id": "c2"}]});
        let denied = json!({"role": "tool", "tool_call_id": "c1", "content": "denied: not today"});
        let ran = json!({"role": "tool", "tool_call_id": "c2", "content": [{"type": "text", "text": "ran"}]});
        let old = json!({"role": "tool", "tool_call_id": "c0", "content": "an older turn's result"});
        let messages = [user("earlier"), assistant(""), old, user("clean up"), call, denied, ran];
        assert_eq!(
            s.select(&messages).turn.text.as_deref(),
            Some("Understood. [tool said: denied: not today] [tool said: ran]")
        );
        // Another request gets another reply: the text follows what was sent.
        let other = json!({"role": "tool", "tool_call_id": "c1", "content": "approved"});
        let messages = [user("clean up"), messages[4].clone(), other];
        assert_eq!(s.select(&messages).turn.text.as_deref(), Some("Understood. [tool said: approved]"));
    }

    #[test]
    fn a_turn_without_echo_ignores_the_tool_results() {
        let tool = json!({"role": "tool", "tool_call_id": "c1", "content": "sunny"});
        let s = script().select(&[user("weather?"), assistant(""), tool]);
        assert_eq!(s.turn.text.as_deref(), Some("It is sunny."));
    }

    #[test]
    fn a_turn_can_echo_the_model_and_the_number_of_tools_it_was_sent() {
        let s = Script::from_json(
            r#"{"scenarios": [
                {"when": "which model", "turns": [{"text": "Answered by", "echo_model": true}]},
                {"when": "count", "turns": [{"echo_model": true, "echo_tool_count": true}]}
            ]}"#,
        )
        .unwrap();
        let which = s.select(&[user("which model?")]).for_request("m-1", 4);
        assert_eq!(which.turn.text.as_deref(), Some("Answered by model=m-1"));
        let count = s.select(&[user("count them")]).for_request("m-2", 0);
        assert_eq!(count.turn.text.as_deref(), Some("model=m-2 tools=0"));
        let plain = script().select(&[user("weather?"), assistant(""), user("loop")]).for_request("m", 3);
        assert_eq!(plain.turn.text.as_deref(), Some("again"), "a turn without echo is as scripted");
    }

    #[test]
    fn unknown_fields_in_a_script_are_rejected() {
        let err = Script::from_json(r#"{"scenarios": [{"when": "x", "turnz": []}]}"#).unwrap_err();
        assert!(err.to_string().contains("turnz"), "{err}");
    }
}
