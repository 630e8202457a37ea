//! The fixture's Gemini side: `POST /v1beta/models/{model}:streamGenerateContent?alt=sse` and
//! `:generateContent` answered from the same script as the Chat Completions route, in Gemini's wire
//! format: `GenerateContentResponse` chunks as SSE `data:` events, each `functionCall` part whole, the
//! finish reason on the last chunk and no end marker; Google's error bodies; the key in
//! `x-goog-api-key`. Gemini requests are read into the OpenAI-like message list the script reads.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use crate::script::{ScriptedCall, Turn};
use crate::server::{event_stream, Shared};
use crate::wire::{self, StreamPlan};

/// Handles `{model}:{method}` for both methods.
pub(crate) async fn generate_content(
    State(shared): State<Arc<Shared>>,
    Path(model_action): Path<String>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    shared.record_target(format!("POST {uri}"));
    let Ok(request) = serde_json::from_slice::<Value>(&body) else {
        return error(400, "Invalid JSON payload received.");
    };
    shared.record(&request);
    let query: Vec<(&str, &str)> =
        uri.query().unwrap_or("").split('&').filter_map(|pair| pair.split_once('=')).collect();
    // Google accepts `?key=` too; the fixture refuses it, since a URL ends up in logs and errors.
    if query.iter().any(|(name, _)| *name == "key") {
        return error(400, "The fixture refuses API keys in the URL: send them in x-goog-api-key.");
    }
    let given = headers.get("x-goog-api-key").and_then(|v| v.to_str().ok());
    if shared.key_refused(given).is_some() {
        return match given {
            None => error(
                403,
                "Method doesn't allow unregistered callers (callers without established identity). Please use API \
                 Key or other form of API consumer identity to call this API.",
            ),
            Some(_) => key_invalid(),
        };
    }
    let Some((model, method)) = model_action.rsplit_once(':').filter(|(model, _)| !model.is_empty()) else {
        return error(404, "Method not found.");
    };
    let streamed = match method {
        "streamGenerateContent" => true,
        "generateContent" => false,
        _ => return error(404, "Method not found."),
    };
    if streamed && !query.contains(&("alt", "sse")) {
        return error(400, "The fixture streams Gemini answers only as server-sent events (alt=sse).");
    }
    let Some(messages) = conversation(&request) else {
        return error(400, "* GenerateContentRequest.contents: contents is not specified");
    };
    let serial = shared.serial.fetch_add(1, Ordering::Relaxed);
    if !streamed {
        if let Some(title) = shared.script.title_for(&messages) {
            shared.title_released().await;
            return Json(whole(serial, model, &title, &[])).into_response();
        }
    }
    let selected = shared.script.select(&messages).for_request(model, function_count(&request));
    if let Some(failure) = shared.scripted_failure_as(selected.key, &selected.turn, error) {
        return failure;
    }
    if !streamed {
        let text = wire::text_tokens(&selected.turn).concat();
        return Json(whole(serial, model, &text, &selected.turn.tool_calls)).into_response();
    }
    event_stream(&shared, stream_plan(serial, model, &selected.turn), &selected.turn)
}

/// How many functions the request declares (`tools[].functionDeclarations[]`).
fn function_count(request: &Value) -> usize {
    let tools = request.get("tools").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    tools.iter().filter_map(|t| t.get("functionDeclarations").and_then(Value::as_array)).map(Vec::len).sum()
}

/// `GET /v1beta/models`: the fixture's one model (and an embedding model the client must leave out).
pub(crate) async fn list_models(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    let given = headers.get("x-goog-api-key").and_then(|v| v.to_str().ok());
    if shared.key_refused(given).is_some() {
        return key_invalid();
    }
    Json(json!({"models": [
        {"name": "models/fixture-model", "supportedGenerationMethods": ["generateContent", "countTokens"]},
        {"name": "models/fixture-embedding", "supportedGenerationMethods": ["embedContent"]},
    ]}))
    .into_response()
}

/// A Google error body, `{"error": {"code", "message", "status"}}`.
pub fn error_body(status: u16, message: &str) -> Value {
    json!({"error": {"code": status, "message": message, "status": status_name(status)}})
}

fn error(status: u16, message: &str) -> Response {
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (code, Json(error_body(status, message))).into_response()
}

/// What Google answers a wrong key: 400, with the reason in the details.
fn key_invalid() -> Response {
    let message = "API key not valid. Please pass a valid API key.";
    let mut body = error_body(400, message);
    body["error"]["details"] = json!([{
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        "reason": "API_KEY_INVALID",
        "domain": "googleapis.com",
        "metadata": {"service": "generativelanguage.googleapis.com"},
    }]);
    (StatusCode::BAD_REQUEST, Json(body)).into_response()
}

