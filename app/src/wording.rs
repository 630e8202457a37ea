//! Every label and decision text the pages show and the REST API sends: how an approval, a
//! connection check or an outside request was decided, the kinds and risks of outside requests, and
//! the audit log's sources, outcomes and deciders. Plain functions over the shared records, so the
//! page and the API (`server/`) say the same thing.

use warden_outside::protocol::{DeciderKind, RequestKind, RiskLevel, Verdict as OutsideVerdict};
use warden_outside::OutsideRequest;
use warden_types::audit::{AuditDecider, AuditOutcome, AuditSource};

use crate::model::{Approval, ApprovalStatus, CheckReason, CheckStatus, DecidedBy, Scope, ThreadCheck};
use warden_types::approval::Verdict;

/// How a settled approval was decided, in words.
pub fn decision_text(approval: &Approval) -> String {
    let verdict = match approval.status {
        ApprovalStatus::Pending => return "Waiting for approval".into(),
        ApprovalStatus::Approved => "Approved",
        ApprovalStatus::Denied => "Denied",
        ApprovalStatus::TimedOut => return "Timed out: nobody decided in time".into(),
        ApprovalStatus::Cancelled => return "Cancelled: the run stopped before a decision".into(),
        ApprovalStatus::Superseded => {
            return "Replaced: the file changed after this card was shown, so it asks again with the new diff".into()
        }
    };
    match approval.decision.as_ref().map(|d| &d.by) {
        Some(DecidedBy::User { edited_arguments, reason, scope, network, votes }) => {
            // Named when a policy routed it (several people may decide); "you" as before otherwise.
            let routed = approval.route.as_ref().is_some_and(|r| r.policy.is_some());
            let mut text = match votes.as_slice() {
                [] => format!("{verdict} by you"),
                _ if !routed => format!("{verdict} by you"),
                votes => {
                    // Those whose votes made this outcome: the approvers of an approval, the denier of a denial.
                    let verdict_of =
                        if approval.status == ApprovalStatus::Denied { Verdict::Deny } else { Verdict::Approve };
                    let names: Vec<&str> =
                        votes.iter().filter(|v| v.verdict == verdict_of).map(|v| v.person.name.as_str()).collect();
                    format!("{verdict} by {}", names.join(", then "))
                }
            };
            if *scope == Scope::Thread {
                text.push_str(" for this thread");
            }
            if *network {
                text.push_str(" with network access");
            }
            if edited_arguments.is_some() {
                text.push_str(" with edited arguments");
            }
            if let Some(reason) = reason.as_deref().filter(|r| !r.is_empty()) {
                text.push_str(&format!(": {reason}"));
            }
            text
        }
        Some(DecidedBy::Rule { .. }) => format!("{verdict} by thread rule"),
        Some(DecidedBy::Timeout) => "Timed out: nobody decided in time".into(),
        Some(DecidedBy::RunStopped) => "Cancelled: the run stopped before a decision".into(),
        Some(DecidedBy::TargetChanged { .. }) => "Replaced: the file changed after this card was shown".into(),
        Some(DecidedBy::RuleRevoked { .. }) => "Replaced: the thread rule that allowed it was revoked".into(),
        None => verdict.to_string(),
    }
}

/// `low`, `medium` or `high`.
pub fn risk_label(risk: RiskLevel) -> &'static str {
    match risk {
        RiskLevel::Low => "low",
        RiskLevel::Medium => "medium",
        RiskLevel::High => "high",
    }
}

/// How a connection check was decided, in words.
pub fn check_decision_text(item: &ThreadCheck) -> String {
    match item.check.status {
        CheckStatus::Pending => "Waiting: Connect or Continue anyway".into(),
        CheckStatus::Connected => "Connected: the run went on with it".into(),
        CheckStatus::ContinuedWithout => "Continued without it".into(),
        CheckStatus::Cancelled => "Cancelled: the run was stopped".into(),
    }
}

/// What the run wanted of the server, in words.
pub fn check_reason_text(reason: &CheckReason, server: &str) -> String {
    match reason {
        CheckReason::CalledTool { tool } => format!("The model called {tool}, a tool of this server."),
        CheckReason::Mentioned => format!("Your message names @{server}."),
    }
}

/// "Security evaluation" or "Code response".
pub fn kind_label(kind: RequestKind) -> &'static str {
    match kind {
        RequestKind::SecurityEvaluation => "Security evaluation",
        RequestKind::CodeResponse => "Code response",
    }
}

/// How an outside request was decided, in words.
pub fn outside_decision_text(request: &OutsideRequest) -> String {
    let Some(decision) = &request.decision else { return "Waiting for a decision".into() };
    let verdict = match decision.decision {
        OutsideVerdict::Approved => "Approved",
        OutsideVerdict::Rejected => "Rejected",
    };
    let mut text = match decision.decided_by.kind {
        DeciderKind::Person => format!("{verdict} by you"),
        DeciderKind::Policy => format!("{verdict} automatically by policy ({})", decision.decided_by.detail),
        DeciderKind::Timeout => return format!("Expired: {}", decision.decided_by.detail),
        DeciderKind::CallEnded => return format!("Rejected: {}", decision.decided_by.detail),
    };
    if decision.edited_code.is_some() {
        text.push_str(" with edited code");
    }
    if let Some(reason) = decision.reason.as_deref().filter(|r| !r.is_empty()) {
        text.push_str(&format!(": {reason}"));
    }
    text
}

/// Where an audit entry came from, as the log's filter and rows name it.
pub fn source_label(source: AuditSource) -> &'static str {
    match source {
        AuditSource::Chat => "Chat",
        AuditSource::Outside => "Outside client",
    }
}

/// How an audit entry ended, as the log's filter and rows name it.
pub fn outcome_label(outcome: AuditOutcome) -> &'static str {
    match outcome {
        AuditOutcome::Approved => "Approved",
        AuditOutcome::Denied => "Denied",
        AuditOutcome::TimedOut => "Timed out",
        AuditOutcome::Cancelled => "Cancelled (run stopped)",
        AuditOutcome::Superseded => "Superseded (target changed)",
    }
}

/// Who decided an audit entry, as the log's filter and rows name it.
pub fn decider_label(decider: AuditDecider) -> &'static str {
    match decider {
        AuditDecider::Person => "A person",
        AuditDecider::Rule => "Thread rule",
        AuditDecider::Policy => "Policy",
        AuditDecider::Timeout => "Timeout",
        AuditDecider::RunStopped => "Run stopped",
        AuditDecider::TargetChanged => "Target changed",
        AuditDecider::RuleRevoked => "Rule revoked",
        AuditDecider::CallEnded => "Warden's call ended",
    }
}
