//! The OpenAI Chat Completions wire format: request bodies built from our `Message`s, the streamed
//! chunks and whole completions read back, and error bodies. These types never leave `llm/`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{FinishReason, ProviderError, StreamEvent};
use warden_types::message::{Block, Message, Role};
use warden_types::tool::{ToolContent, ToolSpec};

#[derive(Debug, Serialize)]
pub(super) struct ChatRequest<'a> {
    pub model: &'a str,
    pub messages: Vec<WireMessage>,
    pub stream: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<WireTool<'a>>,
}

#[derive(Debug, Serialize, PartialEq)]
#[serde(tag = "role", rename_all = "snake_case")]
pub(super) enum WireMessage {
    System {
        content: String,
    },
    User {
        content: String,
    },
    /// A user message made of parts; used to hand tool-returned images to vision models.
    #[serde(rename = "user")]
    UserParts {
        content: Vec<ContentPart>,
    },
    Assistant {
        content: Option<String>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<WireToolCall>,
    },
    Tool {
        tool_call_id: String,
        content: String,
    },
}

#[derive(Debug, Serialize, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(super) enum ContentPart {
    Text { text: String },
    ImageUrl { image_url: ImageUrl },
}

#[derive(Debug, Serialize, PartialEq)]
pub(super) struct ImageUrl {
    pub url: String,
}

#[derive(Debug, Serialize, PartialEq)]
pub(super) struct WireToolCall {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub function: WireFunction,
}

#[derive(Debug, Serialize, PartialEq)]
pub(super) struct WireFunction {
    pub name: String,
    /// A JSON document as a string, as the API wants it.
    pub arguments: String,
}

#[derive(Debug, Serialize)]
pub(super) struct WireTool<'a> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub function: WireToolSpec<'a>,
}

#[derive(Debug, Serialize)]
pub(super) struct WireToolSpec<'a> {
    pub name: &'a str,
    pub description: &'a str,
    pub parameters: &'a Value,
}

pub(super) fn wire_tools(tools: &[ToolSpec]) -> Vec<WireTool<'_>> {
    tools
        .iter()
        .map(|t| WireTool {
            kind: "function",
            function: WireToolSpec { name: &t.name, description: &t.description, parameters: &t.parameters },
        })
        .collect()
}

/// Our conversation as Chat Completions messages. Each tool result becomes a `tool` message; images
/// in a run of tool results follow it in one extra user message, since `tool` messages carry text only.
pub(super) fn wire_messages(messages: &[Message]) -> Vec<WireMessage> {
    let mut out = Vec::new();
    let mut images: Vec<ContentPart> = Vec::new();
    for message in messages {
        let main = match message.role {
            Role::System => Some(WireMessage::System { content: message.joined_text() }),
            Role::User => Some(WireMessage::User { content: message.joined_text() }),
            Role::Assistant => Some(assistant(message)),
            Role::Tool => None,
        };
        if let Some(main) = main {
            flush_images(&mut out, &mut images);
            out.push(main);
        }
        for block in &message.content {
            if let Block::ToolResult { call_id, content, is_error, .. } = block {
                out.push(WireMessage::Tool { tool_call_id: call_id.clone(), content: tool_text(content, *is_error) });
                collect_images(call_id, content, &mut images);
            }
        }
    }
    flush_images(&mut out, &mut images);
    out
}

fn assistant(message: &Message) -> WireMessage {
    let tool_calls: Vec<WireToolCall> = message
        .content
        .iter()
        .filter_map(|b| match b {
            Block::ToolCall { call_id, name, arguments, .. } => Some(WireToolCall {
                id: call_id.clone(),
                kind: "function",
                function: WireFunction { name: name.clone(), arguments: arguments_string(arguments) },
            }),
            _ => None,
        })
        .collect();
    let text = message.joined_text();
    let content = if text.is_empty() && !tool_calls.is_empty() { None } else { Some(text) };
    WireMessage::Assistant { content, tool_calls }
}

