//! Runs: one agent loop started by a user message. The events a run emits, its records, and the
//! machinery that drives it (`driver`), fans its events out (`events`) and tracks live runs (`manager`).

pub mod conversation;
pub mod driver;
pub mod events;
pub mod outcome_text;
pub mod title;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::approval::Approval;
use crate::tools::{Preview, Risk, ToolContent, ToolOrigin};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
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
    pub id: String,
    pub thread_id: String,
    pub status: RunStatus,
    pub step: u32,
    pub max_steps: u32,
    pub error: Option<String>,
    pub created_at: String,
}

/// One event of a run's stream. On the wire: `event: <type>` and the other fields as JSON `data:`.
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
    pub fn kind(&self) -> &'static str {
        match self {
            RunEvent::RunStarted { .. } => "run_started",
            RunEvent::Step { .. } => "step",
            RunEvent::TextDelta { .. } => "text_delta",
            RunEvent::ToolCall { .. } => "tool_call",
            RunEvent::ApprovalRequest { .. } => "approval_request",
            RunEvent::ApprovalResolved { .. } => "approval_resolved",
            RunEvent::ToolProgress { .. } => "tool_progress",
            RunEvent::ToolResult { .. } => "tool_result",
            RunEvent::ThreadUpdated { .. } => "thread_updated",
            RunEvent::RunFinished { .. } => "run_finished",
            RunEvent::Error { .. } => "error",
        }
    }

    /// After this event the run's stream ends.
    pub fn is_terminal(&self) -> bool {
        matches!(self, RunEvent::RunFinished { .. } | RunEvent::Error { .. })
    }
}

/// An event with its place in the run's stream (the SSE `id:`), already serialised: `data` is the
/// event's JSON (with its `type`), sent as the SSE `data:` line as it is.
#[derive(Debug, Clone, PartialEq)]
pub struct RunEventRecord {
    pub seq: u64,
    pub kind: String,
    pub data: std::sync::Arc<str>,
}

impl RunEventRecord {
    pub fn event(&self) -> Option<RunEvent> {
        serde_json::from_str(&self.data).ok()
    }
    pub fn is_terminal(&self) -> bool {
        self.kind == "run_finished" || self.kind == "error"
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
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
        match self {
            ToolCallStatus::Invalid => "invalid",
            ToolCallStatus::Pending => "pending",
            ToolCallStatus::Approved => "approved",
            ToolCallStatus::Denied => "denied",
            ToolCallStatus::TimedOut => "timed_out",
            ToolCallStatus::Running => "running",
            ToolCallStatus::Done => "done",
            ToolCallStatus::Interrupted => "interrupted",
            ToolCallStatus::Cancelled => "cancelled",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "invalid" => Self::Invalid,
            "pending" => Self::Pending,
            "approved" => Self::Approved,
            "denied" => Self::Denied,
            "timed_out" => Self::TimedOut,
            "running" => Self::Running,
            "done" => Self::Done,
            "interrupted" => Self::Interrupted,
            "cancelled" => Self::Cancelled,
            _ => return None,
        })
    }

    /// Settled: the call has an outcome the model can be told.
    pub fn is_settled(self) -> bool {
        !matches!(self, Self::Pending | Self::Approved | Self::Running)
    }
}

/// A tool call as recorded: what was asked, how it was decided, what came of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallRecord {
    pub id: String,
    pub run_id: String,
    pub thread_id: String,
    /// The assistant message that asked for it.
    pub message_id: String,
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
    pub created_at: String,
    pub finished_at: Option<String>,
}
