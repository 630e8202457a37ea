//! One shape from database to browser: the records Warden stores (threads, messages, tool calls,
//! approvals, rules, runs), the events a run streams, and the MCP settings and status the settings
//! page shows. The engine, warden-mcp, the server and the browser UI all use these types, so a change
//! to a record is a compile error wherever it is read, not a JSON mismatch at run time.
//!
//! No logic lives here beyond what a reader of a record needs (labels, small predicates). Enums that
//! are stored as text derive `sqlx::Type` under the `sqlx` feature (native only).

pub mod approval;
pub mod audit;
pub mod channel;
pub mod connection;
pub mod cursor;
pub mod error_kind;
pub mod event;
pub mod hidden_chars;
pub mod id;
pub mod inbox;
pub mod mcp;
pub mod message;
pub mod notification;
pub mod person;
pub mod policy;
pub mod provider;
pub mod run;
pub mod secret;
pub mod session;
pub mod status;
pub mod thread;
pub mod tool;

pub use approval::{
    Approval, ApprovalStatus, DecidedBy, Decision, DecisionInput, RuleMatcher, Scope, ThreadRule, Verdict,
};
pub use connection::{CheckDecision, CheckReason, CheckStatus, ConnectionCheck, ServerDown};
pub use error_kind::ErrorKind;
pub use event::{EventKind, RunEvent};
pub use id::{
    ApprovalId, ClientId, ConnectionCheckId, ExecutorId, MessageId, OutsideRequestId, ProviderId, RuleId, RunId,
    ThreadId, ToolCallId,
};
pub use message::{Block, Message, Role};
pub use provider::{ModelChoice, ProviderEntry, ProviderInput, ProviderKind, ProviderList, ProviderProbe};
pub use run::{RunStatus, RunSummary, ToolCallRecord, ToolCallStatus};
pub use status::{ModelStatus, NewChat, RunStarted, SandboxInfo};
pub use thread::{StoredMessage, Thread, ThreadDetail, ThreadOptions, ThreadPatch, ThreadQuery};
pub use tool::{Preview, Risk, ToolContent, ToolFailure, ToolOrigin};
