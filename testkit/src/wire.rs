//! What the fixture puts on the wire: Chat Completions chunks for a scripted turn (text split into
//! word-sized tokens, tool-call deltas interleaved the way real servers send them), whole completions
//! and OpenAI-style error bodies.

use serde_json::{json, Value};

use crate::script::{ScriptedCall, Turn};

/// The SSE `data:` payloads for one streamed turn, in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StreamPlan {
    pub events: Vec<String>,
    /// The SSE `event:` name sent before the payload of the same position; none (an empty list) sends
    /// data lines only, as Chat Completions does.
    pub event_names: Vec<Option<&'static str>>,
    /// Send this many events, then go silent and keep the connection open.
    pub stall_after: Option<usize>,
    /// Send this many events, then one `data:` line that never ends.
    pub endless_after: Option<usize>,
}

/// Identifies one response: its `chatcmpl-` id, the model name echoed back and a prefix for call ids.
#[derive(Debug, Clone)]
pub struct ResponseIds {
    pub serial: u64,
    pub model: String,
}

impl ResponseIds {
    fn chunk(&self, delta: Value, finish_reason: Option<&str>) -> String {
        json!({
            "id": format!("chatcmpl-fixture-{}", self.serial),
            "object": "chat.completion.chunk",
            "created": 0,
            "model": self.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        })
        .to_string()
    }

    fn call_id(&self, index: usize) -> String {
        format!("call_{}_{}", self.serial, index)
    }
}

/// Splits text into word-ish tokens, each carrying its leading whitespace; they join back to `text`.
pub fn tokenize(text: &str) -> Vec<String> {
    let mut tokens: Vec<String> = Vec::new();
    let mut previous_was_space = true;
    for c in text.chars() {
        let starts_token = c.is_whitespace() && !previous_was_space;
        match tokens.last_mut() {
            Some(last) if !starts_token => last.push(c),
            _ => tokens.push(c.to_string()),
        }
        previous_was_space = c.is_whitespace();
    }
    tokens
}

/// Splits a string into pieces of at most `size` characters (never inside a character).
pub(crate) fn pieces(text: &str, size: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(size.max(1)).map(|c| c.iter().collect()).collect()
}

/// The turn's text tokens: its `text`, then `repeat_tokens` numbered ones.
pub(crate) fn text_tokens(turn: &Turn) -> Vec<String> {
    let mut tokens = turn.text.as_deref().map(tokenize).unwrap_or_default();
    for i in 0..turn.repeat_tokens.unwrap_or(0) {
        let sep = if tokens.is_empty() { "" } else { " " };
        tokens.push(format!("{sep}tok{i}"));
    }
    tokens
}

/// The delta sequence of each call: a header with id and name, then the arguments in small pieces.
fn call_deltas(ids: &ResponseIds, index: usize, call: &ScriptedCall) -> Vec<Value> {
    let header = json!({"tool_calls": [{
        "index": index, "id": ids.call_id(index), "type": "function",
        "function": {"name": call.name, "arguments": ""},
    }]});
    let args = pieces(&call.arguments_string(), 7)
        .into_iter()
        .map(|piece| json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}));
    std::iter::once(header).chain(args).collect()
}

/// All calls' deltas, interleaved round-robin so clients must key them by index.
fn interleaved_calls(ids: &ResponseIds, calls: &[ScriptedCall]) -> Vec<Value> {
    let mut queues: Vec<std::collections::VecDeque<Value>> =
        calls.iter().enumerate().map(|(i, c)| call_deltas(ids, i, c).into()).collect();
    let mut out = Vec::new();
    while queues.iter().any(|q| !q.is_empty()) {
        for queue in &mut queues {
            out.extend(queue.pop_front());
        }
    }
    out
}

pub fn stream_plan(ids: &ResponseIds, turn: &Turn, include_usage: bool) -> StreamPlan {
    let mut events = vec![ids.chunk(json!({"role": "assistant", "content": ""}), None)];
    let tokens = text_tokens(turn);
    let mut stall_after = None;
    for (i, token) in tokens.iter().enumerate() {
        if turn.stall_after_tokens == Some(i) {
            stall_after = Some(events.len());
        }
        events.push(ids.chunk(json!({"content": token}), None));
    }
    if turn.stall_after_tokens.is_some_and(|n| n >= tokens.len()) {
        stall_after = Some(events.len());
    }
    let endless_after = turn.endless_line.then_some(events.len());
    if let Some(e) = &turn.stream_error {
        events.push(error_body(e.status, &e.message).to_string());
        return StreamPlan { events, stall_after, endless_after, ..StreamPlan::default() };
    }
    events.extend(interleaved_calls(ids, &turn.tool_calls).into_iter().map(|d| ids.chunk(d, None)));
    let finish = if turn.tool_calls.is_empty() { "stop" } else { "tool_calls" };
    events.push(ids.chunk(json!({}), Some(finish)));
    if include_usage {
        events.push(
            json!({
                "id": format!("chatcmpl-fixture-{}", ids.serial),
                "object": "chat.completion.chunk", "created": 0, "model": ids.model, "choices": [],
                "usage": {"prompt_tokens": 1, "completion_tokens": tokens.len(), "total_tokens": tokens.len() + 1},
            })
            .to_string(),
        );
    }
    events.push("[DONE]".to_string());
    StreamPlan { events, stall_after, endless_after, ..StreamPlan::default() }
}

