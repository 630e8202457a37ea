//! The Anthropic Messages wire format: request bodies built from our `Message`s (system prompt on top,
//! user/assistant turns alternating, tool calls and results as content blocks), tool schemas made
//! acceptable, the streamed events read back into `StreamEvent`s, whole messages and error bodies.
//! These types never leave `llm/`.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::call_arguments::tool_input;
use super::sse_turn::Decoded;
use super::{FinishReason, ProviderError, StreamEvent};
use warden_types::message::{Block, Message, Role};
use warden_types::tool::{ToolContent, ToolSpec};

#[derive(Debug, Serialize)]
pub(super) struct MessagesRequest<'a> {
    pub model: &'a str,
    pub max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    pub messages: Vec<WireMessage>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<WireTool<'a>>,
    pub stream: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum WireRole {
    User,
    Assistant,
}

#[derive(Debug, PartialEq, Serialize)]
pub(super) struct WireMessage {
    pub role: WireRole,
    pub content: Vec<ContentBlock>,
}

#[derive(Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(super) enum ContentBlock {
    Text { text: String },
    ToolUse { id: String, name: String, input: Value },
    ToolResult { tool_use_id: String, content: Vec<ResultBlock>, is_error: bool },
}

/// What a tool result may hold: text and images.
#[derive(Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(super) enum ResultBlock {
    Text { text: String },
    Image { source: ImageSource },
}

#[derive(Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(super) enum ImageSource {
    Base64 { media_type: String, data: String },
}

#[derive(Debug, Serialize)]
pub(super) struct WireTool<'a> {
    pub name: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    pub description: &'a str,
    pub input_schema: Value,
}

/// The image types the API takes; others are described in words.
const IMAGE_TYPES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];

pub(super) fn wire_tools(tools: &[ToolSpec]) -> Vec<WireTool<'_>> {
    tools
        .iter()
        .map(|t| WireTool { name: &t.name, description: &t.description, input_schema: input_schema(&t.parameters) })
        .collect()
}

/// A tool's parameters as the API accepts them: the top level must be `type: object` and may not be
/// `oneOf`/`anyOf`/`allOf`. Such a top-level combination is flattened: the branches' properties join the
/// top level (an `allOf`'s required ones stay required, a choice's become optional). A schema of another
/// type is replaced by an empty object schema (arguments are always an object).
pub(super) fn input_schema(schema: &Value) -> Value {
    let empty = || json!({"type": "object", "properties": {}});
    let Value::Object(schema) = schema else { return empty() };
    let mut schema = schema.clone();
    let is_object = match schema.get("type") {
        None => true,
        Some(Value::String(kind)) => kind == "object",
        Some(Value::Array(kinds)) => kinds.iter().any(|k| k == "object"),
        Some(_) => false,
    };
    if !is_object {
        return empty();
    }
    schema.insert("type".into(), "object".into());
    for key in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = schema.remove(key) {
            for branch in branches.iter().filter_map(Value::as_object) {
                merge_branch(&mut schema, branch, key == "allOf");
            }
        }
    }
    Value::Object(schema)
}

fn merge_branch(schema: &mut Map<String, Value>, branch: &Map<String, Value>, keep_required: bool) {
    if let Some(Value::Object(properties)) = branch.get("properties") {
        let target = schema.entry("properties").or_insert_with(|| json!({}));
        if let Value::Object(target) = target {
            for (name, property) in properties {
                target.entry(name.clone()).or_insert_with(|| property.clone());
            }
        }
    }
    if keep_required {
        if let Some(Value::Array(required)) = branch.get("required") {
            let target = schema.entry("required").or_insert_with(|| json!([]));
            if let Value::Array(target) = target {
                for name in required {
                    if !target.contains(name) {
                        target.push(name.clone());
                    }
                }
            }
        }
    }
}