/// Arguments the model sent as invalid JSON are kept as a JSON string; they go back raw.
fn arguments_string(arguments: &Value) -> String {
    match arguments {
        Value::String(raw) => raw.clone(),
        other => other.to_string(),
    }
}

/// A tool's result as the text a model reads (for APIs and models that take tool results as text).
pub fn tool_text(content: &[ToolContent], is_error: bool) -> String {
    let parts: Vec<String> = content
        .iter()
        .map(|c| match c {
            ToolContent::Text { text } => text.clone(),
            ToolContent::Resource { text: Some(text), .. } => text.clone(),
            ToolContent::Resource { uri, text: None, .. } => format!("[resource {uri}]"),
            ToolContent::Image { mime_type, .. } => format!("[image: {mime_type}]"),
        })
        .collect();
    let text = if parts.is_empty() { "(no output)".to_string() } else { parts.join("\n") };
    if is_error {
        format!("Error: {text}")
    } else {
        text
    }
}

fn collect_images(call_id: &str, content: &[ToolContent], images: &mut Vec<ContentPart>) {
    let mut found = content.iter().filter_map(|c| match c {
        ToolContent::Image { mime_type, data } => {
            Some(ContentPart::ImageUrl { image_url: ImageUrl { url: format!("data:{mime_type};base64,{data}") } })
        }
        _ => None,
    });
    if let Some(first) = found.next() {
        images.push(ContentPart::Text { text: format!("Images returned by tool call {call_id}:") });
        images.push(first);
        images.extend(found);
    }
}

fn flush_images(out: &mut Vec<WireMessage>, images: &mut Vec<ContentPart>) {
    if !images.is_empty() {
        out.push(WireMessage::UserParts { content: std::mem::take(images) });
    }
}

#[derive(Debug, Deserialize)]
struct Chunk {
    choices: Option<Vec<ChunkChoice>>,
    error: Option<Value>,
}

#[derive(Debug, Deserialize)]
struct ChunkChoice {
    index: Option<u32>,
    delta: Option<Delta>,
    finish_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Delta {
    content: Option<String>,
    tool_calls: Option<Vec<ToolCallChunk>>,
}

#[derive(Debug, Deserialize)]
struct ToolCallChunk {
    index: Option<u32>,
    id: Option<String>,
    function: Option<FunctionChunk>,
}

#[derive(Debug, Deserialize)]
struct FunctionChunk {
    name: Option<String>,
    arguments: Option<String>,
}

/// What one streamed chunk said: deltas, and the finish reason if it carried one.
#[derive(Debug, Default, PartialEq)]
pub(super) struct ChunkEvents {
    pub events: Vec<StreamEvent>,
    pub finish: Option<FinishReason>,
}

/// Reads one `data:` payload (not `[DONE]`). Only choice 0 counts; chunks without choices (usage) are empty.
pub(super) fn parse_chunk(data: &str) -> Result<ChunkEvents, ProviderError> {
    let chunk: Chunk = serde_json::from_str(data)
        .map_err(|e| ProviderError::Stream(format!("the model server sent a chunk that is not valid JSON ({e})")))?;
    if let Some(error) = chunk.error {
        let message = message_in(&error).unwrap_or_else(|| error.to_string());
        return Err(ProviderError::Stream(format!("the model server reported an error: {message}")));
    }
    let mut out = ChunkEvents::default();
    let Some(choice) = chunk.choices.into_iter().flatten().find(|c| c.index.unwrap_or(0) == 0) else {
        return Ok(out);
    };
    if let Some(delta) = choice.delta {
        if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
            out.events.push(StreamEvent::TextDelta(text));
        }
        for (position, call) in delta.tool_calls.into_iter().flatten().enumerate() {
            let function = call.function;
            let (name, arguments) = match function {
                Some(f) => (f.name, f.arguments.unwrap_or_default()),
                None => (None, String::new()),
            };
            out.events.push(StreamEvent::ToolCallDelta {
                // A few servers leave out the index; their calls come one per position.
                index: call.index.unwrap_or(position as u32),
                call_id: call.id,
                name,
                arguments,
            });
        }
    }
    out.finish = choice.finish_reason.filter(|r| !r.is_empty()).map(|r| FinishReason::from_wire(&r));
    Ok(out)
}

