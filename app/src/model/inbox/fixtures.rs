//! Inbox items for the tests of this folder: chat approvals, outside requests and connection checks.

use serde_json::json;
use warden_outside::protocol::{ClientFrame, CodeResponse, RiskLevel, SecurityEvaluation};
use warden_outside::{OutsideRequest, RequestStatus};
use warden_types::tool::{Risk, ToolOrigin};

use super::item::InboxItem;
use crate::model::{Approval, ApprovalStatus, CheckReason, CheckStatus, ConnectionCheck, ServerDown, ThreadCheck};

pub fn chat(id: &str, run: &str, status: ApprovalStatus, created: &str) -> InboxItem {
    InboxItem::Chat(Box::new(Approval {
        id: id.into(),
        run_id: run.into(),
        thread_id: "t1".into(),
        tool_call_id: format!("call-{id}").into(),
        tool: "write_file".into(),
        origin: ToolOrigin::BuiltIn,
        arguments: json!({}),
        summary: format!("Write {id}"),
        risk: Risk::Medium,
        preview: None,
        status,
        created_at: created.into(),
        decided_at: None,
        expires_at: None,
        decision: None,
        route: None,
        votes: Vec::new(),
    }))
}

pub fn outside(id: &str, client: &str, frame: ClientFrame, status: RequestStatus, created: &str) -> InboxItem {
    InboxItem::Outside(Box::new(OutsideRequest {
        id: id.into(),
        client_id: client.into(),
        client_name: format!("{client} name"),
        asked_by: None,
        client_request_id: format!("c-{id}"),
        kind: frame.kind(),
        risk: frame.risk(),
        warden_risk: None,
        request: frame,
        follows: None,
        status,
        decision: None,
        created_at: created.into(),
        expires_at: "2030-01-01T00:00:00.000Z".into(),
        decided_at: None,
        delivered_at: None,
        linked_call: None,
        route: None,
        votes: Vec::new(),
        shown_code: None,
        revision: 0,
    }))
}

pub fn check(id: &str, status: CheckStatus, created: &str) -> InboxItem {
    InboxItem::Check(Box::new(ThreadCheck {
        check: ConnectionCheck {
            id: id.into(),
            run_id: "run1".into(),
            thread_id: "t1".into(),
            server: "fx".into(),
            reason: CheckReason::CalledTool { tool: "fx__echo".into() },
            down: ServerDown::Offline,
            status,
            error: None,
            created_at: created.into(),
            decided_at: None,
        },
        thread_title: "A thread".into(),
    }))
}

pub fn evaluation(risk: RiskLevel) -> ClientFrame {
    ClientFrame::SecurityEvaluation(SecurityEvaluation {
        id: "e".into(),
        code: "ls".into(),
        language: None,
        explanation: "lists".into(),
        risk_level: risk,
        metadata: None,
        warden_call_id: None,
    })
}

pub fn response() -> ClientFrame {
    ClientFrame::CodeResponse(CodeResponse {
        id: "r".into(),
        follows: None,
        stdout: "out".into(),
        stderr: String::new(),
        exit_code: Some(0),
        metadata: None,
    })
}