fn status_name(status: u16) -> &'static str {
    match status {
        400 => "INVALID_ARGUMENT",
        401 => "UNAUTHENTICATED",
        403 => "PERMISSION_DENIED",
        404 => "NOT_FOUND",
        409 => "ABORTED",
        429 => "RESOURCE_EXHAUSTED",
        499 => "CANCELLED",
        501 => "UNIMPLEMENTED",
        503 => "UNAVAILABLE",
        504 => "DEADLINE_EXCEEDED",
        _ => "INTERNAL",
    }
}

/// The request's conversation as the OpenAI-like `[{role, content}]` list the script reads: the
/// system instruction, `model` contents as assistant messages, each `functionResponse` as a tool
/// message, and a user content's text and inline images as user messages (images after tool results
/// count as part of them, as on the Chat Completions route).
fn conversation(request: &Value) -> Option<Vec<Value>> {
    let contents = request.get("contents")?.as_array()?;
    let mut out = Vec::new();
    let system = request.get("systemInstruction").or_else(|| request.get("system_instruction"));
    let system_text = system.map(|s| texts(s.get("parts"))).unwrap_or_default();
    if !system_text.is_empty() {
        out.push(json!({"role": "system", "content": system_text}));
    }
    for content in contents {
        let parts = content.get("parts").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        if content.get("role").and_then(Value::as_str) == Some("model") {
            let calls: Vec<Value> = parts
                .iter()
                .filter_map(|p| p.get("functionCall"))
                .map(|call| {
                    let name = call.get("name").cloned().unwrap_or(Value::Null);
                    let arguments = call.get("args").map_or_else(|| "{}".to_string(), Value::to_string);
                    json!({"id": call.get("id").unwrap_or(&name), "type": "function",
                           "function": {"name": name, "arguments": arguments}})
                })
                .collect();
            let mut message = json!({"role": "assistant", "content": texts(content.get("parts"))});
            if !calls.is_empty() {
                message["tool_calls"] = Value::Array(calls);
            }
            out.push(message);
            continue;
        }
        let mut group: Vec<Value> = Vec::new();
        for part in parts {
            if let Some(response) = part.get("functionResponse") {
                flush_user(&mut out, &mut group);
                let id = response.get("id").or_else(|| response.get("name")).cloned().unwrap_or(Value::Null);
                out.push(json!({"role": "tool", "tool_call_id": id,
                                "content": response_text(response.get("response"))}));
            } else if let Some(text) = part.get("text").and_then(Value::as_str) {
                // Text after an image starts a new message (the person's words after tool images).
                if group.iter().any(|p| p["type"] == "image_url") {
                    flush_user(&mut out, &mut group);
                }
                group.push(json!({"type": "text", "text": text}));
            } else if let Some(blob) = part.get("inlineData") {
                let mime = blob.get("mimeType").and_then(Value::as_str).unwrap_or("application/octet-stream");
                let data = blob.get("data").and_then(Value::as_str).unwrap_or("");
                group.push(json!({"type": "image_url", "image_url": {"url": format!("data:{mime};base64,{data}")}}));
            }
        }
        flush_user(&mut out, &mut group);
    }
    Some(out)
}

fn flush_user(out: &mut Vec<Value>, group: &mut Vec<Value>) {
    if group.is_empty() {
        return;
    }
    let parts = std::mem::take(group);
    if parts.iter().any(|p| p["type"] == "image_url") {
        out.push(json!({"role": "user", "content": parts}));
    } else {
        let text: String = parts.iter().filter_map(|p| p["text"].as_str()).collect();
        out.push(json!({"role": "user", "content": text}));
    }
}

/// The text parts of a content (thought summaries excluded), joined.
fn texts(parts: Option<&Value>) -> String {
    parts
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true))
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect()
}

/// What a function response says: its `output`, or `Error: <error>`, else the response as JSON.
fn response_text(response: Option<&Value>) -> String {
    let as_text = |v: &Value| v.as_str().map_or_else(|| v.to_string(), str::to_string);
    match response {
        Some(r) if r.get("output").is_some() => as_text(&r["output"]),
        Some(r) if r.get("error").is_some() => format!("Error: {}", as_text(&r["error"])),
        Some(r) => r.to_string(),
        None => String::new(),
    }
}

