//! "Allow for this thread": which rule a decision creates, and whether a rule covers a call.
//! Matching is exact by default; a `shell` rule may name a command prefix of a read-only command.
//! A `shell` rule of any kind covers only command lines of plain literal words (no expansion,
//! substitution, redirection, pipe, compound command, ...): anything else is asked again.

use serde_json::Value;

use super::{RuleMatcher, ThreadRule};
use warden_tools::matches_prefix_rule;
use warden_tools::shell::{check_prefix_rule, plain_commands};

/// The rule a person's "allow for this thread" creates, or why it cannot be made.
pub fn rule_for(tool: &str, arguments: &Value, prefix: Option<&str>) -> Result<RuleMatcher, String> {
    let command = || arguments.get("command").and_then(Value::as_str);
    match prefix.map(str::trim).filter(|p| !p.is_empty()) {
        Some(prefix) if tool == "shell" => {
            let command = command().ok_or("a command prefix needs the call's `command`")?;
            check_prefix_rule(command, prefix)?;
            Ok(RuleMatcher::CommandPrefix { prefix: prefix.to_string() })
        }
        Some(_) => Err(format!("a command prefix applies only to `shell`, not to `{tool}`")),
        None if tool == "shell" && !command().is_some_and(is_plain) => {
            Err("a thread rule covers only commands made of plain words (no $, `…`, $'…', globs, redirections, \
             pipes, `&`, loops or other compound commands); approve this one once"
                .into())
        }
        None => Ok(RuleMatcher::ExactArguments { arguments: arguments.clone() }),
    }
}

pub fn rule_matches(rule: &ThreadRule, tool: &str, arguments: &Value) -> bool {
    if rule.tool != tool {
        return false;
    }
    // Checked again at match time: rules stored before this check existed are held to it too.
    if tool == "shell" && !arguments.get("command").and_then(Value::as_str).is_some_and(is_plain) {
        return false;
    }
    match &rule.matcher {
        RuleMatcher::ExactArguments { arguments: allowed } => allowed == arguments,
        RuleMatcher::AnyArguments => true,
        RuleMatcher::CommandPrefix { prefix } => {
            arguments.get("command").and_then(Value::as_str).is_some_and(|command| matches_prefix_rule(command, prefix))
        }
    }
}

fn is_plain(command: &str) -> bool {
    plain_commands(command).is_some_and(|commands| !commands.is_empty())
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

    #[test]
    fn prefix_rule_is_refused_for_a_command_that_is_not_read_only() {
        assert!(rule_for("shell", &json!({"command": "cargo test"}), Some("cargo test")).is_err());
        assert!(rule_for("shell", &json!({"command": "git show --output=/tmp/x"}), Some("git show")).is_err());
        assert!(rule_for("shell", &json!({"command": "git show"}), Some("git $(id)")).is_err());
    }

    #[test]
    fn shell_rules_of_any_kind_never_cover_a_line_that_is_not_plain() {
        assert!(rule_for("shell", &json!({"command": "echo $(id)"}), None).is_err());
        let exact = rule("shell", RuleMatcher::ExactArguments { arguments: json!({"command": "echo $HOME"}) });
        assert!(!rule_matches(&exact, "shell", &json!({"command": "echo $HOME"})));
        let any = rule("shell", RuleMatcher::AnyArguments);
        assert!(!rule_matches(&any, "shell", &json!({"command": "for x in a; do git show; done"})));
        assert!(rule_matches(&any, "shell", &json!({"command": "git show"})));
        let plain = rule("shell", rule_for("shell", &json!({"command": "make all"}), None).unwrap());
        assert!(rule_matches(&plain, "shell", &json!({"command": "make all"})));
    }
}