/// A whole (non-streamed) completion answering with `text` and the turn's tool calls, if any.
pub fn completion(ids: &ResponseIds, text: &str, calls: &[ScriptedCall]) -> Value {
    let mut message = json!({"role": "assistant", "content": text});
    if !calls.is_empty() {
        message["tool_calls"] = calls
            .iter()
            .enumerate()
            .map(|(i, c)| {
                json!({"id": ids.call_id(i), "type": "function",
                       "function": {"name": c.name, "arguments": c.arguments_string()}})
            })
            .collect();
    }
    let finish = if calls.is_empty() { "stop" } else { "tool_calls" };
    json!({
        "id": format!("chatcmpl-fixture-{}", ids.serial),
        "object": "chat.completion", "created": 0, "model": ids.model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    })
}

/// An OpenAI-style error body.
pub fn error_body(status: u16, message: &str) -> Value {
    let kind = match status {
        401 | 403 => "authentication_error",
        429 => "rate_limit_error",
        400..=499 => "invalid_request_error",
        _ => "server_error",
    };
    json!({"error": {"message": message, "type": kind, "param": null, "code": null}})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids() -> ResponseIds {
        ResponseIds { serial: 7, model: "m".into() }
    }

    fn parsed(plan: &StreamPlan) -> Vec<Value> {
        plan.events.iter().filter(|e| *e != "[DONE]").map(|e| serde_json::from_str(e).unwrap()).collect()
    }

    #[test]
    fn tokens_join_back_to_the_text() {
        let text = "Hello  world,\nhow are   you? ünï";
        let tokens = tokenize(text);
        assert!(tokens.len() >= 5);
        assert_eq!(tokens.concat(), text);
    }

    #[test]
    fn a_text_turn_starts_with_the_role_and_ends_with_stop_and_done() {
        let plan = stream_plan(&ids(), &Turn::text("one two three"), false);
        let chunks = parsed(&plan);
        assert_eq!(chunks[0]["choices"][0]["delta"]["role"], "assistant");
        assert_eq!(chunks.last().unwrap()["choices"][0]["finish_reason"], "stop");
        assert_eq!(plan.events.last().unwrap(), "[DONE]");
        let text: String = chunks.iter().filter_map(|c| c["choices"][0]["delta"]["content"].as_str()).collect();
        assert_eq!(text, "one two three");
    }

    #[test]
    fn parallel_calls_interleave_and_each_starts_with_id_and_name() {
        let calls = vec![
            ScriptedCall::new("a", serde_json::json!({"path": "one.txt"})),
            ScriptedCall::new("b", serde_json::json!("{broken")),
        ];
        let chunks = parsed(&stream_plan(&ids(), &Turn::calls(calls), false));
        let deltas: Vec<&Value> = chunks.iter().filter_map(|c| c["choices"][0]["delta"]["tool_calls"].get(0)).collect();
        assert_eq!(deltas[0]["index"], 0);
        assert_eq!(deltas[0]["function"]["name"], "a");
        assert_eq!(deltas[1]["index"], 1);
        assert_eq!(deltas[1]["id"], "call_7_1");
        let args = |i: u64| -> String {
            deltas.iter().filter(|d| d["index"] == i).filter_map(|d| d["function"]["arguments"].as_str()).collect()
        };
        assert_eq!(args(0), r#"{"path":"one.txt"}"#);
        assert_eq!(args(1), "{broken");
        assert!(deltas.iter().filter(|d| d["index"] == 0).count() > 2);
        assert_eq!(chunks.last().unwrap()["choices"][0]["finish_reason"], "tool_calls");
    }

    #[test]
    fn a_stall_comes_after_the_requested_number_of_tokens() {
        let turn = Turn { stall_after_tokens: Some(2), repeat_tokens: Some(5), ..Default::default() };
        let plan = stream_plan(&ids(), &turn, false);
        // role chunk + 2 tokens
        assert_eq!(plan.stall_after, Some(3));
    }

    #[test]
    fn a_stream_error_ends_the_stream_after_the_text_without_finish_or_done() {
        let turn = Turn {
            stream_error: Some(crate::ScriptedError { status: 503, message: "busy".into() }),
            ..Turn::text("hi")
        };
        let plan = stream_plan(&ids(), &turn, false);
        let chunks = parsed(&plan);
        assert_eq!(chunks.last().unwrap()["error"]["message"], "busy");
        assert!(chunks.iter().all(|c| c["choices"][0]["finish_reason"].is_null()));
        assert_ne!(plan.events.last().unwrap(), "[DONE]");
        assert!(plan.event_names.is_empty(), "Chat Completions frames carry no event names");
    }

    #[test]
    fn usage_comes_in_a_chunk_without_choices_when_asked_for() {
        let chunks = parsed(&stream_plan(&ids(), &Turn::text("hi"), true));
        let usage = chunks.last().unwrap();
        assert_eq!(usage["choices"].as_array().map(Vec::len), Some(0));
        assert!(usage["usage"]["total_tokens"].is_number());
    }
}
