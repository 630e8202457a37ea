//! The inbox's live feed (`GET /api/inbox/events`, server-sent events): how many approvals wait for
//! a person, from Warden's own chats and from outside clients, and each new one as it arrives (for
//! the sidebar badge, the page title and browser notifications).

use serde::{Deserialize, Serialize};

/// How many approvals are pending: the SSE event `count`, sent first and on every change.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingCount {
    /// Gated tool calls of Warden's own runs.
    pub chat: u32,
    /// Requests of outside executors and agents.
    pub outside: u32,
}

impl PendingCount {
    pub fn total(&self) -> u32 {
        self.chat.saturating_add(self.outside)
    }
}

/// Where an approval comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalSource {
    Chat,
    Outside,
}

/// A new approval waits: the SSE event `arrived`. `summary` may come from a model or an outside
/// client: show it as text only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Arrived {
    pub source: ApprovalSource,
    /// The approval's id (chat) or the outside request's Warden id.
    pub id: String,
    pub summary: String,
}
