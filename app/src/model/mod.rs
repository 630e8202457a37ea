//! What the UI shows. The records come from warden-types, the same definitions the engine stores and
//! streams (so a change to a record fails to compile here, not to parse at run time); what is left in
//! this file are the UI's own view types, and in `inbox` the inbox's list, its filters and its rules.

pub mod inbox;

use serde::{Deserialize, Serialize};

pub use warden_types::approval::{
    Approval, ApprovalStatus, DecidedBy, Decision, DecisionInput, RuleMatcher, Scope, ThreadRule, Verdict,
};
pub use warden_types::connection::{CheckDecision, CheckReason, CheckStatus, ConnectionCheck, ServerDown, ThreadCheck};
pub use warden_types::cursor::ThreadCursor;
pub use warden_types::event::{EventKind, RunEvent};
pub use warden_types::message::Role;
pub use warden_types::provider::{
    ModelChoice, ProviderEntry, ProviderInput, ProviderKind, ProviderList, ProviderProbe,
};
pub use warden_types::run::{RunStatus, RunSummary, ToolCallRecord, ToolCallStatus};
pub use warden_types::status::{ModelStatus, NewChat, RunStarted, SandboxInfo};
pub use warden_types::thread::{
    BranchPoint, SearchHit, SnippetPiece, StoredMessage, Thread, ThreadDetail, ThreadOptions, ThreadSlice,
};
pub use warden_types::tool::{Preview, Risk, ToolContent, ToolFailure, ToolOrigin};

/// One page of the sidebar; `next` is the cursor for "Load more": the last thread shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadPage {
    pub threads: Vec<Thread>,
    pub next: Option<ThreadCursor>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call_with(origin: ToolOrigin, output: &str, failure: Option<ToolFailure>) -> ToolCallRecord {
        ToolCallRecord {
            id: "c1".into(),
            run_id: "r1".into(),
            thread_id: "t1".into(),
            message_id: "m1".into(),
            call_id: "call_1".into(),
            name: "fx__echo".into(),
            origin,
            arguments: serde_json::json!({}),
            summary: "Call `echo`".into(),
            risk: Risk::Medium,
            needs_approval: true,
            preview: None,
            status: ToolCallStatus::Done,
            output: Some(vec![ToolContent::Text { text: output.into() }]),
            is_error: true,
            truncated: false,
            failure,
            created_at: "2026-01-01T00:00:00Z".into(),
            finished_at: None,
        }
    }

    #[test]
    fn only_a_call_marked_server_offline_names_its_server_to_reconnect() {
        let mcp = || ToolOrigin::Mcp { server: "fx".into() };
        let offline = Some(ToolFailure::ServerOffline);
        assert_eq!(call_with(mcp(), "anything", offline).offline_server(), Some("fx"));
        // The words alone (a tool's own output saying so, a record without the marker): no offer.
        assert_eq!(call_with(mcp(), "Error: server `fx` is offline", None).offline_server(), None);
        assert_eq!(call_with(ToolOrigin::BuiltIn, "Error: server `fx` is offline", offline).offline_server(), None);
    }

    #[test]
    fn an_offline_mcp_failure_carries_the_marker_the_chat_reads() {
        assert_eq!(Some(ToolFailure::ServerOffline), warden_tools::ToolError::Offline("fx".into()).failure());
    }
}
