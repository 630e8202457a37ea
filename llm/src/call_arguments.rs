//! A call's arguments as the JSON object the Anthropic and Gemini APIs require (`input`, `args`),
//! whatever the model sent: shared by both wire formats.

use serde_json::{json, Value};

/// Under this key, arguments that were not a JSON object go back to the model.
pub(super) const RAW_ARGUMENTS_KEY: &str = "_raw_arguments";

/// A call's stored arguments as an object. Arguments the model sent as invalid JSON
/// (kept as a string) or as a non-object go back under `RAW_ARGUMENTS_KEY`, so the model sees what it
/// sent next to the result saying it was wrong; no arguments at all are `{}`.
pub(super) fn tool_input(arguments: &Value) -> Value {
    match arguments {
        Value::Object(_) => arguments.clone(),
        Value::Null => json!({}),
        Value::String(raw) => match serde_json::from_str::<Value>(raw) {
            Ok(parsed @ Value::Object(_)) => parsed,
            _ if raw.trim().is_empty() => json!({}),
            _ => json!({ RAW_ARGUMENTS_KEY: raw }),
        },
        other => json!({ RAW_ARGUMENTS_KEY: other.to_string() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_that_are_not_an_object_go_back_wrapped_and_never_fail_the_request() {
        assert_eq!(tool_input(&json!({"a": 1})), json!({"a": 1}));
        assert_eq!(tool_input(&Value::Null), json!({}));
        assert_eq!(tool_input(&json!("")), json!({}));
        assert_eq!(tool_input(&json!("{\"a\": 2}")), json!({"a": 2}));
        assert_eq!(tool_input(&json!("{\"command\": \"ls")), json!({RAW_ARGUMENTS_KEY: "{\"command\": \"ls"}));
        assert_eq!(tool_input(&json!([1, 2])), json!({RAW_ARGUMENTS_KEY: "[1,2]"}));
    }
}
