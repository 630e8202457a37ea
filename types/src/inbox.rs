//! The inbox's live feed (`GET /api/inbox/events`, server-sent events): how many approvals and
//! connection checks wait for a person, from Warden's own chats and from outside clients, how many
//! of them each thread has, and each new one as it arrives (for the sidebar's badges, the page
//! title and browser notifications); and each thread the model names (for the sidebar and the open
//! thread's heading).

use std::collections::BTreeMap;

use crate::id::ThreadId;
use serde::{Deserialize, Serialize};

/// How many items are pending: the SSE event `count`, sent first and on every change.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingCount {
    /// Gated tool calls of Warden's own runs.
    pub chat: u32,
    /// Requests of outside executors and agents.
    pub outside: u32,
    /// Connection checks: runs waiting for an MCP server that is offline or disabled.
    #[serde(default)]
    pub checks: u32,
}

impl PendingCount {
    pub fn total(&self) -> u32 {
        self.chat.saturating_add(self.outside).saturating_add(self.checks)
    }
}

/// How many approvals and connection checks wait in each thread that has any: the SSE event
/// `threads`, sent after the first count and whenever it changes (the sidebar rows' badges).
pub type PendingByThread = BTreeMap<ThreadId, u32>;

/// Where an approval comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalSource {
    Chat,
    Outside,
    /// A connection check: a run waits for an MCP server.
    Check,
}

/// A new approval waits: the SSE event `arrived`. `summary` may come from a model or an outside
/// client: show it as text only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Arrived {
    pub source: ApprovalSource,
    /// The approval's id (chat), the outside request's Warden id, or the connection check's id.
    pub id: String,
    pub summary: String,
}

/// The model named a thread: the SSE event `titled`, sent after the run it was named by ended (the
/// run's own stream has ended by then). `title` comes from a model: show it as text only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Titled {
    pub thread_id: ThreadId,
    pub title: String,
}

/// A run started in a thread: the SSE event `run`, so a page open on that thread (another tab, another
/// browser) follows it from its first event, whoever started it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunBegan {
    pub thread_id: ThreadId,
    pub run_id: crate::id::RunId,
}
