//! Tools the agent can call: the `Tool` trait every tool implements (the built-in ones here, MCP ones in
//! the `warden-mcp` crate), what a call returns, and the shell parser that reads a command's risk and
//! matches it against approval rules. The engine gates and runs the calls.

mod args;
pub mod list_dir;
pub mod read_file;
pub mod read_result;
pub mod registry;
pub mod regular_file;
pub mod search_tools;
pub mod shell;
#[cfg(test)]
mod test_support;
pub mod workspace;
pub mod write_file;

pub use list_dir::ListDir;
pub use read_file::ReadFile;
pub use registry::{builtin_tools, ArgumentError, ToolRegistry, Violation};
pub use shell::{matches_prefix_rule, shell_risk, split_command, Segment, Shell, ShellConfig};
pub use warden_types::tool::{Preview, Risk, ToolContent, ToolFailure, ToolOrigin, ToolSpec};
pub use workspace::Workspace;
pub use write_file::WriteFile;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// The result of a call: content for the model and the UI, and whether the tool reported an error.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ToolOutput {
    pub content: Vec<ToolContent>,
    #[serde(default)]
    pub is_error: bool,
    /// Structured content, if the tool gave any (MCP `structuredContent`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured: Option<Value>,
}

impl ToolOutput {
    pub fn text(text: impl Into<String>) -> Self {
        Self { content: vec![ToolContent::Text { text: text.into() }], is_error: false, structured: None }
    }
    pub fn error(text: impl Into<String>) -> Self {
        Self { content: vec![ToolContent::Text { text: text.into() }], is_error: true, structured: None }
    }
}

/// Progress reported by a running call (MCP progress notifications).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub progress: f64,
    pub total: Option<f64>,
    pub message: Option<String>,
}

/// What a call gets besides its arguments.
#[derive(Clone)]
pub struct ToolContext {
    /// Cancelled when the run is stopped; a tool should give up promptly.
    pub cancel: CancellationToken,
    /// Where to report progress, if anyone listens.
    pub progress: Option<tokio::sync::mpsc::UnboundedSender<Progress>>,
    /// The person granted this call network access (the approval's "with network" choice); the shell
    /// runs without network otherwise.
    pub network: bool,
    /// Warden's id of the tool call being run (`None` outside a run, e.g. a test calling a tool
    /// directly). An MCP call passes it on in `_meta["warden/call_id"]`, so an executor the tool
    /// asks for approval over the outside channel can name the call (docs/OUTSIDE_PROTOCOL.md).
    pub call_id: Option<String>,
}

/// Failures of a tool call that are not the tool's own error result.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error("invalid arguments: {0}")]
    InvalidArguments(String),
    #[error("path escapes the workspace: {0}")]
    PathEscapesWorkspace(String),
    /// The path is, or lies in, one of Warden's own private files (see `Workspace::hiding`).
    #[error(
        "`{0}` is one of Warden's own private files (its data folder, database or MCP config); the built-in \
         tools do not read, list or write them"
    )]
    PrivatePath(String),
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("timed out after {0} s")]
    Timeout(u64),
    #[error("cancelled")]
    Cancelled,
    #[error("server `{0}` is offline")]
    Offline(String),
    /// What the call would change is no longer as the approval card showed it; nothing was done.
    /// `now` is the target's current state (see `Tool::preview_with_state`).
    #[error("the target changed after the approval card was shown; nothing was done")]
    TargetChanged { now: String },
    #[error("{0}")]
    Failed(String),
}

impl ToolError {
    /// The typed marker this failure leaves on the stored call, if any.
    pub fn failure(&self) -> Option<ToolFailure> {
        match self {
            ToolError::Offline(_) => Some(ToolFailure::ServerOffline),
            _ => None,
        }
    }
}

#[async_trait]
pub trait Tool: Send + Sync {
    fn spec(&self) -> ToolSpec;
    fn origin(&self) -> ToolOrigin {
        ToolOrigin::BuiltIn
    }
    /// Whether this call must wait for a person. Arguments are already schema-valid.
    fn needs_approval(&self, args: &Value) -> bool;
    /// Whether the tool runs commands in Warden's sandbox: such a call can be granted network for
    /// itself, and where no sandbox is available no thread rule may run it without a person.
    fn runs_sandboxed_commands(&self) -> bool {
        false
    }
    fn risk(&self, args: &Value) -> Risk;
    /// Plain words for what this call will do, e.g. "Run `rm -rf build/` in the workspace".
    fn summary(&self, args: &Value) -> String;
    /// Extra material for the approval card (a diff, a command).
    async fn preview(&self, _args: &Value) -> Option<Preview> {
        None
    }
    /// The card's preview together with the state of what the call would change, read in one go
    /// so the two belong together (for a file write: `sha256:<hex>` of the current content, or
    /// `absent`). The approval keeps the state and the call runs only while it still holds; see
    /// `approval::decide` ("What was approved is what runs"). `None`: nothing to bind to.
    async fn preview_with_state(&self, args: &Value) -> (Option<Preview>, Option<String>) {
        (self.preview(args).await, None)
    }
    /// The state the call leaves its target in (for a file write, `sha256:<hex>` of the content),
    /// for a tool that reports states. A thread rule runs such a call only while the target is
    /// already in it: the rule's own write, repeated. Anything else (someone edited the file since)
    /// is asked again with a card. `None`: the call has no such state.
    fn state_after(&self, _args: &Value) -> Option<String> {
        None
    }
    async fn call(&self, args: Value, ctx: ToolContext) -> Result<ToolOutput, ToolError>;
    /// Runs the call only if its target is still in the `expected` state that
    /// `preview_with_state` reported; otherwise `ToolError::TargetChanged` and nothing happens.
    /// Tools that report no state ignore `expected`.
    async fn call_if_unchanged(&self, args: Value, ctx: ToolContext, expected: &str) -> Result<ToolOutput, ToolError> {
        let _ = expected;
        self.call(args, ctx).await
    }
}
