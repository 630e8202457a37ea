//! "Allow for this thread": which rule a decision creates, and whether a rule covers a call.
//! Matching is exact by default; a `shell` rule may name a command prefix, and then every part of
//! a compound command must match on its own.

use serde_json::Value;

use super::{RuleMatcher, ThreadRule};
use crate::tools::matches_prefix_rule;

/// The rule a person's "allow for this thread" creates.
pub fn rule_for(tool: &str, arguments: &Value, prefix: Option<&str>) -> Result<RuleMatcher, String> {
    match prefix.map(str::trim).filter(|p| !p.is_empty()) {
        Some(prefix) if tool == "shell" => Ok(RuleMatcher::CommandPrefix { prefix: prefix.to_string() }),
        Some(_) => Err(format!("a command prefix applies only to `shell`, not to `{tool}`")),
        None => Ok(RuleMatcher::ExactArguments { arguments: arguments.clone() }),
    }
}

pub fn rule_matches(rule: &ThreadRule, tool: &str, arguments: &Value) -> bool {
    if rule.tool != tool {
        return false;
    }
    match &rule.matcher {
        RuleMatcher::ExactArguments { arguments: allowed } => allowed == arguments,
        RuleMatcher::AnyArguments => true,
        RuleMatcher::CommandPrefix { prefix } => arguments
            .get("command")
            .and_then(Value::as_str)
            .is_some_and(|command| matches_prefix_rule(command, prefix)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rule(tool: &str, matcher: RuleMatcher) -> ThreadRule {
        ThreadRule { id: "r".into(), thread_id: "t".into(), tool: tool.into(), matcher, created_at: String::new() }
    }

    #[test]
    fn exact_rule_matches_only_the_same_arguments() {
        let r = rule("write_file", rule_for("write_file", &json!({"path": "a", "content": "x"}), None).unwrap());
        assert!(rule_matches(&r, "write_file", &json!({"path": "a", "content": "x"})));
        assert!(!rule_matches(&r, "write_file", &json!({"path": "a", "content": "y"})));
        assert!(!rule_matches(&r, "shell", &json!({"path": "a", "content": "x"})));
    }

    #[test]
    fn shell_prefix_rule_never_allows_a_redirect_or_a_second_command() {
        let r = rule("shell", rule_for("shell", &json!({"command": "git show"}), Some("git show")).unwrap());
        assert!(rule_matches(&r, "shell", &json!({"command": "git show HEAD~1"})));
        assert!(!rule_matches(&r, "shell", &json!({"command": "git show > ~/.ssh/id_rsa"})));
        assert!(!rule_matches(&r, "shell", &json!({"command": "git show; rm -rf /"})));
        assert!(!rule_matches(&r, "shell", &json!({"command": "git show $(rm -rf ~)"})));
        assert!(!rule_matches(&r, "shell", &json!({"command": "git show | sh"})));
    }

    #[test]
    fn prefix_is_refused_for_tools_other_than_shell() {
        assert!(rule_for("write_file", &json!({}), Some("x")).is_err());
    }
}
