//! What happens to an outside request before a person sees it: whether a policy approves it at
//! once (and by which rule, recorded with the decision), and how long it waits for a person before
//! it is answered `rejected` by timeout. Pure functions of the global policy, the client's
//! override and the request.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::protocol::{ClientFrame, RiskLevel};

/// How long an outside request waits for a person unless a policy says otherwise (the seed's 120 s).
pub const DEFAULT_TIMEOUT_SECS: u64 = 120;
/// Longest timeout a policy may set (a day).
pub const MAX_TIMEOUT_SECS: u64 = 86_400;

/// Security evaluations approved without asking: those up to this risk level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SecurityAuto {
    #[default]
    Never,
    Low,
    Medium,
    High,
}

/// Code responses approved without asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CodeResponseAuto {
    #[default]
    Never,
    /// Those whose `exit_code` is 0.
    OnSuccess,
    Always,
}

/// Seconds a request waits for a person: by the request's risk, else `default_secs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Timeouts {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_secs: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub low_secs: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub medium_secs: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub high_secs: Option<u64>,
}

/// The policy for every client that does not override it. The default asks a person for everything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    #[serde(default)]
    pub security_evaluation: SecurityAuto,
    #[serde(default)]
    pub code_response: CodeResponseAuto,
    #[serde(default)]
    pub timeouts: Timeouts,
}

/// One client's override: each field given replaces the global one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientPolicy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub security_evaluation: Option<SecurityAuto>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_response: Option<CodeResponseAuto>,
    #[serde(default)]
    pub timeouts: Timeouts,
}

/// A policy approved the request; `rule` says which, in words, and is recorded with the decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutoApproval {
    pub rule: String,
}

/// Whether the request is approved without asking, and by which rule (the client's override wins).
pub fn auto_approval(policy: &Policy, client: &ClientPolicy, request: &ClientFrame) -> Option<AutoApproval> {
    let scope = |overridden: bool| if overridden { "client policy" } else { "global policy" };
    match request {
        ClientFrame::SecurityEvaluation(evaluation) => {
            let (level, scope) = match client.security_evaluation {
                Some(level) => (level, scope(true)),
                None => (policy.security_evaluation, scope(false)),
            };
            let up_to = match level {
                SecurityAuto::Never => return None,
                SecurityAuto::Low => RiskLevel::Low,
                SecurityAuto::Medium => RiskLevel::Medium,
                SecurityAuto::High => RiskLevel::High,
            };
            (evaluation.risk_level <= up_to).then(|| AutoApproval {
                rule: format!("{scope}: security evaluations up to {up_to} risk are approved automatically"),
            })
        }
        ClientFrame::CodeResponse(response) => {
            let (rule, scope) = match client.code_response {
                Some(rule) => (rule, scope(true)),
                None => (policy.code_response, scope(false)),
            };
            match rule {
                CodeResponseAuto::Never => None,
                CodeResponseAuto::OnSuccess => (response.exit_code == Some(0)).then(|| AutoApproval {
                    rule: format!("{scope}: code responses that exited with 0 are approved automatically"),
                }),
                CodeResponseAuto::Always => {
                    Some(AutoApproval { rule: format!("{scope}: code responses are approved automatically") })
                }
            }
        }
    }
}

/// How long a request of `risk` (none for a code response) waits for a person: the client's
/// timeout for that risk, its default, the global one for that risk, the global default, 120 s.
pub fn timeout(policy: &Policy, client: &ClientPolicy, risk: Option<RiskLevel>) -> Duration {
    let by_risk = |t: &Timeouts| match risk {
        Some(RiskLevel::Low) => t.low_secs,
        Some(RiskLevel::Medium) => t.medium_secs,
        Some(RiskLevel::High) => t.high_secs,
        None => None,
    };
    let secs = by_risk(&client.timeouts)
        .or(client.timeouts.default_secs)
        .or(by_risk(&policy.timeouts))
        .or(policy.timeouts.default_secs)
        .unwrap_or(DEFAULT_TIMEOUT_SECS);
    Duration::from_secs(secs.clamp(1, MAX_TIMEOUT_SECS))
}

