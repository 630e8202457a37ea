//! Who may decide a routed approval, and what its votes add up to. Pure: the engine runs these inside the
//! transaction that records a vote, so the count it settles on is the count it wrote.

use warden_types::approval::{Approval, Verdict};
use warden_types::person::{ActingPerson, Role};
use warden_types::policy::{ApprovalRoute, Vote};

/// Why a person may not decide an approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("your role decides nothing")]
    RoleDecidesNothing,
    #[error("this request is not routed to you")]
    NotAnApprover,
    #[error("you asked for this: someone else must decide it")]
    OwnRequest,
}

/// The route an approval is decided by (approvals from before routing: the unrouted default).
pub fn route_of(approval: &Approval) -> ApprovalRoute {
    approval.route.clone().unwrap_or_else(|| ApprovalRoute::unrouted(None))
}

/// Whether `person` may decide an approval on `route`: a role that decides, among its approvers (named, or
/// by role), and not the requester unless the route allows self-approval.
pub fn may_decide(route: &ApprovalRoute, person: &ActingPerson) -> Result<(), Refusal> {
    if !person.role.decides() {
        return Err(Refusal::RoleDecidesNothing);
    }
    let named = route.approvers.people.contains(&person.id) || route.approvers.roles.contains(&person.role);
    if !named {
        return Err(Refusal::NotAnApprover);
    }
    if !route.self_approval && route.requester.as_ref().is_some_and(|r| r.id == person.id) {
        return Err(Refusal::OwnRequest);
    }
    Ok(())
}

/// Whether an approval shows in `person`'s inbox: theirs to decide, or they are an owner (who sees
/// everything, marked when it is not theirs).
pub fn shown_to(route: &ApprovalRoute, person: &ActingPerson) -> bool {
    person.role == Role::Owner || may_decide(route, person).is_ok()
}

/// What the votes on an approval add up to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    /// Distinct people who approved.
    pub approvals: u32,
    pub quorum: u32,
    pub denied: bool,
}

impl Tally {
    pub fn of(quorum: u32, votes: &[Vote]) -> Self {
        let mut approvers: Vec<&str> =
            votes.iter().filter(|v| v.verdict == Verdict::Approve).map(|v| v.person.id.as_str()).collect();
        approvers.sort_unstable();
        approvers.dedup();
        let approvals = u32::try_from(approvers.len()).unwrap_or(u32::MAX);
        Self { approvals, quorum: quorum.max(1), denied: votes.iter().any(|v| v.verdict == Verdict::Deny) }
    }

    /// Enough distinct approvals, and nobody denied.
    pub fn approved(&self) -> bool {
        !self.denied && self.approvals >= self.quorum
    }

    /// "1 of 2 approvals".
    pub fn describe(&self) -> String {
        let noun = if self.quorum == 1 { "approval" } else { "approvals" };
        format!("{} of {} {noun}", self.approvals.min(self.quorum), self.quorum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warden_types::policy::Approvers;

    fn person(id: &str, role: Role) -> ActingPerson {
        ActingPerson { id: id.into(), name: id.into(), role }
    }

    fn vote(id: &str, verdict: Verdict) -> Vote {
        Vote { person: person(id, Role::Approver), verdict, at: String::new(), via: None }
    }

    fn route(self_approval: bool) -> ApprovalRoute {
        ApprovalRoute {
            policy: None,
            approvers: Approvers { people: vec!["ann".into(), "mo".into()], roles: vec![Role::Owner] },
            quorum: 2,
            self_approval,
            requester: Some(person("mo", Role::Member)),
            timeout_secs: None,
        }
    }

    #[test]
    fn only_named_approvers_of_a_deciding_role_may_decide_and_the_requester_only_when_allowed() {
        let strict = route(false);
        assert_eq!(may_decide(&strict, &person("ann", Role::Approver)), Ok(()));
        assert_eq!(may_decide(&strict, &person("ola", Role::Owner)), Ok(()), "named by role");
        assert_eq!(may_decide(&strict, &person("bea", Role::Approver)), Err(Refusal::NotAnApprover));
        assert_eq!(may_decide(&strict, &person("mo", Role::Member)), Err(Refusal::RoleDecidesNothing));
        assert_eq!(may_decide(&strict, &person("mo", Role::Approver)), Err(Refusal::OwnRequest));
        assert_eq!(may_decide(&route(true), &person("mo", Role::Approver)), Ok(()));
        assert_eq!(may_decide(&strict, &person("vi", Role::Viewer)), Err(Refusal::RoleDecidesNothing));
    }

    #[test]
    fn owners_see_every_card_and_others_only_theirs() {
        let mut r = route(false);
        r.approvers.roles.clear();
        assert!(shown_to(&r, &person("ola", Role::Owner)), "not theirs, but an owner sees it");
        assert!(shown_to(&r, &person("ann", Role::Approver)));
        assert!(!shown_to(&r, &person("bea", Role::Approver)));
        assert!(!shown_to(&r, &person("mo", Role::Member)));
    }

    #[test]
    fn the_same_person_counts_once_and_one_deny_denies() {
        let two = Tally::of(2, &[vote("ann", Verdict::Approve), vote("ann", Verdict::Approve)]);
        assert_eq!((two.approvals, two.approved()), (1, false));
        assert_eq!(two.describe(), "1 of 2 approvals");
        let done = Tally::of(2, &[vote("ann", Verdict::Approve), vote("bea", Verdict::Approve)]);
        assert!(done.approved());
        let denied = Tally::of(1, &[vote("ann", Verdict::Approve), vote("bea", Verdict::Deny)]);
        assert!(denied.denied && !denied.approved());
        assert_eq!(Tally::of(1, &[]).describe(), "0 of 1 approval");
    }
}
