//! Reading the wire messages of a Chat Completions request: the text of a message (string or parts),
//! the last user message, and how many assistant turns followed it.

use serde_json::Value;

/// The text of a message: its string content, or its text parts joined.
pub fn message_text(message: &Value) -> String {
    match message.get("content") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => {
            parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("")
        }
        _ => String::new(),
    }
}

fn role(message: &Value) -> &str {
    message.get("role").and_then(Value::as_str).unwrap_or("")
}

/// A user message that only carries images a tool returned (it follows tool messages and has
/// `image_url` parts) is part of the tool result, not a new user turn.
fn is_tool_attachment(messages: &[Value], index: usize) -> bool {
    let after_tool = index > 0 && role(&messages[index - 1]) == "tool";
    let has_image = match messages[index].get("content") {
        Some(Value::Array(parts)) => parts.iter().any(|p| p.get("type").and_then(Value::as_str) == Some("image_url")),
        _ => false,
    };
    after_tool && has_image
}

fn last_user_index(messages: &[Value]) -> Option<usize> {
    (0..messages.len()).rev().find(|&i| role(&messages[i]) == "user" && !is_tool_attachment(messages, i))
}

pub fn last_user_text(messages: &[Value]) -> String {
    last_user_index(messages).map(|i| message_text(&messages[i])).unwrap_or_default()
}

pub fn user_texts(messages: &[Value]) -> Vec<String> {
    (0..messages.len())
        .filter(|&i| role(&messages[i]) == "user" && !is_tool_attachment(messages, i))
        .map(|i| message_text(&messages[i]))
        .collect()
}

/// The step within a scenario: assistant messages after the last user message.
pub fn assistant_turns_since_last_user(messages: &[Value]) -> usize {
    let start = last_user_index(messages).map_or(0, |i| i + 1);
    messages[start..].iter().filter(|m| role(m) == "assistant").count()
}

/// The content of the tool messages after the last assistant message: the results of the calls
/// the model's previous turn made, in the order the request lists them.
pub fn trailing_tool_results(messages: &[Value]) -> Vec<String> {
    let start = (0..messages.len()).rev().find(|&i| role(&messages[i]) == "assistant").map_or(0, |i| i + 1);
    messages[start..].iter().filter(|m| role(m) == "tool").map(message_text).collect()
}
