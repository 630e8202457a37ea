//! The approval point: the one function that decides what happens to a call the model asked for.
//! Invalid calls are skipped with feedback for the model; read-only calls and calls a thread rule
//! covers run at once; everything else waits for a person. In front of that, the connection check:
//! a call to a tool of an MCP server that is offline or disabled waits for the person to Connect
//! it or Continue anyway, unless the thread already goes on without that server.

use serde_json::Value;
use warden_types::id::RuleId;

use super::rules::rule_matches;
use super::ThreadRule;
use crate::connection::ServerView;
use crate::outcome_text;
use warden_tools::registry::ToolRegistry;
use warden_types::connection::ServerDown;

#[derive(Debug, Clone, PartialEq)]
pub enum CallDecision {
    /// Run now without asking: the tool does not need approval for these arguments.
    Run,
    /// Run now: a standing thread rule allows it.
    RunByRule { rule_id: RuleId },
    /// Wait for a person's decision.
    Ask,
    /// Never reaches the tool; the model is told why.
    Skip { feedback: String },
    /// Its MCP server is offline or disabled: wait for the person to Connect it or Continue anyway.
    AwaitServer { server: String, down: ServerDown },
    /// Its MCP server is down and the thread goes on without it: never runs; the model is told.
    ServerLeftOut { server: String, feedback: String },
}

/// The approval point with the connection check in front of it (see the module's comment).
pub fn decide_call(
    registry: &ToolRegistry,
    rules: &[ThreadRule],
    servers: &ServerView,
    name: &str,
    arguments: &Value,
    sandbox_available: bool,
) -> CallDecision {
    match servers.needed_by_call(name) {
        Some(needed) if needed.left_out => CallDecision::ServerLeftOut {
            feedback: outcome_text::server_left_out(&needed.server, needed.down),
            server: needed.server,
        },
        Some(needed) => CallDecision::AwaitServer { server: needed.server, down: needed.down },
        None => gate_call(registry, rules, name, arguments, sandbox_available),
    }
}

/// Parses the model's raw arguments: an empty string means no arguments.
pub fn parse_arguments(raw: &str) -> Result<Value, String> {
    if raw.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    serde_json::from_str(raw).map_err(|e| format!("the arguments are not valid JSON ({e})"))
}

/// `sandbox_available`: whether commands can be confined here. Without a sandbox a thread rule never
/// runs a command by itself: a rule that matches the wrong thing would run it unconfined.
pub fn gate_call(
    registry: &ToolRegistry,
    rules: &[ThreadRule],
    name: &str,
    arguments: &Value,
    sandbox_available: bool,
) -> CallDecision {
    let Some(tool) = registry.get(name) else {
        // With tool search on there may be hundreds of tools: the model is pointed at the search instead.
        let search = warden_tools::search_tools::NAME;
        let feedback = if registry.get(search).is_some() {
            format!("There is no tool named `{name}`. Find the tool you need with `{search}`.")
        } else {
            let known: Vec<String> = registry.specs().into_iter().map(|s| s.name).collect();
            if known.is_empty() {
                format!("There is no tool named `{name}`: no tools are offered in this conversation.")
            } else {
                format!("There is no tool named `{name}`. Available tools: {}.", known.join(", "))
            }
        };
        return CallDecision::Skip { feedback };
    };
    if let Err(e) = registry.validate(name, arguments) {
        return CallDecision::Skip { feedback: format!("Invalid arguments for `{name}`: {e}") };
    }
    if !tool.needs_approval(arguments) {
        return CallDecision::Run;
    }
    if tool.runs_sandboxed_commands() && !sandbox_available {
        return CallDecision::Ask;
    }
    match rules.iter().find(|r| rule_matches(r, name, arguments)) {
        Some(rule) => CallDecision::RunByRule { rule_id: rule.id.clone() },
        None => CallDecision::Ask,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::approval::RuleMatcher;
    use serde_json::json;
    use warden_tools::{builtin_tools, ShellConfig, Workspace};

    fn registry(dir: &std::path::Path) -> ToolRegistry {
        let mut registry = ToolRegistry::new();
        for tool in builtin_tools(Workspace::new(dir).unwrap(), ShellConfig::default()) {
            registry.register(tool);
        }
        registry
    }

    fn git_show_rule() -> ThreadRule {
        ThreadRule {
            id: "r1".into(),
            thread_id: "t".into(),
            tool: "shell".into(),
            matcher: RuleMatcher::CommandPrefix { prefix: "git show".into() },
            created_at: String::new(),
        }
    }

    #[test]
    fn a_matching_shell_rule_runs_the_command_only_where_it_can_be_sandboxed() {
        let dir = tempfile::tempdir().unwrap();
        let registry = registry(dir.path());
        let rules = [git_show_rule()];
        let args = json!({"command": "git show HEAD"});
        assert_eq!(
            gate_call(&registry, &rules, "shell", &args, true),
            CallDecision::RunByRule { rule_id: "r1".into() }
        );
        assert_eq!(gate_call(&registry, &rules, "shell", &args, false), CallDecision::Ask);
    }

    #[test]
    fn read_only_tools_still_run_at_once_without_a_sandbox() {
        let dir = tempfile::tempdir().unwrap();
        let registry = registry(dir.path());
        assert_eq!(gate_call(&registry, &[], "list_dir", &json!({"path": "."}), false), CallDecision::Run);
    }
}
