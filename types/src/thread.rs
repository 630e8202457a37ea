//! Threads: a conversation's identity, title and archive state, and what a page needs to show one.

use serde::{Deserialize, Serialize};

use crate::approval::{Approval, ThreadRule};
use crate::message::{Block, Role};
use crate::run::{RunSummary, ToolCallRecord};
use crate::status::SandboxInfo;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Thread {
    pub id: String,
    pub title: String,
    pub archived: bool,
    /// RFC 3339 UTC timestamps.
    pub created_at: String,
    pub updated_at: String,
}

/// A change to a thread; absent fields stay as they are.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadPatch {
    pub title: Option<String>,
    pub archived: Option<bool>,
}

/// Which threads to list: one page, newest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadQuery {
    pub archived: bool,
    /// Cursor: only threads last updated before this `(updated_at, id)`.
    pub before: Option<(String, String)>,
    pub limit: u32,
}

impl Default for ThreadQuery {
    fn default() -> Self {
        Self { archived: false, before: None, limit: 50 }
    }
}

/// A message as stored, in thread order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredMessage {
    pub id: String,
    pub run_id: Option<String>,
    pub role: Role,
    /// The text blocks joined: what a reader sees.
    pub content: String,
    pub blocks: Vec<Block>,
    pub created_at: String,
}

/// Everything a chat page shows: the thread, its messages, its tool calls with their approvals,
/// the run in progress (if any) and the thread's standing rules.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadDetail {
    #[serde(flatten)]
    pub thread: Thread,
    pub messages: Vec<StoredMessage>,
    pub tool_calls: Vec<ToolCallRecord>,
    pub approvals: Vec<Approval>,
    pub active_run: Option<RunSummary>,
    /// The last run, if it failed: the page offers Retry.
    pub last_error: Option<String>,
    pub rules: Vec<ThreadRule>,
    /// Whether commands run confined on this machine (the card of a command says so).
    pub sandbox: SandboxInfo,
}