/// All system messages' text, joined, for the top-level `system` field.
pub(super) fn system_text(messages: &[Message]) -> Option<String> {
    let parts: Vec<String> = messages
        .iter()
        .filter(|m| m.role == Role::System)
        .map(Message::joined_text)
        .filter(|t| !t.trim().is_empty())
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

/// Our conversation as Messages turns: system messages left out (see `system_text`), tool results in
/// user turns, consecutive turns of one role merged (the API wants them alternating), each user turn's
/// tool results ahead of its text, and no empty text or empty turn (the API refuses them).
pub(super) fn wire_messages(messages: &[Message]) -> Vec<WireMessage> {
    let mut out: Vec<WireMessage> = Vec::new();
    for message in messages {
        let role = match message.role {
            Role::System => continue,
            Role::Assistant => WireRole::Assistant,
            Role::User | Role::Tool => WireRole::User,
        };
        let content: Vec<ContentBlock> = message.content.iter().filter_map(|b| content_block(role, b)).collect();
        if content.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.role == role => last.content.extend(content),
            _ => out.push(WireMessage { role, content }),
        }
    }
    for message in out.iter_mut().filter(|m| m.role == WireRole::User) {
        // Stable: results keep their order, text keeps its order after them.
        message.content.sort_by_key(|b| !matches!(b, ContentBlock::ToolResult { .. }));
    }
    out
}

fn content_block(role: WireRole, block: &Block) -> Option<ContentBlock> {
    match (block, role) {
        (Block::Text { text }, _) if !text.trim().is_empty() => Some(ContentBlock::Text { text: text.clone() }),
        (Block::ToolCall { call_id, name, arguments, .. }, WireRole::Assistant) => {
            Some(ContentBlock::ToolUse { id: wire_id(call_id), name: name.clone(), input: tool_input(arguments) })
        }
        (Block::ToolResult { call_id, content, is_error, .. }, WireRole::User) => Some(ContentBlock::ToolResult {
            tool_use_id: wire_id(call_id),
            content: result_blocks(content),
            is_error: *is_error,
        }),
        _ => None,
    }
}

/// Tool-use ids must match `[a-zA-Z0-9_-]+`; ids another provider made (a thread can change provider)
/// are mapped the same way for the call and its result, so the two still pair up.
pub(super) fn wire_id(id: &str) -> String {
    let mapped: String =
        id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect();
    if mapped.is_empty() {
        "call".to_string()
    } else {
        mapped
    }
}

fn result_blocks(content: &[ToolContent]) -> Vec<ResultBlock> {
    let mut blocks: Vec<ResultBlock> = content
        .iter()
        .map(|c| match c {
            ToolContent::Image { mime_type, data } if IMAGE_TYPES.contains(&mime_type.as_str()) => {
                ResultBlock::Image { source: ImageSource::Base64 { media_type: mime_type.clone(), data: data.clone() } }
            }
            ToolContent::Image { mime_type, .. } => {
                ResultBlock::Text { text: format!("[image: {mime_type}, a type the model cannot be shown]") }
            }
            ToolContent::Text { text } => ResultBlock::Text { text: text.clone() },
            ToolContent::Resource { text: Some(text), .. } => ResultBlock::Text { text: text.clone() },
            ToolContent::Resource { uri, text: None, .. } => ResultBlock::Text { text: format!("[resource {uri}]") },
        })
        .filter(|b| !matches!(b, ResultBlock::Text { text } if text.trim().is_empty()))
        .collect();
    if blocks.is_empty() {
        blocks.push(ResultBlock::Text { text: "(no output)".into() });
    }
    blocks
}