#[derive(Debug, Deserialize)]
struct Completion {
    choices: Option<Vec<CompletionChoice>>,
}

#[derive(Debug, Deserialize)]
struct CompletionChoice {
    message: Option<CompletionMessage>,
}

#[derive(Debug, Deserialize)]
struct CompletionMessage {
    content: Option<String>,
}

/// The text of a whole (non-streamed) completion.
pub(super) fn completion_text(body: &str) -> Result<String, ProviderError> {
    let completion: Completion = serde_json::from_str(body)
        .map_err(|e| ProviderError::Stream(format!("the model server's answer is not valid JSON ({e})")))?;
    completion
        .choices
        .into_iter()
        .flatten()
        .next()
        .and_then(|c| c.message)
        .and_then(|m| m.content)
        .ok_or_else(|| ProviderError::Stream("the model server's answer has no text".to_string()))
}

/// The human message in an error body: `error.message`, `error`, `message` or `detail`, else the
/// body text itself (shortened), else nothing.
/// The ids of a `GET /models` answer (`{"data": [{"id": ...}]}`), sorted.
pub(super) fn model_ids(body: &str) -> Result<Vec<String>, ProviderError> {
    #[derive(Deserialize)]
    struct Models {
        data: Vec<ModelId>,
    }
    #[derive(Deserialize)]
    struct ModelId {
        id: String,
    }
    let models: Models = serde_json::from_str(body)
        .map_err(|e| ProviderError::Stream(format!("the model list is not in the expected shape ({e})")))?;
    let mut ids: Vec<String> = models.data.into_iter().map(|m| m.id).collect();
    ids.sort();
    ids.dedup();
    Ok(ids)
}

pub(super) fn error_message(body: &str) -> Option<String> {
    if let Ok(json) = serde_json::from_str::<Value>(body) {
        if let Some(message) = json.get("error").and_then(message_in).or_else(|| message_in(&json)) {
            return Some(message);
        }
    }
    let text = body.trim();
    if text.is_empty() {
        return None;
    }
    const LIMIT: usize = 300;
    Some(match text.char_indices().nth(LIMIT) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    })
}

