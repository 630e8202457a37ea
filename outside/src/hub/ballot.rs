//! A person's vote on an outside request, counted against its route and what it shows: what the hub
//! writes (in one compare-and-set on the request's revision) and whether it settles the request.

use warden_policies::Tally;
use warden_types::approval::Verdict as VoteVerdict;
use warden_types::person::ActingPerson;
use warden_types::policy::{who_decided, ApprovalRoute, Vote, VoteVia};

use crate::error::{Error, Result};
use crate::protocol::{ClientFrame, DecidedBy, DeciderKind, Verdict};
use crate::record::{Decision, DecisionInput, OutsideRequest, RequestStatus};
use crate::store;

/// The `decided_by.detail` of a person's decision when no vote names them (never, once counted).
const PERSON_DETAIL: &str = "a person in Warden";

/// The request's votes and shown code after one person's vote, and the decision when it settles it.
#[derive(Debug)]
pub(super) struct Ballot {
    pub votes: Vec<Vote>,
    pub shown_code: Option<String>,
    pub settles: Option<(RequestStatus, Decision)>,
}

impl Ballot {
    /// Counts `by`'s `input` on `request` (whose route is `route`; the caller checked `by` may decide it).
    pub fn cast(
        request: &OutsideRequest,
        route: &ApprovalRoute,
        input: DecisionInput,
        by: &ActingPerson,
        via: Option<VoteVia>,
    ) -> Result<Self> {
        // The code as sent: `checked` drops an edit equal to the client's code, which is an edit back to
        // it when an approver's edit is shown.
        let sent_code = input.edited_code.clone();
        let input = input.checked(&request.request).map_err(Error::Invalid)?;
        let client_code = match &request.request {
            ClientFrame::SecurityEvaluation(evaluation) => Some(evaluation.code.as_str()),
            ClientFrame::CodeResponse(_) => None,
        };
        let shown = request.shown();
        let approves = input.decision == Verdict::Approved;
        // An approval names what it approves once an approver's edit is shown: a person who read the card
        // before the edit sends no code, and their approval must not count for code they never saw.
        if approves && request.shown_code.is_some() && sent_code.is_none() {
            return Err(Error::ShownChanged);
        }
        let quorum = route.quorum.max(1);
        let mut votes = request.votes.clone();
        let mut shown_code = request.shown_code.clone();
        let approved_code = if approves { sent_code.as_deref().or(shown) } else { None };
        if quorum > 1 && approves && approved_code != shown {
            // An edit: it is what the card shows now, and the count starts again on it.
            votes.clear();
            shown_code = approved_code.filter(|code| Some(*code) != client_code).map(str::to_string);
        }
        let verdict = if approves { VoteVerdict::Approve } else { VoteVerdict::Deny };
        if verdict == VoteVerdict::Deny {
            // One deny denies, whatever this person voted before.
            votes.retain(|v| v.person.id != by.id);
        } else if votes.iter().any(|v| v.person.id == by.id) {
            return Err(Error::AlreadyVoted);
        }
        votes.push(Vote { person: by.clone(), verdict, at: store::now(), via });
        if approves && !Tally::of(quorum, &votes).approved() {
            return Ok(Self { votes, shown_code, settles: None });
        }
        let (status, edited_code) = match (approves, quorum > 1) {
            (true, true) => (RequestStatus::Approved, shown_code.clone()),
            (true, false) => (RequestStatus::Approved, input.edited_code),
            (false, _) => (RequestStatus::Rejected, None),
        };
        let detail = who_decided(&votes, Some(route)).unwrap_or_else(|| PERSON_DETAIL.to_string());
        let decision = Decision {
            decision: input.decision,
            reason: input.reason,
            edited_code,
            decided_by: DecidedBy { kind: DeciderKind::Person, detail },
            person: Some(by.id.clone()),
        };
        Ok(Self { votes, shown_code, settles: Some((status, decision)) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{RequestKind, RiskLevel, SecurityEvaluation};
    use warden_types::person::Role;
    use warden_types::policy::Approvers;

    fn person(id: &str) -> ActingPerson {
        ActingPerson { id: id.into(), name: id.to_uppercase(), role: Role::Approver }
    }

    fn route(quorum: u32) -> ApprovalRoute {
        ApprovalRoute {
            policy: None,
            approvers: Approvers { people: vec![], roles: vec![Role::Approver] },
            quorum,
            self_approval: false,
            requester: Some(ActingPerson { id: "mo".into(), name: "Mo".into(), role: Role::Member }),
            timeout_secs: None,
        }
    }

    fn request() -> OutsideRequest {
        let evaluation = SecurityEvaluation {
            id: "r1".into(),
            code: "rm -rf build".into(),
            language: Some("bash".into()),
            explanation: "clean".into(),
            risk_level: RiskLevel::High,
            metadata: None,
            warden_call_id: None,
        };
        OutsideRequest {
            id: "o1".into(),
            client_id: "c1".into(),
            client_name: "runner".into(),
            asked_by: Some("mo".into()),
            client_request_id: "r1".into(),
            kind: RequestKind::SecurityEvaluation,
            request: ClientFrame::SecurityEvaluation(evaluation),
            risk: Some(RiskLevel::High),
            warden_risk: None,
            follows: None,
            status: RequestStatus::Pending,
            decision: None,
            created_at: String::new(),
            expires_at: String::new(),
            decided_at: None,
            delivered_at: None,
            linked_call: None,
            route: Some(route(2)),
            votes: vec![],
            shown_code: None,
            revision: 0,
        }
    }

    fn input(decision: Verdict, code: Option<&str>) -> DecisionInput {
        DecisionInput { decision, reason: None, edited_code: code.map(str::to_string) }
    }

    /// Applies a ballot to the request as the store would.
    fn apply(request: &mut OutsideRequest, ballot: &Ballot) {
        request.votes = ballot.votes.clone();
        request.shown_code = ballot.shown_code.clone();
        request.revision += 1;
    }

    #[test]
    fn two_approvals_settle_a_quorum_of_two_and_the_same_person_cannot_count_twice() {
        let (mut request, route) = (request(), route(2));
        let first = Ballot::cast(&request, &route, input(Verdict::Approved, None), &person("ann"), None).unwrap();
        assert!(first.settles.is_none());
        apply(&mut request, &first);
        let again = Ballot::cast(&request, &route, input(Verdict::Approved, None), &person("ann"), None).unwrap_err();
        assert!(matches!(again, Error::AlreadyVoted));
        let second = Ballot::cast(&request, &route, input(Verdict::Approved, None), &person("bea"), None).unwrap();
        let (status, decision) = second.settles.unwrap();
        assert_eq!((status, decision.edited_code), (RequestStatus::Approved, None));
        assert_eq!(decision.decided_by.detail, "approved by ANN, then BEA");
        assert_eq!(decision.person.as_ref().map(|p| p.as_str()), Some("bea"));
    }

    #[test]
    fn an_edit_restarts_the_count_and_an_approval_that_does_not_name_the_edit_is_refused() {
        let (mut request, route) = (request(), route(2));
        let first = Ballot::cast(&request, &route, input(Verdict::Approved, None), &person("ann"), None).unwrap();
        apply(&mut request, &first);
        let edit =
            Ballot::cast(&request, &route, input(Verdict::Approved, Some("rm -rf build/tmp")), &person("bea"), None)
                .unwrap();
        assert!(edit.settles.is_none(), "Ann's approval was of the other code");
        assert_eq!(edit.votes.iter().map(|v| v.person.id.as_str()).collect::<Vec<_>>(), ["bea"]);
        assert_eq!(edit.shown_code.as_deref(), Some("rm -rf build/tmp"));
        apply(&mut request, &edit);
        let stale = Ballot::cast(&request, &route, input(Verdict::Approved, None), &person("ann"), None).unwrap_err();
        assert!(matches!(stale, Error::ShownChanged));
        let named =
            Ballot::cast(&request, &route, input(Verdict::Approved, Some("rm -rf build/tmp")), &person("ann"), None)
                .unwrap();
        let (status, decision) = named.settles.unwrap();
        assert_eq!(status, RequestStatus::Approved);
        assert_eq!(decision.edited_code.as_deref(), Some("rm -rf build/tmp"), "the client runs what was approved");
    }

    #[test]
    fn one_deny_denies_even_after_the_person_approved() {
        let (mut request, route) = (request(), route(2));
        let first = Ballot::cast(&request, &route, input(Verdict::Approved, None), &person("ann"), None).unwrap();
        apply(&mut request, &first);
        let deny = Ballot::cast(&request, &route, input(Verdict::Rejected, None), &person("ann"), None).unwrap();
        assert_eq!(deny.votes.len(), 1);
        let (status, decision) = deny.settles.unwrap();
        assert_eq!((status, decision.decided_by.detail.as_str()), (RequestStatus::Rejected, "denied by ANN"));
    }

    #[test]
    fn with_one_approval_needed_a_person_decides_alone_with_their_edit() {
        let request = OutsideRequest { route: None, ..request() };
        let ballot =
            Ballot::cast(&request, &request.route(), input(Verdict::Approved, Some("ls")), &person("ann"), None)
                .unwrap();
        let (status, decision) = ballot.settles.unwrap();
        assert_eq!((status, decision.edited_code.as_deref()), (RequestStatus::Approved, Some("ls")));
        assert_eq!(ballot.shown_code, None);
    }
}