/// One streamed event, by its `type`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum WireEvent {
    MessageStart {},
    ContentBlockStart {
        index: u32,
        content_block: StartBlock,
    },
    ContentBlockDelta {
        index: u32,
        delta: BlockDelta,
    },
    ContentBlockStop {
        index: u32,
    },
    MessageDelta {
        delta: MessageDeltaBody,
    },
    MessageStop {},
    Ping {},
    Error {
        error: ErrorBody,
    },
    /// Event types added later are skipped, as the API asks of clients.
    #[serde(other)]
    Unknown,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum StartBlock {
    Text {
        #[serde(default)]
        text: String,
    },
    ToolUse {
        id: String,
        name: String,
        #[serde(default)]
        input: Value,
    },
    /// Thinking, server tools, ...: not part of the answer we show or act on.
    #[serde(other)]
    Other,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum BlockDelta {
    TextDelta {
        text: String,
    },
    InputJsonDelta {
        partial_json: String,
    },
    /// `thinking_delta`, `signature_delta`, `citations_delta`, ...
    #[serde(other)]
    Other,
}

#[derive(Debug, Deserialize)]
struct MessageDeltaBody {
    stop_reason: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct ErrorBody {
    #[serde(rename = "type")]
    kind: Option<String>,
    message: Option<String>,
}

/// A tool-use block being streamed.
#[derive(Debug, Default)]
struct ToolBlock {
    /// Whether any `input_json_delta` came.
    streamed: bool,
    /// The input given whole in the block's start, if not `{}` (used when no deltas follow).
    start_input: Option<String>,
}

/// Reads one streamed message's events. The tool call index is the content block's index, so calls
/// in one message are distinct even if their events interleave.
#[derive(Debug, Default)]
pub(super) struct EventDecoder {
    tools: HashMap<u32, ToolBlock>,
}

impl EventDecoder {
    /// `name` is the SSE `event:` field, used when the data has no `type`.
    pub fn read(&mut self, name: &str, data: &str) -> Result<Decoded, ProviderError> {
        let data = data.trim();
        if data.is_empty() {
            return Ok(Decoded::default());
        }
        let malformed = |e: serde_json::Error| {
            ProviderError::Stream(format!("the model server sent an event that is not valid ({e})"))
        };
        let mut value: Value = serde_json::from_str(data).map_err(malformed)?;
        if let Value::Object(map) = &mut value {
            if !map.contains_key("type") && !name.is_empty() && name != "message" {
                map.insert("type".into(), name.into());
            }
        }
        let event: WireEvent = serde_json::from_value(value).map_err(malformed)?;
        let mut out = Decoded::default();
        match event {
            WireEvent::ContentBlockStart { index, content_block } => match content_block {
                StartBlock::Text { text } if !text.is_empty() => out.events.push(StreamEvent::TextDelta(text)),
                StartBlock::ToolUse { id, name, input } => {
                    let start_input = match input {
                        Value::Object(map) if map.is_empty() => None,
                        Value::Null => None,
                        other => Some(other.to_string()),
                    };
                    self.tools.insert(index, ToolBlock { streamed: false, start_input });
                    out.events.push(StreamEvent::ToolCallDelta {
                        index,
                        call_id: Some(id),
                        name: Some(name),
                        arguments: String::new(),
                    });
                }
                _ => {}
            },
            WireEvent::ContentBlockDelta { index, delta } => match delta {
                BlockDelta::TextDelta { text } if !text.is_empty() => out.events.push(StreamEvent::TextDelta(text)),
                BlockDelta::InputJsonDelta { partial_json } => {
                    if partial_json.is_empty() {
                        return Ok(out);
                    }
                    self.tools.entry(index).or_default().streamed = true;
                    out.events.push(StreamEvent::ToolCallDelta {
                        index,
                        call_id: None,
                        name: None,
                        arguments: partial_json,
                    });
                }
                _ => {}
            },
            WireEvent::ContentBlockStop { index } => {
                if let Some(ToolBlock { streamed: false, start_input: Some(input) }) = self.tools.remove(&index) {
                    out.events.push(StreamEvent::ToolCallDelta { index, call_id: None, name: None, arguments: input });
                }
            }
            WireEvent::MessageDelta { delta } => out.finish = delta.stop_reason.as_deref().map(finish_reason),
            WireEvent::MessageStop {} => out.end = true,
            WireEvent::Error { error } => return Err(stream_error(error)),
            WireEvent::MessageStart {} | WireEvent::Ping {} | WireEvent::Unknown => {}
        }
        Ok(out)
    }
}

pub(super) fn finish_reason(stop_reason: &str) -> FinishReason {
    match stop_reason {
        "end_turn" | "stop_sequence" => FinishReason::Stop,
        "tool_use" => FinishReason::ToolCalls,
        "max_tokens" => FinishReason::Length,
        other => FinishReason::Other(other.to_string()),
    }
}

/// An error event in an answered stream, as the HTTP error the API would have answered with, so that
/// overload and rate limits read (and retry) the same whenever they come.
fn stream_error(error: ErrorBody) -> ProviderError {
    let kind = error.kind.unwrap_or_default();
    let message = error.message.filter(|m| !m.trim().is_empty()).unwrap_or_else(|| match kind.as_str() {
        "" => "an unspecified error".to_string(),
        kind => kind.to_string(),
    });
    ProviderError::Http { status: error_status(&kind), message }
}

/// The HTTP status the API uses for an error type; unknown types mid-stream count as a server fault.
pub(super) fn error_status(kind: &str) -> u16 {
    match kind {
        "invalid_request_error" => 400,
        "authentication_error" => 401,
        "billing_error" => 402,
        "permission_error" => 403,
        "not_found_error" => 404,
        "request_too_large" => 413,
        "rate_limit_error" => 429,
        "timeout_error" => 504,
        "overloaded_error" => 529,
        _ => 500,
    }
}

#[derive(Debug, Deserialize)]
struct WholeMessage {
    #[serde(default)]
    content: Vec<Value>,
}

/// The text of a whole (non-streamed) message: its text blocks joined.
pub(super) fn completion_text(body: &str) -> Result<String, ProviderError> {
    let message: WholeMessage = serde_json::from_str(body)
        .map_err(|e| ProviderError::Stream(format!("the model server's answer is not valid JSON ({e})")))?;
    let texts: Vec<&str> = message
        .content
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    if texts.is_empty() {
        return Err(ProviderError::Stream("the model server's answer has no text".to_string()));
    }
    Ok(texts.concat())
}

/// The human message in an error body `{"type": "error", "error": {"type", "message"}}`: the message,
/// else the error type; other bodies are read as the OpenAI-compatible provider reads them.
pub(super) fn error_message(body: &str) -> Option<String> {
    if let Ok(json) = serde_json::from_str::<Value>(body) {
        if let Some(error) = json.get("error").filter(|e| e.is_object()) {
            let text = |key: &str| error.get(key).and_then(Value::as_str).filter(|s| !s.trim().is_empty());
            if let Some(found) = text("message").or_else(|| text("type")) {
                return Some(found.to_string());
            }
        }
    }
    super::openai_wire::error_message(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(call_id: &str, arguments: Value) -> Block {
        Block::ToolCall {
            id: format!("our-{call_id}").into(),
            call_id: call_id.into(),
            name: "read_file".into(),
            arguments,
        }
    }

    fn result(call_id: &str, content: Vec<ToolContent>, is_error: bool) -> Block {
        Block::ToolResult { tool_call_id: format!("our-{call_id}").into(), call_id: call_id.into(), content, is_error }
    }

    fn text(t: &str) -> ToolContent {
        ToolContent::Text { text: t.into() }
    }

    fn msg(role: Role, content: Vec<Block>) -> Message {
        Message { role, content }
    }

    fn decode(events: &[(&str, Value)]) -> Vec<Result<Decoded, ProviderError>> {
        let mut decoder = EventDecoder::default();
        events.iter().map(|(name, data)| decoder.read(name, &data.to_string())).collect()
    }

    #[test]
    fn system_messages_go_on_top_and_roles_alternate_with_results_before_text() {
        let messages = vec![
            Message::text(Role::System, "Be careful."),
            Message::text(Role::User, "read a"),
            Message::text(Role::User, "and b"),
            msg(Role::Assistant, vec![Block::Text { text: "Reading.".into() }, call("c1", json!({"path": "a"}))]),
            msg(Role::Assistant, vec![call("c2", json!({"path": "b"}))]),
            Message::text(Role::System, "Answer briefly."),
            msg(Role::Tool, vec![result("c1", vec![text("A")], false)]),
            Message::text(Role::User, "quick!"),
            msg(Role::Tool, vec![result("c2", vec![], true)]),
        ];
        assert_eq!(system_text(&messages).as_deref(), Some("Be careful.\n\nAnswer briefly."));
        let wire = serde_json::to_value(wire_messages(&messages)).unwrap();
        assert_eq!(
            wire,
            json!([
                {"role": "user", "content": [{"type": "text", "text": "read a"}, {"type": "text", "text": "and b"}]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "Reading."},
                    {"type": "tool_use", "id": "c1", "name": "read_file", "input": {"path": "a"}},
                    {"type": "tool_use", "id": "c2", "name": "read_file", "input": {"path": "b"}}
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "c1", "content": [{"type": "text", "text": "A"}], "is_error": false},
                    {"type": "tool_result", "tool_use_id": "c2", "content": [{"type": "text", "text": "(no output)"}], "is_error": true},
                    {"type": "text", "text": "quick!"}
                ]}
            ])
        );
    }

    #[test]
    fn blank_text_and_empty_turns_are_not_sent() {
        let messages = vec![
            Message::text(Role::User, "hi"),
            Message::text(Role::Assistant, "  "),
            Message::text(Role::User, "there"),
            Message::text(Role::System, " "),
        ];
        let wire = wire_messages(&messages);
        assert_eq!(wire.len(), 1);
        assert_eq!(wire[0].content.len(), 2);
        assert_eq!(system_text(&messages), None);
    }

    #[test]
    fn images_go_as_base64_blocks_and_unsupported_ones_as_words() {
        let content = vec![
            text("shot"),
            ToolContent::Image { mime_type: "image/png".into(), data: "AAAA".into() },
            ToolContent::Image { mime_type: "image/svg+xml".into(), data: "PHN2Zz4=".into() },
            ToolContent::Resource { uri: "file:///a".into(), mime_type: None, text: Some("body".into()) },
            ToolContent::Resource { uri: "file:///b".into(), mime_type: None, text: None },
            text(""),
        ];
        let blocks = serde_json::to_value(result_blocks(&content)).unwrap();
        assert_eq!(
            blocks,
            json!([
                {"type": "text", "text": "shot"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}},
                {"type": "text", "text": "[image: image/svg+xml, a type the model cannot be shown]"},
                {"type": "text", "text": "body"},
                {"type": "text", "text": "[resource file:///b]"}
            ])
        );
    }

    #[test]
    fn call_ids_from_other_providers_are_made_acceptable_the_same_way_for_call_and_result() {
        assert_eq!(wire_id("toolu_01A-b"), "toolu_01A-b");
        assert_eq!(wire_id("call:1/x"), "call_1_x");
        assert_eq!(wire_id(""), "call");
        let messages = vec![
            msg(Role::Assistant, vec![call("fn.1", json!({}))]),
            msg(Role::Tool, vec![result("fn.1", vec![text("ok")], false)]),
        ];
        let wire = serde_json::to_value(wire_messages(&messages)).unwrap();
        assert_eq!(wire[0]["content"][0]["id"], "fn_1");
        assert_eq!(wire[1]["content"][0]["tool_use_id"], "fn_1");
    }

    #[test]
    fn tool_schemas_get_an_object_top_level_without_combinators() {
        assert_eq!(
            input_schema(&json!({"properties": {"a": {"type": "string"}}})),
            json!({"type": "object", "properties": {"a": {"type": "string"}}})
        );
        assert_eq!(input_schema(&json!({"type": "string"})), json!({"type": "object", "properties": {}}));
        assert_eq!(input_schema(&Value::Null), json!({"type": "object", "properties": {}}));
        assert_eq!(input_schema(&json!({"type": ["object", "null"]}))["type"], "object");
        let flattened = input_schema(&json!({
            "type": "object",
            "$schema": "http://json-schema.org/draft-07/schema#",
            "properties": {"mode": {"type": "string"}},
            "required": ["mode"],
            "anyOf": [
                {"properties": {"path": {"type": "string"}}, "required": ["path"]},
                {"properties": {"url": {"type": "string"}, "mode": {"type": "number"}}, "required": ["url"]}
            ],
            "allOf": [{"properties": {"depth": {"type": "integer"}}, "required": ["depth"]}]
        }));
        assert_eq!(
            flattened,
            json!({
                "type": "object",
                "$schema": "http://json-schema.org/draft-07/schema#",
                "properties": {
                    "mode": {"type": "string"}, "path": {"type": "string"},
                    "url": {"type": "string"}, "depth": {"type": "integer"}
                },
                "required": ["mode", "depth"]
            })
        );
    }

    #[test]
    fn text_and_tool_use_blocks_stream_by_content_block_index() {
        let decoded = decode(&[
            ("message_start", json!({"type": "message_start", "message": {"id": "m", "content": []}})),
            (
                "content_block_start",
                json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            ),
            ("ping", json!({"type": "ping"})),
            (
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}}),
            ),
            ("content_block_stop", json!({"type": "content_block_stop", "index": 0})),
            (
                "content_block_start",
                json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "a", "input": {}}}),
            ),
            (
                "content_block_start",
                json!({"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "toolu_2", "name": "b", "input": {}}}),
            ),
            (
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "{\"x\""}}),
            ),
            (
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": ""}}),
            ),
            (
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{}"}}),
            ),
        ]);
        let events: Vec<StreamEvent> = decoded.into_iter().flat_map(|d| d.unwrap().events).collect();
        assert_eq!(
            events,
            vec![
                StreamEvent::TextDelta("Hi".into()),
                StreamEvent::ToolCallDelta {
                    index: 1,
                    call_id: Some("toolu_1".into()),
                    name: Some("a".into()),
                    arguments: String::new()
                },
                StreamEvent::ToolCallDelta {
                    index: 2,
                    call_id: Some("toolu_2".into()),
                    name: Some("b".into()),
                    arguments: String::new()
                },
                StreamEvent::ToolCallDelta { index: 2, call_id: None, name: None, arguments: "{\"x\"".into() },
                StreamEvent::ToolCallDelta { index: 1, call_id: None, name: None, arguments: "{}".into() },
            ]
        );
    }

    #[test]
    fn a_tool_input_given_whole_at_the_start_is_sent_when_no_deltas_follow() {
        let decoded = decode(&[
            (
                "content_block_start",
                json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t", "name": "a", "input": {"p": 1}}}),
            ),
            ("content_block_stop", json!({"type": "content_block_stop", "index": 0})),
        ]);
        let last = decoded.into_iter().last().unwrap().unwrap();
        assert_eq!(
            last.events,
            vec![StreamEvent::ToolCallDelta { index: 0, call_id: None, name: None, arguments: "{\"p\":1}".into() }]
        );
    }

    #[test]
    fn thinking_and_unknown_events_are_skipped() {
        let decoded = decode(&[
            (
                "content_block_start",
                json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
            ),
            (
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "hmm"}}),
            ),
            (
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "x"}}),
            ),
            ("brand_new", json!({"type": "brand_new", "stuff": 1})),
        ]);
        for d in decoded {
            let d = d.unwrap();
            assert!(d.events.is_empty() && d.finish.is_none() && !d.end);
        }
    }

    #[test]
    fn stop_reasons_finish_and_message_stop_ends() {
        let decoded = decode(&[
            (
                "message_delta",
                json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 3}}),
            ),
            ("message_stop", json!({"type": "message_stop"})),
        ]);
        let decoded: Vec<Decoded> = decoded.into_iter().map(Result::unwrap).collect();
        assert_eq!(decoded[0].finish, Some(FinishReason::ToolCalls));
        assert!(decoded[1].end);
        assert_eq!(finish_reason("end_turn"), FinishReason::Stop);
        assert_eq!(finish_reason("stop_sequence"), FinishReason::Stop);
        assert_eq!(finish_reason("max_tokens"), FinishReason::Length);
        assert_eq!(finish_reason("pause_turn"), FinishReason::Other("pause_turn".into()));
        assert_eq!(finish_reason("refusal"), FinishReason::Other("refusal".into()));
    }

    #[test]
    fn the_event_name_stands_in_for_a_missing_type() {
        let mut decoder = EventDecoder::default();
        assert!(decoder.read("message_stop", "{}").unwrap().end);
    }

    #[test]
    fn error_events_are_http_errors_with_the_status_their_type_implies() {
        let mut decoder = EventDecoder::default();
        let overloaded = json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}});
        let err = decoder.read("error", &overloaded.to_string()).unwrap_err();
        assert_eq!(err, ProviderError::Http { status: 529, message: "Overloaded".into() });
        assert!(err.is_retryable());
        let limited = json!({"type": "error", "error": {"type": "rate_limit_error", "message": ""}});
        let err = decoder.read("error", &limited.to_string()).unwrap_err();
        assert_eq!(err, ProviderError::Http { status: 429, message: "rate_limit_error".into() });
        assert_eq!(error_status("api_error"), 500);
        assert_eq!(error_status("something_new"), 500);
    }

    #[test]
    fn malformed_events_are_stream_errors() {
        let mut decoder = EventDecoder::default();
        assert!(matches!(decoder.read("x", "{not json"), Err(ProviderError::Stream(_))));
        let no_index = json!({"type": "content_block_delta", "delta": {"type": "text_delta", "text": "a"}});
        assert!(matches!(decoder.read("content_block_delta", &no_index.to_string()), Err(ProviderError::Stream(_))));
    }

    #[test]
    fn a_whole_message_reads_as_its_text_blocks() {
        let body = json!({"type": "message", "content": [
            {"type": "text", "text": "Weather "}, {"type": "tool_use", "id": "t", "name": "f", "input": {}},
            {"type": "text", "text": "talk"}
        ]});
        assert_eq!(completion_text(&body.to_string()).unwrap(), "Weather talk");
        assert!(matches!(completion_text(r#"{"content": []}"#), Err(ProviderError::Stream(_))));
    }

    #[test]
    fn error_messages_come_from_the_error_object_or_the_body() {
        let body = json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}});
        assert_eq!(error_message(&body.to_string()).as_deref(), Some("invalid x-api-key"));
        let body = json!({"type": "error", "error": {"type": "overloaded_error", "message": ""}});
        assert_eq!(error_message(&body.to_string()).as_deref(), Some("overloaded_error"));
        assert_eq!(error_message("upstream connect error").as_deref(), Some("upstream connect error"));
        assert_eq!(error_message(""), None);
    }

    #[test]
    fn the_request_body_has_the_fields_the_api_requires() {
        let tools = vec![ToolSpec { name: "t".into(), description: String::new(), parameters: json!({}) }];
        let body = MessagesRequest {
            model: "claude-x",
            max_tokens: 4096,
            system: None,
            messages: wire_messages(&[Message::text(Role::User, "hi")]),
            tools: wire_tools(&tools),
            stream: true,
        };
        assert_eq!(
            serde_json::to_value(&body).unwrap(),
            json!({
                "model": "claude-x", "max_tokens": 4096, "stream": true,
                "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
                "tools": [{"name": "t", "input_schema": {"type": "object"}}]
            })
        );
    }
}