fn message_in(value: &Value) -> Option<String> {
    match value {
        Value::String(s) if !s.trim().is_empty() => Some(s.clone()),
        Value::Object(map) => ["message", "detail", "error"]
            .iter()
            .find_map(|k| map.get(*k).and_then(Value::as_str))
            .filter(|s| !s.trim().is_empty())
            .map(str::to_string),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool_result(call_id: &str, content: Vec<ToolContent>, is_error: bool) -> Block {
        Block::ToolResult { tool_call_id: format!("our-{call_id}").into(), call_id: call_id.into(), content, is_error }
    }

    #[test]
    fn assistant_tool_calls_and_results_go_out_in_the_openai_shape() {
        let messages = vec![
            Message::text(Role::User, "read it"),
            Message {
                role: Role::Assistant,
                content: vec![Block::ToolCall {
                    id: "ours".into(),
                    call_id: "call_1".into(),
                    name: "read_file".into(),
                    arguments: json!({"path": "a.txt"}),
                }],
            },
            Message {
                role: Role::Tool,
                content: vec![tool_result("call_1", vec![ToolContent::Text { text: "hello".into() }], false)],
            },
        ];
        let wire = serde_json::to_value(wire_messages(&messages)).unwrap();
        assert_eq!(
            wire,
            json!([
                {"role": "user", "content": "read it"},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"a.txt\"}"}}
                ]},
                {"role": "tool", "tool_call_id": "call_1", "content": "hello"}
            ])
        );
    }

    #[test]
    fn images_from_tool_results_follow_all_tool_messages_in_one_user_message() {
        let image = || ToolContent::Image { mime_type: "image/png".into(), data: "AAAA".into() };
        let messages = vec![Message {
            role: Role::Tool,
            content: vec![
                tool_result("c1", vec![ToolContent::Text { text: "shot".into() }, image()], false),
                tool_result("c2", vec![image()], true),
            ],
        }];
        let wire = serde_json::to_value(wire_messages(&messages)).unwrap();
        assert_eq!(wire[0], json!({"role": "tool", "tool_call_id": "c1", "content": "shot\n[image: image/png]"}));
        assert_eq!(wire[1], json!({"role": "tool", "tool_call_id": "c2", "content": "Error: [image: image/png]"}));
        assert_eq!(wire[2]["role"], "user");
        let parts = wire[2]["content"].as_array().unwrap();
        assert_eq!(parts.iter().filter(|p| p["type"] == "image_url").count(), 2);
        assert_eq!(parts[1]["image_url"]["url"], "data:image/png;base64,AAAA");
        assert_eq!(wire.as_array().unwrap().len(), 3);
    }

    #[test]
    fn resources_show_their_text_or_their_uri() {
        let content = vec![
            ToolContent::Resource { uri: "file:///a".into(), mime_type: None, text: Some("body".into()) },
            ToolContent::Resource { uri: "file:///b".into(), mime_type: None, text: None },
        ];
        assert_eq!(tool_text(&content, false), "body\n[resource file:///b]");
    }

    #[test]
    fn raw_invalid_arguments_are_sent_back_as_they_came() {
        assert_eq!(arguments_string(&json!("{oops")), "{oops");
    }

    #[test]
    fn usage_chunks_without_choices_yield_nothing() {
        let parsed = parse_chunk(r#"{"choices":[],"usage":{"total_tokens":3}}"#).unwrap();
        assert_eq!(parsed, ChunkEvents::default());
    }

    #[test]
    fn a_chunk_with_text_tool_delta_and_finish_reason_is_read_whole() {
        let parsed = parse_chunk(
            r#"{"choices":[{"index":0,"delta":{"content":"hi","tool_calls":[{"index":2,"id":"c","type":"function","function":{"name":"f","arguments":"{"}}]},"finish_reason":"length"}]}"#,
        )
        .unwrap();
        assert_eq!(parsed.events[0], StreamEvent::TextDelta("hi".into()));
        assert_eq!(
            parsed.events[1],
            StreamEvent::ToolCallDelta {
                index: 2,
                call_id: Some("c".into()),
                name: Some("f".into()),
                arguments: "{".into()
            }
        );
        assert_eq!(parsed.finish, Some(FinishReason::Length));
    }

    #[test]
    fn malformed_chunks_and_in_stream_errors_are_stream_errors() {
        assert!(matches!(parse_chunk("{not json"), Err(ProviderError::Stream(_))));
        let err = parse_chunk(r#"{"error":{"message":"overloaded"}}"#).unwrap_err();
        assert!(err.to_string().contains("overloaded"), "{err}");
    }

    #[test]
    fn error_messages_come_from_json_bodies_or_plain_text() {
        assert_eq!(error_message(r#"{"error":{"message":"Bad key","type":"x"}}"#).as_deref(), Some("Bad key"));
        assert_eq!(error_message(r#"{"error":"model not found"}"#).as_deref(), Some("model not found"));
        assert_eq!(error_message(r#"{"detail":"Not Found"}"#).as_deref(), Some("Not Found"));
        assert_eq!(error_message("  upstream down \n").as_deref(), Some("upstream down"));
        assert_eq!(error_message(""), None);
    }
}
