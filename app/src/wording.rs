//! Every label and decision text the pages show and the REST API sends: how an approval, a
//! connection check or an outside request was decided, the kinds and risks of outside requests, and
//! the audit log's sources, outcomes and deciders. Plain functions over the shared records, so the
//! page and the API (`server/`) say the same thing.

use warden_outside::protocol::{DeciderKind, RequestKind, RiskLevel, Verdict as OutsideVerdict};
use warden_outside::OutsideRequest;
use warden_types::audit::{AuditDecider, AuditOutcome, AuditSource};

use crate::model::{Approval, ApprovalStatus, CheckReason, CheckStatus, DecidedBy, Scope, ThreadCheck};
use warden_types::approval::Verdict;
use warden_types::id::PersonId;

/// How a settled approval was decided, in words, for the person `me` (the signed-in person, once the page
/// knows who that is): "you" only where they decided, everyone else by name.
pub fn decision_text(approval: &Approval, me: Option<&PersonId>) -> String {
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
            // Those whose votes made this outcome: the approvers of an approval, the denier of a denial.
            let verdict_of = if approval.status == ApprovalStatus::Denied { Verdict::Deny } else { Verdict::Approve };
            let names: Vec<&str> = votes
                .iter()
                .filter(|v| v.verdict == verdict_of)
                .map(|v| if Some(&v.person.id) == me { "you" } else { v.person.name.as_str() })
                .collect();
            // A decision from before people were recorded names nobody.
            let mut text = match names.as_slice() {
                [] => format!("{verdict} by a person"),
                names => format!("{verdict} by {}", names.join(", then ")),
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

/// How an outside request was decided, in words, for the person `me`: "you" only where they decided, else
/// the decider's name where the caller knows it (the request names them by id alone), else "a person".
pub fn outside_decision_text(request: &OutsideRequest, me: Option<&PersonId>, decider: Option<&str>) -> String {
    let Some(decision) = &request.decision else { return "Waiting for a decision".into() };
    let verdict = match decision.decision {
        OutsideVerdict::Approved => "Approved",
        OutsideVerdict::Rejected => "Rejected",
    };
    let mut text = match decision.decided_by.kind {
        DeciderKind::Person if me.is_some() && decision.person.as_ref() == me => format!("{verdict} by you"),
        DeciderKind::Person => format!("{verdict} by {}", decider.unwrap_or("a person")),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Decision;
    use warden_outside::protocol::{ClientFrame, DecidedBy as OutsideDecidedBy, SecurityEvaluation};
    use warden_outside::{Decision as OutsideDecision, RequestStatus};
    use warden_types::person::{ActingPerson, Role};
    use warden_types::policy::Vote;
    use warden_types::tool::{Risk, ToolOrigin};

    fn vote(id: &str, name: &str, verdict: Verdict) -> Vote {
        let person = ActingPerson { id: id.into(), name: name.into(), role: Role::Approver };
        Vote { person, verdict, at: "2026-01-01T00:00:00Z".into(), via: None }
    }

    /// A chat approval decided `status` by these votes.
    fn decided(status: ApprovalStatus, votes: Vec<Vote>) -> Approval {
        let by = DecidedBy::User { edited_arguments: None, reason: None, scope: Scope::Once, network: false, votes };
        Approval {
            id: "a".into(),
            run_id: "r".into(),
            thread_id: "t".into(),
            tool_call_id: "c".into(),
            tool: "write_file".into(),
            origin: ToolOrigin::BuiltIn,
            arguments: serde_json::json!({}),
            summary: "Write a".into(),
            risk: Risk::Medium,
            preview: None,
            status,
            created_at: "2026-01-01T00:00:00Z".into(),
            decided_at: Some("2026-01-01T00:00:01Z".into()),
            expires_at: None,
            decision: Some(Decision { status, by }),
            route: None,
            votes: Vec::new(),
        }
    }

    /// An outside request a person (`person`, by id) approved.
    fn approved_by(person: Option<&str>) -> OutsideRequest {
        let frame = ClientFrame::SecurityEvaluation(SecurityEvaluation {
            id: "e".into(),
            code: "ls".into(),
            language: None,
            explanation: "lists".into(),
            risk_level: RiskLevel::Low,
            metadata: None,
            warden_call_id: None,
        });
        OutsideRequest {
            id: "x".into(),
            client_id: "cl1".into(),
            client_name: "A client".into(),
            asked_by: None,
            client_request_id: "c-x".into(),
            kind: frame.kind(),
            risk: frame.risk(),
            warden_risk: None,
            request: frame,
            follows: None,
            status: RequestStatus::Approved,
            decision: Some(OutsideDecision {
                decision: OutsideVerdict::Approved,
                reason: None,
                edited_code: None,
                decided_by: OutsideDecidedBy { kind: DeciderKind::Person, detail: String::new() },
                person: person.map(PersonId::from),
            }),
            created_at: "2026-01-01T00:00:00Z".into(),
            expires_at: "2030-01-01T00:00:00Z".into(),
            decided_at: Some("2026-01-01T00:00:01Z".into()),
            delivered_at: None,
            linked_call: None,
            route: None,
            votes: Vec::new(),
            shown_code: None,
            revision: 0,
        }
    }

    #[test]
    fn a_decision_says_you_only_to_the_person_who_made_it_and_names_everyone_else() {
        let ann = PersonId::from("ann");
        let alone = decided(ApprovalStatus::Approved, vec![vote("ann", "Ann", Verdict::Approve)]);
        assert_eq!(decision_text(&alone, Some(&ann)), "Approved by you");
        assert_eq!(decision_text(&alone, Some(&PersonId::from("bea"))), "Approved by Ann");
        assert_eq!(decision_text(&alone, None), "Approved by Ann", "before the page knows who reads");

        let quorum = decided(
            ApprovalStatus::Approved,
            vec![vote("bea", "Bea", Verdict::Approve), vote("ann", "Ann", Verdict::Approve)],
        );
        assert_eq!(decision_text(&quorum, Some(&ann)), "Approved by Bea, then you");
        assert_eq!(decision_text(&quorum, Some(&PersonId::from("cy"))), "Approved by Bea, then Ann");

        let denied = decided(
            ApprovalStatus::Denied,
            vec![vote("bea", "Bea", Verdict::Approve), vote("ann", "Ann", Verdict::Deny)],
        );
        assert_eq!(decision_text(&denied, Some(&PersonId::from("bea"))), "Denied by Ann", "the denier alone");
        assert_eq!(decision_text(&denied, Some(&ann)), "Denied by you");

        let unnamed = decided(ApprovalStatus::Approved, Vec::new());
        assert_eq!(decision_text(&unnamed, Some(&ann)), "Approved by a person", "a decision from before people");
    }

    #[test]
    fn an_outside_decision_says_you_only_to_the_person_who_made_it() {
        let by = approved_by;
        let ann = PersonId::from("ann");
        assert_eq!(outside_decision_text(&by(Some("ann")), Some(&ann), Some("Ann")), "Approved by you");
        assert_eq!(outside_decision_text(&by(Some("bea")), Some(&ann), Some("Bea")), "Approved by Bea");
        assert_eq!(
            outside_decision_text(&by(Some("bea")), Some(&ann), None),
            "Approved by a person",
            "no name at hand"
        );
        assert_eq!(outside_decision_text(&by(Some("ann")), None, Some("Ann")), "Approved by Ann");
        assert_eq!(outside_decision_text(&by(None), Some(&ann), None), "Approved by a person");
    }
}
