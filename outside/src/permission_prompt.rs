//! Claude Code's permission prompt as an outside request: the input Claude Code gives its
//! `--permission-prompt-tool` (`tool_name`, `input`, `tool_use_id`) becomes a security evaluation a
//! person can read (the Bash command, the file a Write creates and its content, else the input as
//! JSON), and the decision becomes the answer Claude Code expects, `{"behavior":"allow",
//! "updatedInput":{…}}` or `{"behavior":"deny","message":"…"}`. Only the translation lives here;
//! the MCP endpoint that carries it is the server's.
//!
//! The answer carries the whole input, so the request carries all of it too: the fields beside the
//! code go into `metadata.other_input` (stored, shown on every card, in the audit log), and those that
//! change what the call may do (`dangerouslyDisableSandbox`, `run_in_background`, anything the card
//! does not know) are named in the explanation and make the call high risk.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::protocol::{
    check_id, DeciderKind, DecisionFrame, RiskLevel, SecurityEvaluation, Verdict, MAX_EXPLANATION_BYTES,
    MAX_METADATA_BYTES,
};

/// `metadata.agent` of every request made from a permission prompt.
pub const AGENT: &str = "claude_code";

/// The metadata field that holds every field of the input besides the one shown as the code.
pub const OTHER_INPUT: &str = "other_input";

/// Most bytes (compact JSON) of the fields beside the code kept in the metadata; an input with more
/// is shown whole as JSON instead (the code's own limit then bounds it).
const MAX_OTHER_INPUT_BYTES: usize = MAX_METADATA_BYTES - 1024;

/// Whether a field of `tool_name`'s input changes what the call may do beyond what its code shows:
/// the named escapes always, and for the tools shown as one field (Bash, Write) anything the card
/// does not know. The rest of a tool's input is shown whole as JSON.
pub fn flagged_field(tool_name: &str, field: &str) -> bool {
    if matches!(field, "dangerouslyDisableSandbox" | "run_in_background") {
        return true;
    }
    match tool_name {
        "Bash" => !matches!(field, "command" | "description" | "timeout"),
        "Write" => !matches!(field, "file_path" | "content"),
        _ => false,
    }
}

/// What Claude Code asks: may `tool_name` run with `input`?
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermissionPrompt {
    pub tool_name: String,
    pub input: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
}

/// The answer Claude Code reads from the tool's one text block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "behavior", rename_all = "lowercase")]
pub enum PermissionAnswer {
    /// Run the tool with this input (the person's edit applied).
    Allow {
        #[serde(rename = "updatedInput")]
        updated_input: Map<String, Value>,
    },
    /// Do not run it; Claude Code passes `message` on to the model.
    Deny { message: String },
}

impl PermissionAnswer {
    /// The answer as the JSON text of the tool result.
    pub fn to_json(&self) -> String {
        // A tagged enum of strings and JSON values always serializes.
        serde_json::to_string(self)
            .unwrap_or_else(|_| r#"{"behavior":"deny","message":"Warden could not encode its answer"}"#.to_string())
    }
}

/// How a call is shown to the person, and how an edit of what they saw maps back to the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rendering {
    /// The code is the input's string field of this name (Bash `command`, Write `content`); an
    /// edit replaces that field.
    Field(&'static str),
    /// The code is the whole input as pretty JSON; an edit must be a JSON object, which replaces it.
    Json,
}

/// The risk Warden gives a Claude Code tool: reading is low, changing files or fetching from the
/// web is medium, running commands and anything unknown (other MCP servers' tools included) is high.
pub fn risk_of(tool_name: &str) -> RiskLevel {
    match tool_name {
        "Read" | "Glob" | "Grep" | "LS" | "NotebookRead" | "TodoWrite" => RiskLevel::Low,
        "Edit" | "MultiEdit" | "Write" | "NotebookEdit" | "WebFetch" | "WebSearch" => RiskLevel::Medium,
        _ => RiskLevel::High,
    }
}

impl PermissionPrompt {
    /// The client request id to use: Claude Code's `tool_use_id` when it is a valid id (so a repeated
    /// prompt for the same call is answered, not asked twice), else `fallback`.
    pub fn request_id(&self, fallback: impl FnOnce() -> String) -> String {
        match &self.tool_use_id {
            Some(id) if check_id("id", id).is_ok() => id.clone(),
            _ => fallback(),
        }
    }

