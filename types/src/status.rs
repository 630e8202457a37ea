//! Small answers about the installation and about a run just started.

use crate::id::{MessageId, RunId, ThreadId};
use serde::{Deserialize, Serialize};

/// Whether a model is configured, and if not, what to set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelStatus {
    pub configured: bool,
    pub provider: String,
    pub model: String,
    /// What to set when no model is configured, or what the configured model cannot do.
    pub hint: Option<String>,
}

/// A run started by a message; `message_id` is the user message that started it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunStarted {
    pub run_id: RunId,
    pub message_id: Option<MessageId>,
}

/// A thread just made from the welcome page, with its first run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewChat {
    pub thread_id: ThreadId,
    pub run_id: RunId,
}

/// Whether commands Warden runs are confined on this machine, and if not, why.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SandboxInfo {
    pub available: bool,
    /// A sentence for the UI: what is enforced, or plainly what is missing.
    pub detail: String,
}