/// The `args` object of a scripted call, or `None` for arguments that are not a JSON object (Gemini
/// cannot send those: the model's broken call ends the turn with `MALFORMED_FUNCTION_CALL` instead).
fn args_object(call: &ScriptedCall) -> Option<Value> {
    match &call.arguments {
        Value::String(raw) => serde_json::from_str::<Value>(raw).ok().filter(Value::is_object),
        Value::Object(_) => Some(call.arguments.clone()),
        _ => None,
    }
}

/// The `functionCall` parts of a turn; the first carries a thought signature, as Gemini 3 sends it.
fn call_parts(serial: u64, calls: &[ScriptedCall]) -> Option<Vec<Value>> {
    calls
        .iter()
        .enumerate()
        .map(|(i, call)| {
            let mut part = json!({"functionCall": {"name": call.name, "args": args_object(call)?}});
            if i == 0 {
                part["thoughtSignature"] = json!(format!("Zml4dHVyZS1zaWduYXR1cmU{serial}"));
            }
            Some(part)
        })
        .collect()
}

/// One `GenerateContentResponse` with the first candidate's parts and finish reason.
fn response(serial: u64, model: &str, parts: Vec<Value>, finish: Option<&str>) -> Value {
    let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
    let mut body = json!({"candidates": [], "modelVersion": model, "responseId": format!("fixture-{serial}")});
    if let Some(reason) = finish {
        candidate["finishReason"] = json!(reason);
        body["usageMetadata"] = json!({"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2});
    }
    body["candidates"] = json!([candidate]);
    body
}

/// The `data:` payloads of a streamed turn: a chunk per text token, then the calls in one chunk with
/// `finishReason: STOP` (or a chunk each, the last with it; or an empty text part with it), or the
/// scripted in-stream error.
fn stream_plan(serial: u64, model: &str, turn: &Turn) -> StreamPlan {
    let tokens = wire::text_tokens(turn);
    let mut events = Vec::new();
    let mut stall_after = None;
    for (i, token) in tokens.iter().enumerate() {
        if turn.stall_after_tokens == Some(i) {
            stall_after = Some(events.len());
        }
        events.push(response(serial, model, vec![json!({"text": token})], None).to_string());
    }
    if turn.stall_after_tokens.is_some_and(|n| n >= tokens.len()) {
        stall_after = Some(events.len());
    }
    let endless_after = turn.endless_line.then_some(events.len());
    if let Some(e) = &turn.stream_error {
        events.push(error_body(e.status, &e.message).to_string());
        return StreamPlan { events, stall_after, endless_after, ..StreamPlan::default() };
    }
    let last = match call_parts(serial, &turn.tool_calls) {
        None => response(serial, model, vec![], Some("MALFORMED_FUNCTION_CALL")),
        Some(mut parts) if !parts.is_empty() => {
            if turn.calls_in_separate_chunks {
                let last = parts.split_off(parts.len() - 1);
                events.extend(parts.into_iter().map(|part| response(serial, model, vec![part], None).to_string()));
                response(serial, model, last, Some("STOP"))
            } else {
                response(serial, model, parts, Some("STOP"))
            }
        }
        Some(_) => response(serial, model, vec![json!({"text": ""})], Some("STOP")),
    };
    events.push(last.to_string());
    StreamPlan { events, stall_after, endless_after, ..StreamPlan::default() }
}

/// A whole (non-streamed) answer with `text` and the calls, if any.
fn whole(serial: u64, model: &str, text: &str, calls: &[ScriptedCall]) -> Value {
    let mut parts = vec![json!({"text": text})];
    match call_parts(serial, calls) {
        Some(calls) => {
            parts.extend(calls);
            response(serial, model, parts, Some("STOP"))
        }
        None => response(serial, model, parts, Some("MALFORMED_FUNCTION_CALL")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::Script;

    fn parsed(plan: &StreamPlan) -> Vec<Value> {
        plan.events.iter().map(|e| serde_json::from_str(e).unwrap()).collect()
    }

    #[test]
    fn a_text_turn_streams_token_chunks_and_ends_with_stop_and_no_marker() {
        let chunks = parsed(&stream_plan(1, "m", &Turn::text("one two three")));
        let text: String =
            chunks.iter().filter_map(|c| c["candidates"][0]["content"]["parts"][0]["text"].as_str()).collect();
        assert_eq!(text, "one two three");
        assert!(chunks.len() > 3);
        assert_eq!(chunks.last().unwrap()["candidates"][0]["finishReason"], "STOP");
        assert!(chunks[..chunks.len() - 1].iter().all(|c| c["candidates"][0].get("finishReason").is_none()));
    }

    #[test]
    fn parallel_calls_arrive_whole_in_one_chunk_and_the_first_is_signed() {
        let calls =
            vec![ScriptedCall::new("a", json!({"path": "one.txt"})), ScriptedCall::new("b", json!("{\"n\": 2}"))];
        let chunks = parsed(&stream_plan(4, "m", &Turn::calls(calls)));
        let last = chunks.last().unwrap();
        let parts = last["candidates"][0]["content"]["parts"].as_array().unwrap();
        assert_eq!(parts[0]["functionCall"], json!({"name": "a", "args": {"path": "one.txt"}}));
        assert!(parts[0]["thoughtSignature"].is_string());
        assert_eq!(parts[1], json!({"functionCall": {"name": "b", "args": {"n": 2}}}));
        assert_eq!(last["candidates"][0]["finishReason"], "STOP");
    }

    #[test]
    fn calls_in_separate_chunks_come_one_per_chunk_and_only_the_last_says_stop() {
        let calls = vec![
            ScriptedCall::new("a", json!({"path": "one.txt"})),
            ScriptedCall::new("b", json!({"n": 2})),
            ScriptedCall::new("c", json!({})),
        ];
        let turn = Turn { calls_in_separate_chunks: true, ..Turn::calls(calls) };
        let chunks = parsed(&stream_plan(4, "m", &turn));
        assert_eq!(chunks.len(), 3);
        let names: Vec<&Value> =
            chunks.iter().map(|c| &c["candidates"][0]["content"]["parts"][0]["functionCall"]["name"]).collect();
        assert_eq!(names, [&json!("a"), &json!("b"), &json!("c")]);
        assert!(chunks.iter().all(|c| c["candidates"][0]["content"]["parts"].as_array().map(Vec::len) == Some(1)));
        assert!(chunks[0]["candidates"][0]["content"]["parts"][0]["thoughtSignature"].is_string());
        assert!(chunks[..2].iter().all(|c| c["candidates"][0].get("finishReason").is_none()));
        assert_eq!(chunks[2]["candidates"][0]["finishReason"], "STOP");
    }

    #[test]
    fn arguments_that_are_not_an_object_end_the_turn_as_a_malformed_call() {
        let chunks = parsed(&stream_plan(1, "m", &Turn::calls(vec![ScriptedCall::new("a", json!("{broken"))])));
        assert_eq!(chunks.last().unwrap()["candidates"][0]["finishReason"], "MALFORMED_FUNCTION_CALL");
    }

    #[test]
    fn a_stream_error_follows_the_text_and_nothing_comes_after_it() {
        let turn = Turn {
            stream_error: Some(crate::ScriptedError { status: 503, message: "overloaded".into() }),
            ..Turn::text("a b")
        };
        let chunks = parsed(&stream_plan(1, "m", &turn));
        assert_eq!(chunks.last().unwrap(), &error_body(503, "overloaded"));
        assert_eq!(chunks.len(), 3);
    }

    #[test]
    fn gemini_contents_read_as_the_messages_the_script_selects_by() {
        let request = json!({
            "systemInstruction": {"parts": [{"text": "Be careful."}]},
            "contents": [
                {"role": "user", "parts": [{"text": "read it"}]},
                {"role": "model", "parts": [{"functionCall": {"name": "read_file", "args": {"path": "a"}}}]},
                {"role": "user", "parts": [
                    {"functionResponse": {"name": "read_file", "response": {"output": "alpha"}}},
                    {"functionResponse": {"name": "shell", "response": {"error": "denied"}}},
                    {"text": "Images returned by the read_file call:"},
                    {"inlineData": {"mimeType": "image/png", "data": "AAAA"}}
                ]}
            ]
        });
        let messages = conversation(&request).unwrap();
        assert_eq!(messages[0], json!({"role": "system", "content": "Be careful."}));
        assert_eq!(messages[2]["role"], "assistant");
        assert_eq!(messages[2]["tool_calls"][0]["function"]["arguments"], r#"{"path":"a"}"#);
        assert_eq!(messages[3], json!({"role": "tool", "tool_call_id": "read_file", "content": "alpha"}));
        assert_eq!(messages[4]["content"], "Error: denied");
        let script = Script::from_json(
            r#"{"scenarios": [{"when": "read", "turns": [{"text": "x"}, {"text": "Done.", "echo_tool_results": true}]}]}"#,
        )
        .unwrap();
        let selected = script.select(&messages);
        assert_eq!(selected.key, Some((0, 1)), "the images count as part of the tool results");
        assert_eq!(selected.turn.text.as_deref(), Some("Done. [tool said: alpha] [tool said: Error: denied]"));
    }
}
