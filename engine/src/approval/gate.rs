//! The approval point: the one function that decides what happens to a call the model asked for.
//! Invalid calls are skipped with feedback for the model; read-only calls and calls a thread rule
//! covers run at once; everything else waits for a person.

use serde_json::Value;

use super::rules::rule_matches;
use super::ThreadRule;
use crate::tools::registry::ToolRegistry;

#[derive(Debug, Clone, PartialEq)]
pub enum CallDecision {
    /// Run now without asking: the tool does not need approval for these arguments.
    Run,
    /// Run now: a standing thread rule allows it.
    RunByRule { rule_id: String },
    /// Wait for a person's decision.
    Ask,
    /// Never reaches the tool; the model is told why.
    Skip { feedback: String },
}

/// Parses the model's raw arguments: an empty string means no arguments.
pub fn parse_arguments(raw: &str) -> Result<Value, String> {
    if raw.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    serde_json::from_str(raw).map_err(|e| format!("the arguments are not valid JSON ({e})"))
}

pub fn gate_call(registry: &ToolRegistry, rules: &[ThreadRule], name: &str, arguments: &Value) -> CallDecision {
    let Some(tool) = registry.get(name) else {
        let known: Vec<String> = registry.specs().into_iter().map(|s| s.name).collect();
        return CallDecision::Skip {
            feedback: format!("There is no tool named `{name}`. Available tools: {}.", known.join(", ")),
        };
    };
    if let Err(e) = registry.validate(name, arguments) {
        return CallDecision::Skip { feedback: format!("Invalid arguments for `{name}`: {e}") };
    }
    if !tool.needs_approval(arguments) {
        return CallDecision::Run;
    }
    match rules.iter().find(|r| rule_matches(r, name, arguments)) {
        Some(rule) => CallDecision::RunByRule { rule_id: rule.id.clone() },
        None => CallDecision::Ask,
    }
}