    fn rendering(&self) -> Rendering {
        let string_field = |name: &'static str| match self.input.get(name) {
            Some(Value::String(_)) if self.other_input_bytes(name) <= MAX_OTHER_INPUT_BYTES => Rendering::Field(name),
            _ => Rendering::Json,
        };
        match self.tool_name.as_str() {
            "Bash" => string_field("command"),
            "Write" => string_field("content"),
            _ => Rendering::Json,
        }
    }

    fn text(&self, field: &str) -> Option<&str> {
        self.input.get(field).and_then(Value::as_str)
    }

    /// The input without the field shown as the code.
    fn other_input(&self, code_field: &str) -> Map<String, Value> {
        self.input.iter().filter(|(name, _)| *name != code_field).map(|(k, v)| (k.clone(), v.clone())).collect()
    }

    fn other_input_bytes(&self, code_field: &str) -> usize {
        serde_json::to_string(&self.other_input(code_field)).map_or(usize::MAX, |text| text.len())
    }

    /// The fields of the input that change what the call may do, with their values as JSON, by name (the
    /// same order however the client wrote them, and whether or not serde_json keeps the written order).
    fn flagged(&self) -> Vec<(String, String)> {
        let mut flagged: Vec<(String, String)> = self
            .input
            .iter()
            .filter(|(name, _)| flagged_field(&self.tool_name, name))
            .map(|(name, value)| (name.clone(), serde_json::to_string(value).unwrap_or_default()))
            .collect();
        flagged.sort();
        flagged
    }

    /// The security evaluation a person decides, with the client's request id `id`.
    pub fn to_request(&self, id: String) -> SecurityEvaluation {
        let rendering = self.rendering();
        let (code, language) = match rendering {
            Rendering::Field(field) => {
                let language = match field {
                    "command" => Some("bash".to_string()),
                    _ => self.text("file_path").and_then(language_of_path).map(str::to_string),
                };
                (self.text(field).unwrap_or_default().to_string(), language)
            }
            Rendering::Json => (pretty(&self.input), Some("json".to_string())),
        };
        let flagged = self.flagged();
        // Named first, so a long description cannot push them past the explanation's limit.
        let mut explanation = format!("Claude Code wants to use {}", self.tool_name);
        if !flagged.is_empty() {
            let named: Vec<String> = flagged.iter().map(|(name, value)| format!("{name} = {value}")).collect();
            explanation.push_str(&format!("\n\nAlso in this call: {}", named.join(", ")));
        }
        if let Some(path) = self.text("file_path").or_else(|| self.text("notebook_path")) {
            explanation.push_str(&format!("\n\nFile: {path}"));
        }
        if let Some(description) = self.text("description") {
            explanation.push_str(&format!("\n\n{description}"));
        }
        let mut metadata = Map::new();
        metadata.insert("agent".into(), Value::from(AGENT));
        metadata.insert("tool_name".into(), Value::from(self.tool_name.clone()));
        if let Some(tool_use_id) = &self.tool_use_id {
            metadata.insert("tool_use_id".into(), Value::from(tool_use_id.clone()));
        }
        if let Rendering::Field(field) = rendering {
            metadata.insert(OTHER_INPUT.into(), Value::Object(self.other_input(field)));
        }
        let risk_level = if flagged.is_empty() { risk_of(&self.tool_name) } else { RiskLevel::High };
        SecurityEvaluation {
            id,
            code,
            language,
            explanation: truncate(explanation, MAX_EXPLANATION_BYTES),
            risk_level,
            metadata: Some(metadata),
            warden_call_id: None,
        }
    }

    /// Claude Code's answer to `decision`. An approval carries the input with the person's edit
    /// applied; an edit that cannot be applied (the JSON of a tool's input edited into something
    /// that is not a JSON object) is a denial saying so, since running the unedited call is not what
    /// the person approved.
    pub fn answer(&self, decision: &DecisionFrame) -> PermissionAnswer {
        if decision.decision == Verdict::Rejected {
            return PermissionAnswer::Deny { message: deny_message(decision) };
        }
        let Some(edited) = &decision.edited_code else {
            return PermissionAnswer::Allow { updated_input: self.input.clone() };
        };
        match self.rendering() {
            Rendering::Field(field) => {
                let mut input = self.input.clone();
                input.insert(field.to_string(), Value::String(edited.clone()));
                PermissionAnswer::Allow { updated_input: input }
            }
            Rendering::Json => match serde_json::from_str::<Map<String, Value>>(edited) {
                Ok(input) => PermissionAnswer::Allow { updated_input: input },
                Err(error) => PermissionAnswer::Deny {
                    message: format!(
                        "The person approved an edited {} call in Warden, but the edit is not a JSON object of \
                         the tool's input ({error}), so the call was not run.",
                        self.tool_name
                    ),
                },
            },
        }
    }
}

