//! The UI's own view of the engine's data. The engine does not compile to wasm, so these types mirror
//! the serde shape of its types (threads, messages, tool calls, approvals, run events); the server
//! converts with [`crate::server_fns`]'s `mirror`, the browser parses the same JSON from the run stream.

use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Thread {
    pub id: String,
    pub title: String,
    pub archived: bool,
    pub created_at: String,
    pub updated_at: String,
}

/// One page of the sidebar; `next` is the cursor for "Load more".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadPage {
    pub threads: Vec<Thread>,
    pub next: Option<Cursor>,
}

/// Position after the last thread shown: its `(updated_at, id)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cursor {
    pub updated_at: String,
    pub id: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub id: String,
    pub run_id: Option<String>,
    pub role: Role,
    pub content: String,
    pub created_at: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Risk {
    Low,
    Medium,
    High,
}

impl Risk {
    pub fn label(self) -> &'static str {
        match self {
            Risk::Low => "low",
            Risk::Medium => "medium",
            Risk::High => "high",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Preview {
    Diff { path: String, diff: String },
    Command { command: String },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolContent {
    Text { text: String },
    Image { mime_type: String, data: String },
    Resource { uri: String, mime_type: Option<String>, text: Option<String> },
}

impl ToolContent {
    /// What a reader sees of this piece; images are named, not shown.
    pub fn as_display_text(&self) -> String {
        match self {
            ToolContent::Text { text } => text.clone(),
            ToolContent::Image { mime_type, .. } => format!("[image: {mime_type}]"),
            ToolContent::Resource { uri, text, .. } => match text {
                Some(text) => format!("[{uri}]\n{text}"),
                None => format!("[resource: {uri}]"),
            },
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolCallStatus {
    Invalid,
    Pending,
    Approved,
    Denied,
    TimedOut,
    Running,
    Done,
    Interrupted,
    Cancelled,
}

impl ToolCallStatus {
    pub fn label(self) -> &'static str {
        match self {
            Self::Invalid => "invalid arguments",
            Self::Pending => "waiting for approval",
            Self::Approved => "approved",
            Self::Denied => "denied",
            Self::TimedOut => "timed out",
            Self::Running => "running",
            Self::Done => "done",
            Self::Interrupted => "interrupted: outcome unknown",
            Self::Cancelled => "cancelled",
        }
    }
}

/// Where a tool comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ToolOrigin {
    BuiltIn,
    Mcp { server: String },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub run_id: String,
    pub message_id: String,
    pub name: String,
    pub origin: ToolOrigin,
    pub arguments: Value,
    pub summary: String,
    pub risk: Risk,
    pub needs_approval: bool,
    pub preview: Option<Preview>,
    pub status: ToolCallStatus,
    pub output: Option<Vec<ToolContent>>,
    pub is_error: bool,
    pub truncated: bool,
}

impl ToolCall {
    pub fn output_text(&self) -> Option<String> {
        self.output
            .as_ref()
            .map(|parts| parts.iter().map(ToolContent::as_display_text).collect::<Vec<_>>().join("\n"))
    }

    /// The MCP server this call could not reach, when that is why it failed: the chat offers to
    /// reconnect it. (The engine words the result as `offline_result` does.)
    pub fn offline_server(&self) -> Option<&str> {
        let ToolOrigin::Mcp { server } = &self.origin else { return None };
        let offline = self.is_error && self.output_text().is_some_and(|text| text == offline_result(server));
        offline.then_some(server.as_str())
    }
}

/// The result the engine records for a call to an MCP server that is offline.
pub fn offline_result(server: &str) -> String {
    format!("Error: server `{server}` is offline")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalStatus {
    Pending,
    Approved,
    Denied,
    TimedOut,
    /// The run stopped before anyone decided.
    Cancelled,
    /// The file changed after the card was shown; a new card with the new diff replaced it.
    Superseded,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    Once,
    Thread,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum DecidedBy {
    User {
        edited_arguments: Option<Value>,
        reason: Option<String>,
        scope: Scope,
        #[serde(default)]
        network: bool,
    },
    Rule { rule_id: String },
    Timeout,
    /// The run was stopped while the approval waited.
    RunStopped,
    /// The target changed after the card was shown; `replaced_by` is the new card.
    TargetChanged { replaced_by: String },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    pub status: ApprovalStatus,
    #[serde(flatten)]
    pub by: DecidedBy,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Approval {
    pub id: String,
    pub run_id: String,
    pub thread_id: String,
    pub tool_call_id: String,
    pub tool: String,
    pub arguments: Value,
    pub summary: String,
    pub risk: Risk,
    pub preview: Option<Preview>,
    pub status: ApprovalStatus,
    pub decision: Option<Decision>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RuleMatcher {
    ExactArguments { arguments: Value },
    AnyArguments,
    CommandPrefix { prefix: String },
}

impl RuleMatcher {
    pub fn describe(&self) -> String {
        match self {
            RuleMatcher::ExactArguments { arguments } => format!("with exactly {arguments}"),
            RuleMatcher::AnyArguments => "any arguments".to_string(),
            RuleMatcher::CommandPrefix { prefix } => format!("commands starting with `{prefix}`"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadRule {
    pub id: String,
    pub tool: String,
    pub matcher: RuleMatcher,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Running,
    Waiting,
    Finished,
    Failed,
    Cancelled,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    pub id: String,
    pub status: RunStatus,
    pub step: u32,
    pub max_steps: u32,
}

/// Whether commands Warden runs are confined on this machine, and if not, why (the approval card of
/// a command says so).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SandboxInfo {
    pub available: bool,
    pub detail: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadDetail {
    /// Filled by the server function from the engine's sandbox status (not part of the engine's record).
    #[serde(default)]
    pub sandbox: SandboxInfo,
    #[serde(flatten)]
    pub thread: Thread,
    pub messages: Vec<Message>,
    pub tool_calls: Vec<ToolCall>,
    pub approvals: Vec<Approval>,
    pub active_run: Option<RunSummary>,
    pub last_error: Option<String>,
    pub rules: Vec<ThreadRule>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelStatus {
    pub configured: bool,
    pub provider: String,
    pub model: String,
    pub hint: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunStarted {
    pub run_id: String,
    pub message_id: Option<String>,
}

/// A thread just made from the welcome page, with its first run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewChat {
    pub thread_id: String,
    pub run_id: String,
}

/// One event of a run's stream (`event:` is the tag, `data:` the other fields).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RunEvent {
    RunStarted { run_id: String, thread_id: String },
    Step { n: u32, max: u32, action: String },
    TextDelta { text: String },
    ToolCall { id: String, name: String, arguments: Value },
    ApprovalRequest { approval: Approval },
    ApprovalResolved { approval_id: String, tool_call_id: String, decision: String, arguments: Value },
    ToolProgress { tool_call_id: String, progress: f64, total: Option<f64>, message: Option<String> },
    ToolResult { tool_call_id: String, output: String, is_error: bool, truncated: bool },
    ThreadUpdated { thread_id: String, title: String },
    RunFinished { message_id: Option<String>, stopped: bool },
    Error { message: String },
}

impl RunEvent {
    /// Every SSE `event:` name the stream can carry.
    pub const KINDS: [&'static str; 11] = [
        "run_started",
        "step",
        "text_delta",
        "tool_call",
        "approval_request",
        "approval_resolved",
        "tool_progress",
        "tool_result",
        "thread_updated",
        "run_finished",
        "error",
    ];

    /// Rebuilds an event from its SSE `event:` name and `data:` JSON object.
    pub fn from_sse(kind: &str, data: &str) -> Result<Self, serde_json::Error> {
        let mut value: Value = serde_json::from_str(data)?;
        if let Value::Object(map) = &mut value {
            map.insert("type".into(), Value::String(kind.to_string()));
        }
        serde_json::from_value(value)
    }

    pub fn is_terminal(&self) -> bool {
        matches!(self, RunEvent::RunFinished { .. } | RunEvent::Error { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_event_is_rebuilt_from_name_and_data() {
        let e = RunEvent::from_sse("step", r#"{"n":3,"max":10,"action":"Calling shell"}"#);
        assert_eq!(e.ok(), Some(RunEvent::Step { n: 3, max: 10, action: "Calling shell".into() }));
    }

    #[test]
    fn approval_request_parses_the_engine_shape() {
        let data = r#"{"approval":{"id":"a1","run_id":"r1","thread_id":"t1","tool_call_id":"c1","tool":"shell",
            "origin":{"kind":"built_in"},"arguments":{"command":"ls"},"summary":"Run `ls`","risk":"high",
            "preview":{"kind":"command","command":"ls"},"status":"approved","created_at":"x","decided_at":null,
            "expires_at":null,"decision":{"status":"approved","by":"user","edited_arguments":null,"reason":null,
            "scope":"thread"}}}"#;
        let Ok(RunEvent::ApprovalRequest { approval }) = RunEvent::from_sse("approval_request", data) else {
            panic!("did not parse");
        };
        assert_eq!(approval.risk, Risk::High);
        assert_eq!(approval.preview, Some(Preview::Command { command: "ls".into() }));
        assert!(matches!(approval.decision.map(|d| d.by), Some(DecidedBy::User { scope: Scope::Thread, .. })));
    }

    fn call_with(origin: Value, output: &str, is_error: bool) -> ToolCall {
        serde_json::from_value(serde_json::json!({
            "id": "c1", "run_id": "r1", "message_id": "m1", "name": "fx__echo", "origin": origin,
            "arguments": {}, "summary": "Call `echo`", "risk": "medium", "needs_approval": true,
            "preview": null, "status": "done", "output": [{"type": "text", "text": output}],
            "is_error": is_error, "truncated": false
        }))
        .expect("a tool call in the engine's shape")
    }

    #[test]
    fn only_an_offline_result_of_an_mcp_call_names_the_server_to_reconnect() {
        let mcp = serde_json::json!({"kind": "mcp", "server": "fx"});
        assert_eq!(call_with(mcp.clone(), "Error: server `fx` is offline", true).offline_server(), Some("fx"));
        // Another server's name in the text, a tool's own output, or a built-in tool: no offer.
        assert_eq!(call_with(mcp.clone(), "Error: server `other` is offline", true).offline_server(), None);
        assert_eq!(call_with(mcp, "Error: server `fx` is offline", false).offline_server(), None);
        let builtin = serde_json::json!({"kind": "built_in"});
        assert_eq!(call_with(builtin, "Error: server `fx` is offline", true).offline_server(), None);
    }

    /// The browser cannot link the engine, so this checks the wording both sides rely on.
    #[test]
    fn offline_wording_matches_what_the_engine_records() {
        let error = warden_engine::tools::ToolError::Offline("fx".into());
        assert_eq!(format!("Error: {error}"), offline_result("fx"));
    }
}
