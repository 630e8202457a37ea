//! Which policy routes a request: the first, in order, whose every condition holds. No policy matching
//! means the request is routed as before policies existed (any owner or approver, one approval).

use warden_types::person::ActingPerson;
use warden_types::policy::{ApprovalRoute, Policy, PolicyMatch, RequesterMatch, RoutedBy, Source};
use warden_types::tool::Risk;

use crate::glob;

/// What a policy's conditions look at in a request.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    pub source: Source,
    pub tool: &'a str,
    /// The MCP server whose tool is called (`None` for a built-in tool or an outside request).
    pub mcp_server: Option<&'a str>,
    pub risk: Risk,
    /// Who asked (`None`: not known, the founding owner's run from before requesters were recorded).
    pub requester: Option<&'a ActingPerson>,
}

/// Whether every condition `m` gives holds for `request`.
pub fn holds(m: &PolicyMatch, request: &Request<'_>) -> bool {
    m.source.is_none_or(|s| s == request.source)
        && m.tool.as_deref().is_none_or(|t| glob::matches(t, request.tool))
        && m.mcp_server.as_deref().is_none_or(|s| request.mcp_server == Some(s))
        && m.risk_at_least.is_none_or(|r| request.risk >= r)
        && m.requester.as_ref().is_none_or(|who| match (who, request.requester) {
            (RequesterMatch::Person { id }, Some(p)) => p.id == *id,
            (RequesterMatch::Role { role }, Some(p)) => p.role == *role,
            (_, None) => false,
        })
}

/// The first policy of `policies` (in their order) that matches `request`.
pub fn first_match<'p>(policies: &'p [Policy], request: &Request<'_>) -> Option<&'p Policy> {
    policies.iter().find(|p| holds(&p.matches, request))
}

/// The route of a new approval: a copy of the matching policy's approvers and rules, or the unrouted
/// default, with who asked.
pub fn route_for(policies: &[Policy], request: &Request<'_>) -> ApprovalRoute {
    let requester = request.requester.cloned();
    match first_match(policies, request) {
        Some(p) => ApprovalRoute {
            policy: Some(RoutedBy { id: p.id.clone(), name: p.name.clone() }),
            approvers: p.approvers.clone(),
            quorum: p.quorum,
            self_approval: p.self_approval,
            requester,
            timeout_secs: p.timeout_secs,
        },
        None => ApprovalRoute::unrouted(requester),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warden_types::person::Role;
    use warden_types::policy::Approvers;

    fn person(id: &str, role: Role) -> ActingPerson {
        ActingPerson { id: id.into(), name: id.to_uppercase(), role }
    }

    fn policy(name: &str, matches: PolicyMatch, quorum: u32) -> Policy {
        Policy {
            id: name.into(),
            name: name.into(),
            position: 0,
            matches,
            approvers: Approvers { people: vec!["ann".into()], roles: vec![] },
            quorum,
            self_approval: quorum == 1,
            timeout_secs: Some(60),
            created_at: String::new(),
            updated_at: String::new(),
        }
    }

    fn request<'a>(tool: &'a str, risk: Risk, requester: Option<&'a ActingPerson>) -> Request<'a> {
        Request { source: Source::Chat, tool, mcp_server: None, risk, requester }
    }

    #[test]
    fn the_first_policy_whose_every_condition_holds_routes_the_request() {
        let member = person("mo", Role::Member);
        let policies = vec![
            policy(
                "writes by members",
                PolicyMatch {
                    tool: Some("write_*".into()),
                    requester: Some(RequesterMatch::Role { role: Role::Member }),
                    ..Default::default()
                },
                2,
            ),
            policy("high risk", PolicyMatch { risk_at_least: Some(Risk::High), ..Default::default() }, 2),
            policy(
                "anything from outside",
                PolicyMatch { source: Some(Source::OutsideClient), ..Default::default() },
                1,
            ),
        ];
        let name = |r: &Request<'_>| first_match(&policies, r).map(|p| p.name.clone());
        assert_eq!(name(&request("write_file", Risk::Low, Some(&member))).as_deref(), Some("writes by members"));
        let owner = person("ola", Role::Owner);
        assert_eq!(name(&request("write_file", Risk::Low, Some(&owner))), None, "the requester's role differs");
        assert_eq!(name(&request("write_file", Risk::High, Some(&owner))).as_deref(), Some("high risk"));
        assert_eq!(name(&request("shell", Risk::Medium, None)), None, "medium is not at least high");
        let outside = Request { source: Source::OutsideClient, ..request("shell", Risk::Low, None) };
        assert_eq!(name(&outside).as_deref(), Some("anything from outside"));
    }

    #[test]
    fn a_requester_condition_never_holds_for_an_unknown_requester_and_a_server_condition_needs_that_server() {
        let by_person =
            PolicyMatch { requester: Some(RequesterMatch::Person { id: "mo".into() }), ..Default::default() };
        assert!(!holds(&by_person, &request("shell", Risk::Low, None)));
        assert!(holds(&by_person, &request("shell", Risk::Low, Some(&person("mo", Role::Member)))));
        let on_server = PolicyMatch { mcp_server: Some("files".into()), ..Default::default() };
        assert!(!holds(&on_server, &request("read", Risk::Low, None)));
        let mcp = Request { mcp_server: Some("files"), ..request("read", Risk::Low, None) };
        assert!(holds(&on_server, &mcp));
    }

    #[test]
    fn the_route_copies_the_policy_and_without_one_anyone_who_decides_may_alone() {
        let member = person("mo", Role::Member);
        let policies = vec![policy("all", PolicyMatch::default(), 2)];
        let route = route_for(&policies, &request("shell", Risk::Low, Some(&member)));
        assert_eq!(route.policy.as_ref().map(|p| p.name.as_str()), Some("all"));
        assert_eq!((route.quorum, route.self_approval, route.timeout_secs), (2, false, Some(60)));
        assert_eq!(route.requester.as_ref(), Some(&member));
        let unrouted = route_for(&[], &request("shell", Risk::Low, Some(&member)));
        assert_eq!(unrouted, ApprovalRoute::unrouted(Some(member)));
        assert_eq!((unrouted.quorum, unrouted.self_approval), (1, true));
    }
}
