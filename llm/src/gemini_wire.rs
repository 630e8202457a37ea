//! Gemini's `generateContent` wire format: request bodies built from our `Message`s (system prompt as
//! `systemInstruction`, `user`/`model` contents, `functionCall`/`functionResponse` parts), the streamed
//! `GenerateContentResponse` chunks and whole answers read back, and Google's error bodies. These types
//! never leave `llm/`.
//!
//! Gemini's classic API gives calls no ids: a result is matched to its call by name and order. A call
//! id the API does send is kept. Gemini 3 also signs function calls (`thoughtSignature`) and refuses a
//! history whose calls lost their signature; our messages have no field for it, so the signature rides
//! in the call id we store (`<id>#sig:<signature>`) and goes back on the call's part.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::call_arguments::tool_input;
use super::gemini_schema;
use super::openai_wire::tool_text;
use super::{FinishReason, ProviderError, StreamEvent};
use warden_types::message::{Block, Message, Role};
use warden_types::tool::{ToolContent, ToolSpec};

/// Ids we make for calls the API sent without one.
const GENERATED_ID: &str = "gemini-call-";
/// Separates a call's id from its thought signature in the call id we store.
const SIGNATURE: &str = "#sig:";

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct GenerateRequest<'a> {
    pub contents: Vec<Content>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_instruction: Option<Content>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<WireTool<'a>>,
}

#[derive(Debug, Serialize, PartialEq)]
pub(super) struct Content {
    /// `user` or `model`; none for the system instruction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<&'static str>,
    pub parts: Vec<Part>,
}

#[derive(Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(super) struct Part {
    #[serde(flatten)]
    pub data: PartData,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thought_signature: Option<String>,
}

#[derive(Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(super) enum PartData {
    Text(String),
    FunctionCall(FunctionCall),
    FunctionResponse(FunctionResponse),
    InlineData(Blob),
}

#[derive(Debug, Serialize, PartialEq)]
pub(super) struct FunctionCall {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub name: String,
    /// Always a JSON object (Gemini's `Struct`).
    pub args: Value,
}

#[derive(Debug, Serialize, PartialEq)]
pub(super) struct FunctionResponse {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub name: String,
    /// `{"output": text}`, or `{"error": text}` when the tool failed (Gemini's convention).
    pub response: Value,
}

#[derive(Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(super) struct Blob {
    pub mime_type: String,
    /// Base64, as our image content already is.
    pub data: String,
}

impl Part {
    fn text(text: impl Into<String>) -> Self {
        Self { data: PartData::Text(text.into()), thought_signature: None }
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct WireTool<'a> {
    pub function_declarations: Vec<FunctionDeclaration<'a>>,
}

#[derive(Debug, Serialize)]
pub(super) struct FunctionDeclaration<'a> {
    pub name: &'a str,
    pub description: &'a str,
    /// Left out for a tool without arguments (Gemini refuses an object schema without properties).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Value>,
}

/// All tools in one `Tool` of function declarations, schemas rewritten to what Gemini accepts.
pub(super) fn wire_tools(tools: &[ToolSpec]) -> Vec<WireTool<'_>> {
    if tools.is_empty() {
        return Vec::new();
    }
    let function_declarations = tools
        .iter()
        .map(|t| FunctionDeclaration {
            name: &t.name,
            description: &t.description,
            parameters: gemini_schema::parameters(&t.parameters),
        })
        .collect();
    vec![WireTool { function_declarations }]
}

