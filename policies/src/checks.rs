//! What a policy must be before it is stored: a name, someone to decide, a quorum a team can reach, a
//! timeout within reason. The requester may approve their own request by default only when one approval is
//! enough.

use warden_types::policy::PolicyInput;

pub const MAX_NAME_CHARS: usize = 100;
pub const MAX_PATTERN_CHARS: usize = 200;
pub const MAX_QUORUM: u32 = 20;
pub const MAX_NAMED_APPROVERS: usize = 100;
/// Thirty days, the longest any anchor lets a request wait.
pub const MAX_TIMEOUT_SECS: u64 = 30 * 24 * 3600;

/// A policy as it will be stored: the input checked, its name trimmed, self-approval decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    pub input: PolicyInput,
    pub self_approval: bool,
}

/// Checks `input`; the error says what is wrong, for the person who wrote it.
pub fn check(mut input: PolicyInput) -> Result<Checked, String> {
    input.name = input.name.trim().to_string();
    if input.name.is_empty() || input.name.chars().count() > MAX_NAME_CHARS {
        return Err(format!("a policy's name is 1 to {MAX_NAME_CHARS} characters"));
    }
    if !(1..=MAX_QUORUM).contains(&input.quorum) {
        return Err(format!("the quorum is 1 to {MAX_QUORUM} approvals"));
    }
    for (what, value) in [("tool", &mut input.matches.tool), ("MCP server", &mut input.matches.mcp_server)] {
        if let Some(v) = value.as_mut() {
            *v = v.trim().to_string();
            if v.is_empty() {
                *value = None;
            } else if v.chars().count() > MAX_PATTERN_CHARS {
                return Err(format!("the {what} is at most {MAX_PATTERN_CHARS} characters"));
            }
        }
    }
    let approvers = &mut input.approvers;
    approvers.people.sort();
    approvers.people.dedup();
    approvers.roles.dedup();
    if approvers.people.is_empty() && approvers.roles.is_empty() {
        return Err("name at least one approver: a person or a role".into());
    }
    if approvers.people.len() > MAX_NAMED_APPROVERS {
        return Err(format!("at most {MAX_NAMED_APPROVERS} people are named"));
    }
    if let Some(role) = approvers.roles.iter().find(|r| !r.decides()) {
        return Err(format!(
            "a {} decides nothing: only owners and approvers may approve",
            role.label().to_lowercase()
        ));
    }
    if approvers.roles.is_empty() && (approvers.people.len() as u64) < u64::from(input.quorum) {
        return Err(format!(
            "a quorum of {} needs at least as many approvers; {} named",
            input.quorum,
            approvers.people.len()
        ));
    }
    if let Some(t) = input.timeout_secs {
        if !(1..=MAX_TIMEOUT_SECS).contains(&t) {
            return Err(format!("the timeout is 1 to {MAX_TIMEOUT_SECS} seconds (30 days)"));
        }
    }
    let self_approval = input.self_approval.unwrap_or(input.quorum == 1);
    Ok(Checked { input, self_approval })
}

#[cfg(test)]
mod tests {
    use super::*;
    use warden_types::person::Role;
    use warden_types::policy::{Approvers, PolicyMatch};

    fn input(quorum: u32, people: &[&str], roles: &[Role]) -> PolicyInput {
        PolicyInput {
            name: " Two for writes ".into(),
            matches: PolicyMatch { tool: Some(" ".into()), ..Default::default() },
            approvers: Approvers { people: people.iter().map(|p| (*p).into()).collect(), roles: roles.to_vec() },
            quorum,
            self_approval: None,
            timeout_secs: None,
        }
    }

    #[test]
    fn self_approval_is_off_by_default_only_when_more_than_one_must_approve() {
        let one = check(input(1, &["ann"], &[])).unwrap();
        assert!(one.self_approval);
        assert_eq!(one.input.name, "Two for writes");
        assert_eq!(one.input.matches.tool, None, "a blank tool is no condition");
        assert!(!check(input(2, &["ann", "bea"], &[])).unwrap().self_approval);
        let allowed = PolicyInput { self_approval: Some(true), ..input(2, &[], &[Role::Approver]) };
        assert!(check(allowed).unwrap().self_approval);
    }

    #[test]
    fn a_policy_nobody_could_satisfy_is_refused() {
        assert!(check(input(0, &["ann"], &[])).is_err());
        assert!(check(input(1, &[], &[])).is_err());
        assert!(check(input(3, &["ann", "bea"], &[])).is_err());
        assert!(check(input(1, &[], &[Role::Member])).is_err());
        assert!(check(PolicyInput { timeout_secs: Some(0), ..input(1, &["ann"], &[]) }).is_err());
        assert!(check(PolicyInput { name: " ".into(), ..input(1, &["ann"], &[]) }).is_err());
    }
}