impl Timeouts {
    /// Every timeout given is 1 s to a day.
    pub fn validate(&self) -> Result<(), String> {
        let all = [
            ("default_secs", self.default_secs),
            ("low_secs", self.low_secs),
            ("medium_secs", self.medium_secs),
            ("high_secs", self.high_secs),
        ];
        for (name, secs) in all {
            if secs.is_some_and(|s| !(1..=MAX_TIMEOUT_SECS).contains(&s)) {
                return Err(format!("`{name}` must be 1 to {MAX_TIMEOUT_SECS} seconds"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{CodeResponse, SecurityEvaluation};

    fn evaluation(risk: RiskLevel) -> ClientFrame {
        ClientFrame::SecurityEvaluation(SecurityEvaluation {
            id: "1".into(),
            code: "ls".into(),
            language: None,
            explanation: "list".into(),
            risk_level: risk,
            metadata: None,
            warden_call_id: None,
        })
    }

    fn response(exit_code: Option<i64>) -> ClientFrame {
        ClientFrame::CodeResponse(CodeResponse {
            id: "2".into(),
            follows: None,
            stdout: "out".into(),
            stderr: String::new(),
            exit_code,
            metadata: None,
        })
    }

    fn global(security: SecurityAuto, code: CodeResponseAuto) -> Policy {
        Policy { security_evaluation: security, code_response: code, timeouts: Timeouts::default() }
    }

    #[test]
    fn security_evaluations_are_approved_up_to_the_level_and_no_further() {
        use RiskLevel::*;
        let table = [
            (SecurityAuto::Never, [false, false, false]),
            (SecurityAuto::Low, [true, false, false]),
            (SecurityAuto::Medium, [true, true, false]),
            (SecurityAuto::High, [true, true, true]),
        ];
        for (level, expected) in table {
            let policy = global(level, CodeResponseAuto::Never);
            for (risk, want) in [Low, Medium, High].into_iter().zip(expected) {
                let got = auto_approval(&policy, &ClientPolicy::default(), &evaluation(risk));
                assert_eq!(got.is_some(), want, "{level:?} / {risk:?}");
            }
        }
    }

    #[test]
    fn the_rule_says_which_policy_and_level_approved() {
        let policy = global(SecurityAuto::Medium, CodeResponseAuto::Never);
        let rule = auto_approval(&policy, &ClientPolicy::default(), &evaluation(RiskLevel::Low)).unwrap().rule;
        assert_eq!(rule, "global policy: security evaluations up to medium risk are approved automatically");
    }

    #[test]
    fn code_responses_never_on_success_only_or_always() {
        let cases = [
            (CodeResponseAuto::Never, [false, false, false]),
            (CodeResponseAuto::OnSuccess, [true, false, false]),
            (CodeResponseAuto::Always, [true, true, true]),
        ];
        for (rule, expected) in cases {
            let policy = global(SecurityAuto::Never, rule);
            for (exit, want) in [Some(0), Some(1), None].into_iter().zip(expected) {
                let got = auto_approval(&policy, &ClientPolicy::default(), &response(exit));
                assert_eq!(got.is_some(), want, "{rule:?} / exit {exit:?}");
            }
        }
    }

    #[test]
    fn a_client_override_wins_both_ways_and_is_named_in_the_rule() {
        let permissive = global(SecurityAuto::High, CodeResponseAuto::Always);
        let strict = ClientPolicy {
            security_evaluation: Some(SecurityAuto::Never),
            code_response: Some(CodeResponseAuto::Never),
            ..ClientPolicy::default()
        };
        assert_eq!(auto_approval(&permissive, &strict, &evaluation(RiskLevel::Low)), None);
        assert_eq!(auto_approval(&permissive, &strict, &response(Some(0))), None);

        let trusted = ClientPolicy { security_evaluation: Some(SecurityAuto::Low), ..ClientPolicy::default() };
        let rule = auto_approval(&Policy::default(), &trusted, &evaluation(RiskLevel::Low)).unwrap().rule;
        assert!(rule.starts_with("client policy:"), "{rule}");
        // The override covers only what it names: code responses still follow the global policy.
        assert_eq!(auto_approval(&Policy::default(), &trusted, &response(Some(0))), None);
    }

    #[test]
    fn the_default_policy_asks_a_person_for_everything_for_120_seconds() {
        let (policy, client) = (Policy::default(), ClientPolicy::default());
        for risk in [RiskLevel::Low, RiskLevel::Medium, RiskLevel::High] {
            assert_eq!(auto_approval(&policy, &client, &evaluation(risk)), None);
            assert_eq!(timeout(&policy, &client, Some(risk)), Duration::from_secs(120));
        }
        assert_eq!(auto_approval(&policy, &client, &response(Some(0))), None);
        assert_eq!(timeout(&policy, &client, None), Duration::from_secs(120));
    }

    #[test]
    fn timeouts_come_from_the_client_then_the_global_policy_by_risk_then_default() {
        let policy = Policy {
            timeouts: Timeouts { default_secs: Some(60), high_secs: Some(600), ..Timeouts::default() },
            ..Policy::default()
        };
        let none = ClientPolicy::default();
        assert_eq!(timeout(&policy, &none, Some(RiskLevel::High)), Duration::from_secs(600));
        assert_eq!(timeout(&policy, &none, Some(RiskLevel::Low)), Duration::from_secs(60));
        assert_eq!(timeout(&policy, &none, None), Duration::from_secs(60));
        let client = ClientPolicy {
            timeouts: Timeouts { default_secs: Some(30), low_secs: Some(5), ..Timeouts::default() },
            ..ClientPolicy::default()
        };
        assert_eq!(timeout(&policy, &client, Some(RiskLevel::Low)), Duration::from_secs(5));
        // The client's default beats the global per-risk timeout.
        assert_eq!(timeout(&policy, &client, Some(RiskLevel::High)), Duration::from_secs(30));
    }

    #[test]
    fn a_timeout_outside_one_second_to_a_day_is_refused() {
        assert!(Timeouts { default_secs: Some(0), ..Timeouts::default() }.validate().is_err());
        assert!(Timeouts { high_secs: Some(MAX_TIMEOUT_SECS + 1), ..Timeouts::default() }.validate().is_err());
        assert!(Timeouts { low_secs: Some(1), default_secs: Some(MAX_TIMEOUT_SECS), ..Timeouts::default() }
            .validate()
            .is_ok());
    }
}