/// Our conversation as Gemini contents: system messages become the system instruction, assistant
/// messages `model` contents, user messages and tool results `user` contents; neighbours of the same
/// role are merged, and nothing empty is sent.
pub(super) fn wire_contents(messages: &[Message]) -> (Option<Content>, Vec<Content>) {
    let mut system = Vec::new();
    let mut contents: Vec<Content> = Vec::new();
    // Our call id -> tool name, for results (Gemini names the function a response answers).
    let mut names: HashMap<&str, &str> = HashMap::new();
    for message in messages {
        if message.role == Role::System {
            let text = message.joined_text();
            if !text.trim().is_empty() {
                system.push(text);
            }
            continue;
        }
        let role = if message.role == Role::Assistant { "model" } else { "user" };
        let mut parts = Vec::new();
        let mut images = Vec::new();
        for block in &message.content {
            match block {
                Block::Text { text } if !text.is_empty() => parts.push(Part::text(text.clone())),
                Block::Text { .. } => {}
                Block::ToolCall { id, call_id, name, arguments } => {
                    names.insert(id.as_str(), name);
                    let (wire_id, signature) = split_call_id(call_id);
                    parts.push(Part {
                        data: PartData::FunctionCall(FunctionCall {
                            id: wire_id.map(str::to_string),
                            name: name.clone(),
                            args: tool_input(arguments),
                        }),
                        thought_signature: signature.map(str::to_string),
                    });
                }
                Block::ToolResult { tool_call_id, call_id, content, is_error } => {
                    let name = names.get(tool_call_id.as_str()).copied().unwrap_or("unknown_tool");
                    let text = tool_text(content, false);
                    let key = if *is_error { "error" } else { "output" };
                    parts.push(Part {
                        data: PartData::FunctionResponse(FunctionResponse {
                            id: split_call_id(call_id).0.map(str::to_string),
                            name: name.to_string(),
                            response: Value::Object(Map::from_iter([(key.to_string(), Value::String(text))])),
                        }),
                        thought_signature: None,
                    });
                    collect_images(name, content, &mut images);
                }
            }
        }
        // Images a tool returned follow the function responses, as inline data in the same content.
        parts.extend(images);
        match contents.last_mut() {
            _ if parts.is_empty() => {}
            Some(last) if last.role == Some(role) => last.parts.extend(parts),
            _ => contents.push(Content { role: Some(role), parts }),
        }
    }
    let system = (!system.is_empty()).then(|| Content { role: None, parts: vec![Part::text(system.join("\n\n"))] });
    (system, contents)
}

fn collect_images(name: &str, content: &[ToolContent], images: &mut Vec<Part>) {
    let mut found = content
        .iter()
        .filter_map(|c| match c {
            ToolContent::Image { mime_type, data } => Some(Part {
                data: PartData::InlineData(Blob { mime_type: mime_type.clone(), data: data.clone() }),
                thought_signature: None,
            }),
            _ => None,
        })
        .peekable();
    if found.peek().is_some() {
        images.push(Part::text(format!("Images returned by the {name} call:")));
        images.extend(found);
    }
}

/// The call id we store for a call: the API's id or one we make, and the thought signature if any.
pub(super) fn call_id(wire_id: Option<&str>, index: u32, signature: Option<&str>) -> String {
    let id = match wire_id.filter(|id| !id.is_empty()) {
        Some(id) => id.to_string(),
        None => format!("{GENERATED_ID}{index}"),
    };
    match signature.filter(|s| !s.is_empty()) {
        Some(signature) => format!("{id}{SIGNATURE}{signature}"),
        None => id,
    }
}

