//! Connection checks: a run that needs an MCP server that is offline or disabled (the model called
//! one of its tools, or the person's message named it with `@name`) pauses and asks the person to
//! Connect it or Continue anyway. "Continue anyway" is remembered for the thread for an hour.

use crate::id::{ConnectionCheckId, RunId, ThreadId};
use serde::{Deserialize, Serialize};

/// How long a thread goes on without a server after "Continue anyway" before it asks again.
pub const CONTINUE_WITHOUT_SECS: u64 = 3600;

/// Why the run needs the server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CheckReason {
    /// The model called one of the server's tools (the first one, if it called several).
    CalledTool { tool: String },
    /// The person's message named the server with `@name`.
    Mentioned,
}

/// What is wrong with the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, strum::IntoStaticStr, strum::EnumString)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
#[cfg_attr(feature = "sqlx", derive(sqlx::Type), sqlx(rename_all = "snake_case"))]
pub enum ServerDown {
    /// Enabled, but not connected (it failed to start, or the connection was lost).
    Offline,
    /// Switched off in Settings.
    Disabled,
}

impl ServerDown {
    /// "offline" or "disabled".
    pub fn label(self) -> &'static str {
        self.into()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, strum::IntoStaticStr, strum::EnumString)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
#[cfg_attr(feature = "sqlx", derive(sqlx::Type), sqlx(rename_all = "snake_case"))]
pub enum CheckStatus {
    /// Waiting for the person.
    Pending,
    /// The person connected the server; the run carried on with it.
    Connected,
    /// The person chose to continue without the server.
    ContinuedWithout,
    /// The run was stopped (or failed) before anyone decided.
    Cancelled,
}

/// One check, as stored and as the chat shows it (read straight from its row).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct ConnectionCheck {
    pub id: ConnectionCheckId,
    pub run_id: RunId,
    pub thread_id: ThreadId,
    /// The MCP server's configured name.
    pub server: String,
    #[cfg_attr(feature = "sqlx", sqlx(json))]
    pub reason: CheckReason,
    pub down: ServerDown,
    pub status: CheckStatus,
    /// Why the last Connect did not connect (it stays pending); `None` before any attempt.
    pub error: Option<String>,
    pub created_at: String,
    pub decided_at: Option<String>,
}

/// A check with the title of its thread, as the inbox lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadCheck {
    pub check: ConnectionCheck,
    pub thread_title: String,
}

/// A person's answer to a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckDecision {
    /// Enable the server if it is disabled, connect it, and carry on with it once connected.
    Connect,
    /// Carry on without the server (remembered for the thread for an hour).
    ContinueWithout,
}

/// The body of `POST /api/connection_checks/{id}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckDecisionInput {
    pub decision: CheckDecision,
}
