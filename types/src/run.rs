//! Runs: one agent loop started by a user message; its state, and the tool calls it records.

use crate::id::{MessageId, RunId, ThreadId, ToolCallId};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::tool::{Preview, Risk, ToolContent, ToolFailure, ToolOrigin};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::IntoStaticStr, strum::EnumString)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
#[cfg_attr(feature = "sqlx", derive(sqlx::Type), sqlx(rename_all = "snake_case"))]
pub enum RunStatus {
    Running,
    Waiting,
    Finished,
    Failed,
    Cancelled,
}

impl RunStatus {
    pub fn is_terminal(self) -> bool {
        matches!(self, RunStatus::Finished | RunStatus::Failed | RunStatus::Cancelled)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    pub id: RunId,
    pub thread_id: ThreadId,
    pub status: RunStatus,
    pub step: u32,
    pub max_steps: u32,
    pub error: Option<String>,
    pub created_at: String,
    /// The provider and model the run was started with (`None` for runs from before they were recorded).
    #[serde(default)]
    pub model: Option<crate::provider::ModelChoice>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, strum::IntoStaticStr, strum::EnumString)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
#[cfg_attr(feature = "sqlx", derive(sqlx::Type), sqlx(rename_all = "snake_case"))]
pub enum ToolCallStatus {
    /// Arguments failed validation; the model was told, the tool never ran.
    Invalid,
    /// Waiting for a person.
    Pending,
    /// Cleared to run (by a person, a thread rule, or because it is read-only), not started yet.
    Approved,
    Denied,
    TimedOut,
    /// Marked started; if the server dies now, the outcome is unknown.
    Running,
    Done,
    /// The server stopped while the call ran: it is not run again.
    Interrupted,
    /// The run was stopped before this call ran.
    Cancelled,
}

impl ToolCallStatus {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    pub fn parse(s: &str) -> Option<Self> {
        s.parse().ok()
    }

    /// What the chat shows for a call in this state.
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

    /// Settled: the call has an outcome the model can be told.
    pub fn is_settled(self) -> bool {
        !matches!(self, Self::Pending | Self::Approved | Self::Running)
    }
}

/// A tool call as recorded: what was asked, how it was decided, what came of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallRecord {
    pub id: ToolCallId,
    pub run_id: RunId,
    pub thread_id: ThreadId,
    /// The assistant message that asked for it.
    pub message_id: MessageId,
    pub call_id: String,
    pub name: String,
    pub origin: ToolOrigin,
    /// The arguments it runs with (after any edit).
    pub arguments: Value,
    pub summary: String,
    pub risk: Risk,
    pub needs_approval: bool,
    pub preview: Option<Preview>,
    pub status: ToolCallStatus,
    /// Full output (never truncated here); `None` until settled.
    pub output: Option<Vec<ToolContent>>,
    pub is_error: bool,
    /// Whether the model saw a shortened output.
    pub truncated: bool,
    /// Why it failed, where the UI acts on it (absent for every other call, and in older records).
    #[serde(default)]
    pub failure: Option<ToolFailure>,
    pub created_at: String,
    pub finished_at: Option<String>,
}

impl ToolCallRecord {
    /// The MCP server this call could not reach, when that is why it failed: the chat offers to
    /// reconnect it.
    pub fn offline_server(&self) -> Option<&str> {
        let ToolOrigin::Mcp { server } = &self.origin else { return None };
        (self.failure == Some(ToolFailure::ServerOffline)).then_some(server.as_str())
    }

    /// The output as a reader sees it (images named, not shown); `None` until settled.
    pub fn output_text(&self) -> Option<String> {
        self.output.as_ref().map(|parts| parts.iter().map(ToolContent::as_display_text).collect::<Vec<_>>().join("\n"))
    }
}