/// The API's own id for a stored call id (none for ids we made) and its thought signature.
fn split_call_id(call_id: &str) -> (Option<&str>, Option<&str>) {
    let (id, signature) = match call_id.split_once(SIGNATURE) {
        Some((id, signature)) => (id, Some(signature).filter(|s| !s.is_empty())),
        None => (call_id, None),
    };
    let wire_id = Some(id).filter(|id| !id.is_empty() && !id.starts_with(GENERATED_ID));
    (wire_id, signature)
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Response {
    candidates: Option<Vec<Candidate>>,
    prompt_feedback: Option<PromptFeedback>,
    error: Option<WireError>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Candidate {
    index: Option<u32>,
    content: Option<CandidateContent>,
    finish_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
struct CandidateContent {
    parts: Option<Vec<ResponsePart>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ResponsePart {
    text: Option<String>,
    /// A thought summary, not the answer.
    thought: Option<bool>,
    function_call: Option<ResponseCall>,
    thought_signature: Option<String>,
}

#[derive(Debug, Deserialize)]
struct ResponseCall {
    id: Option<String>,
    name: Option<String>,
    args: Option<Value>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PromptFeedback {
    block_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
struct WireError {
    code: Option<u16>,
    message: Option<String>,
    status: Option<String>,
}

impl WireError {
    fn into_provider_error(self) -> ProviderError {
        let status = match self.code.filter(|c| (400..600).contains(c)) {
            Some(code) => code,
            None => self.status.as_deref().map_or(500, status_code),
        };
        let message =
            self.message.filter(|m| !m.trim().is_empty()).or(self.status).unwrap_or_else(|| "no details given".into());
        ProviderError::Http { status, message }
    }
}

/// The HTTP status a Google RPC status name stands for.
fn status_code(status: &str) -> u16 {
    match status {
        "INVALID_ARGUMENT" | "FAILED_PRECONDITION" | "OUT_OF_RANGE" => 400,
        "UNAUTHENTICATED" => 401,
        "PERMISSION_DENIED" => 403,
        "NOT_FOUND" => 404,
        "ABORTED" | "ALREADY_EXISTS" => 409,
        "RESOURCE_EXHAUSTED" => 429,
        "CANCELLED" => 499,
        "UNIMPLEMENTED" => 501,
        "UNAVAILABLE" => 503,
        "DEADLINE_EXCEEDED" => 504,
        _ => 500,
    }
}

fn parse(data: &str, what: &str) -> Result<Response, ProviderError> {
    let response: Response = serde_json::from_str(data)
        .map_err(|e| ProviderError::Stream(format!("Gemini sent {what} that is not valid JSON ({e})")))?;
    if let Some(error) = response.error {
        return Err(error.into_provider_error());
    }
    if let Some(reason) = response.prompt_feedback.as_ref().and_then(|f| f.block_reason.as_deref()) {
        // Sending the same prompt again gets the same answer: a client error, not a retryable one.
        return Err(ProviderError::Http {
            status: 400,
            message: format!("Gemini blocked the prompt (reason: {reason})."),
        });
    }
    Ok(response)
}

/// The first candidate (Gemini sends one unless asked for more).
fn first_candidate(response: Response) -> Option<Candidate> {
    response.candidates.into_iter().flatten().find(|c| c.index.unwrap_or(0) == 0)
}

/// What one streamed chunk said: deltas, and the finish reason if it carried one.
#[derive(Debug, Default, PartialEq)]
pub(super) struct ChunkEvents {
    pub events: Vec<StreamEvent>,
    pub finish: Option<FinishReason>,
}

/// Reads the chunks of one streamed turn. Each `functionCall` part arrives whole, so it becomes one
/// complete `ToolCallDelta`; calls are numbered across the turn.
#[derive(Debug, Default)]
pub(super) struct ChunkReader {
    calls: u32,
}

impl ChunkReader {
    /// Reads one `data:` payload; an `error` in it or a blocked prompt is an error.
    pub fn read(&mut self, data: &str) -> Result<ChunkEvents, ProviderError> {
        let mut out = ChunkEvents::default();
        let Some(candidate) = first_candidate(parse(data, "a chunk")?) else { return Ok(out) };
        for part in candidate.content.and_then(|c| c.parts).into_iter().flatten() {
            if let Some(call) = part.function_call {
                let index = self.calls;
                self.calls += 1;
                let arguments = match call.args {
                    Some(args) if !args.is_null() => args.to_string(),
                    _ => "{}".to_string(),
                };
                out.events.push(StreamEvent::ToolCallDelta {
                    index,
                    call_id: Some(call_id(call.id.as_deref(), index, part.thought_signature.as_deref())),
                    name: call.name,
                    arguments,
                });
            } else if let Some(text) = part.text.filter(|t| !t.is_empty() && part.thought != Some(true)) {
                out.events.push(StreamEvent::TextDelta(text));
            }
        }
        out.finish = candidate.finish_reason.filter(|r| !r.is_empty()).map(|r| self.finish_reason(&r));
        Ok(out)
    }

    /// Gemini says `STOP` whether or not the model called functions.
    fn finish_reason(&self, reason: &str) -> FinishReason {
        match reason {
            "STOP" if self.calls > 0 => FinishReason::ToolCalls,
            "STOP" => FinishReason::Stop,
            "MAX_TOKENS" => FinishReason::Length,
            other => FinishReason::Other(other.to_string()),
        }
    }
}

/// The text of a whole (non-streamed) answer.
pub(super) fn completion_text(body: &str) -> Result<String, ProviderError> {
    let candidate = first_candidate(parse(body, "an answer")?);
    let finish = candidate.as_ref().and_then(|c| c.finish_reason.clone());
    let text: String = candidate
        .and_then(|c| c.content)
        .and_then(|c| c.parts)
        .into_iter()
        .flatten()
        .filter(|p| p.thought != Some(true))
        .filter_map(|p| p.text)
        .collect();
    if text.is_empty() {
        let why = finish.map(|r| format!(" (finish reason {r})")).unwrap_or_default();
        return Err(ProviderError::Stream(format!("Gemini's answer has no text{why}")));
    }
    Ok(text)
}

/// The human message in a Google error body, `{"error": {"code", "message", "status"}}` (streaming
/// endpoints wrap it in an array), else the body text as other APIs' bodies are read.
pub(super) fn error_message(body: &str) -> Option<String> {
    if let Some(error) = error_object(body) {
        if let Some(message) = error.get("message").and_then(Value::as_str).filter(|m| !m.trim().is_empty()) {
            return Some(message.to_string());
        }
    }
    super::openai_wire::error_message(body)
}

/// Gemini answers a wrong API key with 400 `INVALID_ARGUMENT` and the reason `API_KEY_INVALID` in the
/// details; that is an authentication failure, so it is reported as 401.
pub(super) fn error_status(status: u16, body: &str) -> u16 {
    let key_invalid = error_object(body)
        .and_then(|e| e.get("details").and_then(Value::as_array).cloned())
        .into_iter()
        .flatten()
        .any(|d| d.get("reason").and_then(Value::as_str) == Some("API_KEY_INVALID"));
    if status == 400 && key_invalid {
        401
    } else {
        status
    }
}

fn error_object(body: &str) -> Option<Value> {
    let json: Value = serde_json::from_str(body).ok()?;
    let json = match json {
        Value::Array(mut items) if !items.is_empty() => items.swap_remove(0),
        other => other,
    };
    json.get("error").filter(|e| e.is_object()).cloned()
}

/// The names in a `models.list` answer of the models that support `generateContent`, sorted.
pub(super) fn model_names(body: &str) -> Result<Vec<String>, ProviderError> {
    #[derive(Deserialize)]
    struct Models {
        #[serde(default)]
        models: Vec<Model>,
    }
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Model {
        name: String,
        #[serde(default)]
        supported_generation_methods: Vec<String>,
    }
    let list: Models = serde_json::from_str(body)
        .map_err(|e| ProviderError::Stream(format!("the model list is not in the expected shape ({e})")))?;
    let mut names: Vec<String> = list
        .models
        .into_iter()
        .filter(|m| m.supported_generation_methods.iter().any(|g| g == "generateContent"))
        .map(|m| m.name.trim_start_matches("models/").to_string())
        .collect();
    names.sort();
    names.dedup();
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(id: &str, call_id: &str, name: &str, arguments: Value) -> Block {
        Block::ToolCall { id: id.into(), call_id: call_id.into(), name: name.into(), arguments }
    }

    fn result(id: &str, call_id: &str, content: Vec<ToolContent>, is_error: bool) -> Block {
        Block::ToolResult { tool_call_id: id.into(), call_id: call_id.into(), content, is_error }
    }

    fn text(t: &str) -> ToolContent {
        ToolContent::Text { text: t.into() }
    }

    fn wire(messages: &[Message]) -> (Value, Value) {
        let (system, contents) = wire_contents(messages);
        (serde_json::to_value(system).unwrap(), serde_json::to_value(contents).unwrap())
    }

    #[test]
    fn system_messages_become_the_system_instruction_and_roles_are_user_and_model() {
        let (system, contents) = wire(&[
            Message::text(Role::System, "Be careful."),
            Message::text(Role::User, "hi"),
            Message::text(Role::Assistant, "hello"),
            Message::text(Role::System, "Be brief."),
            Message::text(Role::User, "again"),
        ]);
        assert_eq!(system, json!({"parts": [{"text": "Be careful.\n\nBe brief."}]}));
        assert_eq!(
            contents,
            json!([
                {"role": "user", "parts": [{"text": "hi"}]},
                {"role": "model", "parts": [{"text": "hello"}]},
                {"role": "user", "parts": [{"text": "again"}]}
            ])
        );
    }

    #[test]
    fn calls_and_results_go_out_as_function_parts_matched_by_name_with_ids_and_signatures_kept() {
        let messages = vec![
            Message::text(Role::User, "read both"),
            Message {
                role: Role::Assistant,
                content: vec![
                    Block::Text { text: "Reading.".into() },
                    call("t1", "gemini-call-0#sig:c2ln", "read_file", json!({"path": "a"})),
                    call("t2", "fc-7", "list_dir", json!({})),
                ],
            },
            Message {
                role: Role::Tool,
                content: vec![
                    result("t1", "gemini-call-0#sig:c2ln", vec![text("alpha")], false),
                    result("t2", "fc-7", vec![text("denied: not now")], true),
                ],
            },
            Message::text(Role::User, "thanks"),
        ];
        let (system, contents) = wire(&messages);
        assert_eq!(system, Value::Null);
        assert_eq!(
            contents,
            json!([
                {"role": "user", "parts": [{"text": "read both"}]},
                {"role": "model", "parts": [
                    {"text": "Reading."},
                    {"functionCall": {"name": "read_file", "args": {"path": "a"}}, "thoughtSignature": "c2ln"},
                    {"functionCall": {"id": "fc-7", "name": "list_dir", "args": {}}}
                ]},
                {"role": "user", "parts": [
                    {"functionResponse": {"name": "read_file", "response": {"output": "alpha"}}},
                    {"functionResponse": {"id": "fc-7", "name": "list_dir", "response": {"error": "denied: not now"}}},
                    {"text": "thanks"}
                ]}
            ])
        );
    }

    #[test]
    fn images_from_tool_results_follow_the_responses_as_inline_data() {
        let image = ToolContent::Image { mime_type: "image/png".into(), data: "AAAA".into() };
        let messages = vec![
            Message { role: Role::Assistant, content: vec![call("t1", "gemini-call-0", "screenshot", json!({}))] },
            Message {
                role: Role::Tool,
                content: vec![result("t1", "gemini-call-0", vec![text("shot"), image], false)],
            },
        ];
        let (_, contents) = wire(&messages);
        assert_eq!(
            contents[1]["parts"],
            json!([
                {"functionResponse": {"name": "screenshot", "response": {"output": "shot\n[image: image/png]"}}},
                {"text": "Images returned by the screenshot call:"},
                {"inlineData": {"mimeType": "image/png", "data": "AAAA"}}
            ])
        );
    }

    #[test]
    fn empty_messages_are_not_sent() {
        let (_, contents) = wire(&[Message::text(Role::User, "hi"), Message::text(Role::Assistant, "")]);
        assert_eq!(contents.as_array().map(Vec::len), Some(1));
    }

    #[test]
    fn tools_are_one_set_of_declarations_and_argumentless_tools_have_no_parameters() {
        let tools = vec![
            ToolSpec {
                name: "read_file".into(),
                description: "Reads".into(),
                parameters: json!({"type": "object", "additionalProperties": false,
                                   "properties": {"path": {"type": "string"}}, "required": ["path"]}),
            },
            ToolSpec { name: "now".into(), description: "Time".into(), parameters: json!({"type": "object"}) },
        ];
        assert_eq!(
            serde_json::to_value(wire_tools(&tools)).unwrap(),
            json!([{"functionDeclarations": [
                {"name": "read_file", "description": "Reads",
                 "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
                {"name": "now", "description": "Time"}
            ]}])
        );
        assert!(wire_tools(&[]).is_empty());
    }

    #[test]
    fn call_ids_carry_the_signature_and_give_back_only_the_apis_own_id() {
        assert_eq!(call_id(None, 3, None), "gemini-call-3");
        assert_eq!(call_id(Some("abc"), 3, Some("U0lH")), "abc#sig:U0lH");
        assert_eq!(split_call_id("abc#sig:U0lH"), (Some("abc"), Some("U0lH")));
        assert_eq!(split_call_id("gemini-call-3#sig:U0lH"), (None, Some("U0lH")));
        assert_eq!(split_call_id("gemini-call-3"), (None, None));
        assert_eq!(split_call_id("call_from_elsewhere"), (Some("call_from_elsewhere"), None));
    }

    #[test]
    fn text_parts_stream_as_deltas_and_thoughts_and_empty_text_are_skipped() {
        let mut reader = ChunkReader::default();
        let chunk = reader
            .read(r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"plan","thought":true},{"text":"Hel"},{"text":""}]},"index":0}]}"#)
            .unwrap();
        assert_eq!(chunk, ChunkEvents { events: vec![StreamEvent::TextDelta("Hel".into())], finish: None });
        let last = reader
            .read(r#"{"candidates":[{"content":{"parts":[{"text":"lo"}]},"finishReason":"STOP"}],"usageMetadata":{"totalTokenCount":3}}"#)
            .unwrap();
        assert_eq!(last.events, vec![StreamEvent::TextDelta("lo".into())]);
        assert_eq!(last.finish, Some(FinishReason::Stop));
    }

    #[test]
    fn each_function_call_is_one_whole_delta_numbered_across_the_turn() {
        let mut reader = ChunkReader::default();
        let first = reader
            .read(r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"a","args":{"x":1}},"thoughtSignature":"U0lH"}]}}]}"#)
            .unwrap();
        let second = reader
            .read(r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"b"}},{"functionCall":{"id":"f9","name":"c","args":{}}}]},"finishReason":"STOP"}]}"#)
            .unwrap();
        let delta = |index: u32, id: &str, name: &str, args: &str| StreamEvent::ToolCallDelta {
            index,
            call_id: Some(id.into()),
            name: Some(name.into()),
            arguments: args.into(),
        };
        assert_eq!(first.events, vec![delta(0, "gemini-call-0#sig:U0lH", "a", r#"{"x":1}"#)]);
        assert_eq!(second.events, vec![delta(1, "gemini-call-1", "b", "{}"), delta(2, "f9", "c", "{}")]);
        assert_eq!(second.finish, Some(FinishReason::ToolCalls));
    }

    #[test]
    fn finish_reasons_map_to_ours() {
        let finish = |reason: &str| {
            let data = format!(r#"{{"candidates":[{{"content":{{"parts":[]}},"finishReason":"{reason}"}}]}}"#);
            ChunkReader::default().read(&data).unwrap().finish
        };
        assert_eq!(finish("MAX_TOKENS"), Some(FinishReason::Length));
        assert_eq!(finish("SAFETY"), Some(FinishReason::Other("SAFETY".into())));
        assert_eq!(finish("RECITATION"), Some(FinishReason::Other("RECITATION".into())));
        assert_eq!(finish("MALFORMED_FUNCTION_CALL"), Some(FinishReason::Other("MALFORMED_FUNCTION_CALL".into())));
    }

    #[test]
    fn errors_in_the_stream_and_blocked_prompts_are_http_errors_with_the_status_they_imply() {
        let mut reader = ChunkReader::default();
        let err = reader.read(r#"{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}"#);
        assert_eq!(err, Err(ProviderError::Http { status: 503, message: "The model is overloaded.".into() }));
        let err = reader.read(r#"{"error":{"message":"Slow down","status":"RESOURCE_EXHAUSTED"}}"#).unwrap_err();
        assert_eq!(err, ProviderError::Http { status: 429, message: "Slow down".into() });
        assert!(err.is_retryable());
        let blocked = reader.read(r#"{"promptFeedback":{"blockReason":"SAFETY"}}"#).unwrap_err();
        assert!(matches!(&blocked, ProviderError::Http { status: 400, message } if message.contains("SAFETY")));
        assert!(!blocked.is_retryable());
        assert!(matches!(reader.read("{nope"), Err(ProviderError::Stream(_))));
    }

    #[test]
    fn a_whole_answer_is_its_text_parts_joined() {
        let body = r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"A ","thought":true},{"text":"Weather "},{"text":"talk"}]},"finishReason":"STOP"}]}"#;
        assert_eq!(completion_text(body).unwrap(), "Weather talk");
        let empty = r#"{"candidates":[{"content":{"parts":[]},"finishReason":"SAFETY"}]}"#;
        assert!(completion_text(empty).unwrap_err().to_string().contains("SAFETY"));
    }

    #[test]
    fn error_bodies_give_their_message_and_a_rejected_key_reads_as_401() {
        let key = r#"{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT",
            "details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}}"#;
        assert_eq!(error_message(key).as_deref(), Some("API key not valid. Please pass a valid API key."));
        assert_eq!(error_status(400, key), 401);
        let bad = r#"[{"error":{"code":400,"message":"Invalid JSON payload received.","status":"INVALID_ARGUMENT"}}]"#;
        assert_eq!(error_message(bad).as_deref(), Some("Invalid JSON payload received."));
        assert_eq!(error_status(400, bad), 400);
        assert_eq!(error_status(429, "{}"), 429);
        assert_eq!(error_message("upstream down").as_deref(), Some("upstream down"));
    }
}