fn deny_message(decision: &DecisionFrame) -> String {
    let by = match decision.decided_by.kind {
        DeciderKind::Person => "The person denied this in Warden",
        DeciderKind::Timeout => "Nobody decided in Warden in time, so this was denied",
        DeciderKind::Policy => "A Warden policy denied this",
        DeciderKind::CallEnded => "The Warden call this belonged to ended first, so this was denied",
    };
    match decision.reason.as_deref().map(str::trim).filter(|r| !r.is_empty()) {
        Some(reason) => format!("{by}: {reason}"),
        None => format!("{by}."),
    }
}

fn pretty(input: &Map<String, Value>) -> String {
    serde_json::to_string_pretty(input).unwrap_or_default()
}

/// At most `max` bytes of `text`, cut at a character boundary.
fn truncate(mut text: String, max: usize) -> String {
    if text.len() > max {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    text
}

/// The language of a file, by its extension, for highlighting what a Write writes.
fn language_of_path(path: &str) -> Option<&'static str> {
    let name = path.rsplit('/').next()?;
    let (_, extension) = name.rsplit_once('.')?;
    Some(match extension.to_ascii_lowercase().as_str() {
        "rs" => "rust",
        "py" => "python",
        "js" | "mjs" | "cjs" => "javascript",
        "ts" | "tsx" => "typescript",
        "sh" | "bash" => "bash",
        "json" => "json",
        "toml" => "toml",
        "yaml" | "yml" => "yaml",
        "md" => "markdown",
        "html" => "html",
        "css" => "css",
        "go" => "go",
        "c" | "h" => "c",
        "cpp" | "cc" | "hpp" => "cpp",
        "java" => "java",
        "rb" => "ruby",
        "sql" => "sql",
        "txt" => "text",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::DecidedBy;
    use serde_json::json;

    fn prompt(tool_name: &str, input: Value) -> PermissionPrompt {
        PermissionPrompt {
            tool_name: tool_name.into(),
            input: input.as_object().cloned().unwrap(),
            tool_use_id: Some("toolu_1".into()),
        }
    }

    fn decision(verdict: Verdict, kind: DeciderKind, reason: Option<&str>, edited: Option<&str>) -> DecisionFrame {
        DecisionFrame {
            id: "toolu_1".into(),
            request_id: "r1".into(),
            decision: verdict,
            reason: reason.map(Into::into),
            edited_code: edited.map(Into::into),
            decided_by: DecidedBy { kind, detail: "x".into() },
        }
    }

    #[test]
    fn a_bash_call_is_shown_as_its_command_with_its_description() {
        let p = prompt("Bash", json!({"command": "rm -rf build", "description": "Clean the build"}));
        let r = p.to_request("toolu_1".into());
        assert_eq!(r.code, "rm -rf build");
        assert_eq!(r.language.as_deref(), Some("bash"));
        assert_eq!(r.explanation, "Claude Code wants to use Bash\n\nClean the build");
        assert_eq!(r.risk_level, RiskLevel::High);
        let metadata = Value::Object(r.metadata.unwrap());
        assert_eq!(
            metadata,
            json!({"agent": "claude_code", "tool_name": "Bash", "tool_use_id": "toolu_1",
                   "other_input": {"description": "Clean the build"}})
        );
    }

    #[test]
    fn every_field_beside_the_command_is_kept_and_those_that_change_the_call_are_named() {
        let p = prompt(
            "Bash",
            json!({"command": "make", "description": "Build", "timeout": 600000, "dangerouslyDisableSandbox": true,
                   "run_in_background": true, "later_option": {"x": 1}}),
        );
        let r = p.to_request("id".into());
        assert_eq!(r.code, "make");
        let metadata = r.metadata.clone().unwrap();
        assert_eq!(
            metadata[OTHER_INPUT],
            json!({"description": "Build", "timeout": 600000, "dangerouslyDisableSandbox": true,
                   "run_in_background": true, "later_option": {"x": 1}})
        );
        assert_eq!(
            r.explanation,
            "Claude Code wants to use Bash\n\nAlso in this call: dangerouslyDisableSandbox = true, \
             later_option = {\"x\":1}, run_in_background = true\n\nBuild"
        );
        assert!(crate::ClientFrame::SecurityEvaluation(r).validate().is_ok());
        // A Write (medium) with a field the card does not know is high.
        let p = prompt("Write", json!({"file_path": "/w/a.txt", "content": "x", "mode": "0777"}));
        let r = p.to_request("id".into());
        assert_eq!(r.risk_level, RiskLevel::High);
        assert_eq!(r.metadata.unwrap()[OTHER_INPUT], json!({"file_path": "/w/a.txt", "mode": "0777"}));
        assert!(flagged_field("Bash", "dangerouslyDisableSandbox") && flagged_field("Edit", "run_in_background"));
        assert!(!flagged_field("Bash", "timeout") && !flagged_field("Edit", "old_string"));
    }

    #[test]
    fn the_request_holds_exactly_the_input_an_approval_answers_with() {
        let inputs = [
            json!({"command": "ls", "description": "List", "dangerouslyDisableSandbox": true}),
            json!({"command": "ls", "run_in_background": true, "timeout": 5}),
            json!({"command": "ls"}),
            json!({"command": "ls", "x": "y".repeat(MAX_METADATA_BYTES)}),
        ];
        for input in inputs {
            let p = prompt("Bash", input.clone());
            let r = p.to_request("id".into());
            // What the card shows: the code plus the other fields, or the whole input as JSON.
            let shown = match r.metadata.as_ref().and_then(|m| m.get(OTHER_INPUT)) {
                Some(Value::Object(other)) => {
                    let mut all = other.clone();
                    all.insert("command".into(), Value::String(r.code.clone()));
                    Value::Object(all)
                }
                _ => serde_json::from_str(&r.code).unwrap(),
            };
            let PermissionAnswer::Allow { updated_input } =
                p.answer(&decision(Verdict::Approved, DeciderKind::Person, None, None))
            else {
                panic!("allowed")
            };
            assert_eq!(Value::Object(updated_input), shown);
            assert_eq!(shown, input);
        }
    }

    #[test]
    fn an_edit_of_the_command_keeps_every_other_field_as_shown() {
        let p = prompt("Bash", json!({"command": "rm -rf /", "run_in_background": true}));
        let PermissionAnswer::Allow { updated_input } =
            p.answer(&decision(Verdict::Approved, DeciderKind::Person, None, Some("ls")))
        else {
            panic!("allowed")
        };
        assert_eq!(Value::Object(updated_input), json!({"command": "ls", "run_in_background": true}));
    }

    #[test]
    fn a_write_is_shown_as_its_content_with_the_file_in_the_explanation() {
        let p = prompt("Write", json!({"file_path": "/w/src/main.rs", "content": "fn main() {}\n"}));
        let r = p.to_request("id".into());
        assert_eq!((r.code.as_str(), r.language.as_deref()), ("fn main() {}\n", Some("rust")));
        assert_eq!(r.explanation, "Claude Code wants to use Write\n\nFile: /w/src/main.rs");
        assert_eq!(r.risk_level, RiskLevel::Medium);
    }

    #[test]
    fn other_tools_are_shown_as_their_input_in_json() {
        let p = prompt("Edit", json!({"file_path": "/w/a.txt", "old_string": "a", "new_string": "b"}));
        let r = p.to_request("id".into());
        assert_eq!(serde_json::from_str::<Value>(&r.code).unwrap(), Value::Object(p.input.clone()));
        assert_eq!(r.language.as_deref(), Some("json"));
        assert_eq!(p.to_request("id".into()).risk_level, RiskLevel::Medium);
    }

    #[test]
    fn risk_is_low_for_reading_medium_for_changing_files_and_high_for_commands_and_unknown_tools() {
        for (tool, risk) in [
            ("Read", RiskLevel::Low),
            ("Glob", RiskLevel::Low),
            ("Grep", RiskLevel::Low),
            ("Edit", RiskLevel::Medium),
            ("Write", RiskLevel::Medium),
            ("WebFetch", RiskLevel::Medium),
            ("Bash", RiskLevel::High),
            ("mcp__other__delete", RiskLevel::High),
        ] {
            assert_eq!(risk_of(tool), risk, "{tool}");
        }
    }

    #[test]
    fn an_approval_answers_allow_with_the_input_unchanged() {
        let p = prompt("Bash", json!({"command": "ls", "description": "List"}));
        let answer = p.answer(&decision(Verdict::Approved, DeciderKind::Person, None, None));
        assert_eq!(answer.to_json(), r#"{"behavior":"allow","updatedInput":{"command":"ls","description":"List"}}"#);
    }

    #[test]
    fn an_edited_command_or_content_replaces_that_field() {
        let p = prompt("Bash", json!({"command": "rm -rf /", "description": "Clean"}));
        let answer = p.answer(&decision(Verdict::Approved, DeciderKind::Person, None, Some("rm -rf ./build")));
        assert_eq!(
            answer,
            PermissionAnswer::Allow {
                updated_input: json!({"command": "rm -rf ./build", "description": "Clean"})
                    .as_object()
                    .cloned()
                    .unwrap()
            }
        );
        let p = prompt("Write", json!({"file_path": "/w/a.txt", "content": "one"}));
        let PermissionAnswer::Allow { updated_input } =
            p.answer(&decision(Verdict::Approved, DeciderKind::Person, None, Some("two")))
        else {
            panic!("allowed")
        };
        assert_eq!(Value::Object(updated_input), json!({"file_path": "/w/a.txt", "content": "two"}));
    }

    #[test]
    fn an_edited_json_input_replaces_the_input_and_one_that_is_no_object_denies() {
        let p = prompt("Edit", json!({"file_path": "/w/a.txt", "old_string": "a", "new_string": "b"}));
        let edited = r#"{"file_path": "/w/a.txt", "old_string": "a", "new_string": "c"}"#;
        let PermissionAnswer::Allow { updated_input } =
            p.answer(&decision(Verdict::Approved, DeciderKind::Person, None, Some(edited)))
        else {
            panic!("allowed")
        };
        assert_eq!(updated_input["new_string"], "c");
        let answer = p.answer(&decision(Verdict::Approved, DeciderKind::Person, None, Some("new_string = c")));
        let PermissionAnswer::Deny { message } = answer else { panic!("denied") };
        assert!(message.contains("not a JSON object"), "{message}");
    }

    #[test]
    fn a_rejection_answers_deny_with_who_decided_and_why() {
        let p = prompt("Bash", json!({"command": "ls"}));
        let answer = p.answer(&decision(Verdict::Rejected, DeciderKind::Person, Some("not now"), None));
        assert_eq!(answer.to_json(), r#"{"behavior":"deny","message":"The person denied this in Warden: not now"}"#);
        let answer = p.answer(&decision(Verdict::Rejected, DeciderKind::Timeout, Some("no decision within 5 s"), None));
        assert_eq!(
            answer,
            PermissionAnswer::Deny {
                message: "Nobody decided in Warden in time, so this was denied: no decision within 5 s".into()
            }
        );
        let answer = p.answer(&decision(Verdict::Rejected, DeciderKind::Person, None, None));
        assert_eq!(answer, PermissionAnswer::Deny { message: "The person denied this in Warden.".into() });
    }

    #[test]
    fn the_tool_use_id_is_the_request_id_when_it_is_a_valid_id() {
        let mut p = prompt("Read", json!({"file_path": "/w/a"}));
        assert_eq!(p.request_id(|| "fresh".into()), "toolu_1");
        p.tool_use_id = Some("bad\nid".into());
        assert_eq!(p.request_id(|| "fresh".into()), "fresh");
        p.tool_use_id = None;
        assert_eq!(p.request_id(|| "fresh".into()), "fresh");
    }

    #[test]
    fn a_long_description_is_cut_to_the_explanation_limit_at_a_character_boundary() {
        let p = prompt("Bash", json!({"command": "ls", "description": "é".repeat(MAX_EXPLANATION_BYTES)}));
        let r = p.to_request("id".into());
        assert!(r.explanation.len() <= MAX_EXPLANATION_BYTES);
        assert!(crate::ClientFrame::SecurityEvaluation(r).validate().is_ok());
    }
}
