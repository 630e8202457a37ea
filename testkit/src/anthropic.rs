//! The fixture's Anthropic Messages route, `POST /v1/messages`: the same script served in the Messages
//! wire format. It checks what the real API checks (the key in `x-api-key`, `anthropic-version`,
//! `max_tokens`, alternating roles, each `tool_use` answered first thing in the next user turn, tool
//! schemas with an object top level), reads the request's turns as the Chat Completions-like list the
//! script selects on, and streams `event:`-named SSE frames or answers one whole message.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use crate::script::{ScriptedCall, Turn};
use crate::server::{event_stream, Shared};
use crate::wire::{self, StreamPlan};

/// Tool arguments are streamed in `input_json_delta` pieces of this many characters.
const ARGUMENT_PIECE: usize = 7;

pub(crate) async fn messages(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    let Ok(request) = serde_json::from_slice::<Value>(&body) else {
        return error(400, "The request body is not valid JSON.");
    };
    shared.record(&request);
    let key = headers.get("x-api-key").and_then(|v| v.to_str().ok());
    if shared.key_refused(key).is_some() {
        return error(401, if key.is_some() { "invalid x-api-key" } else { "x-api-key header is required" });
    }
    if !headers.contains_key("anthropic-version") {
        return error(400, "anthropic-version: header is required");
    }
    if let Err(message) = validate(&request) {
        return error(400, &message);
    }
    let messages = chat_messages(&request);
    let ids = Ids {
        serial: shared.serial.fetch_add(1, Ordering::Relaxed),
        model: request.get("model").and_then(Value::as_str).unwrap_or("fixture-model").to_string(),
    };
    let streamed = request.get("stream").and_then(Value::as_bool).unwrap_or(false);
    if !streamed {
        if let Some(title) = shared.script.title_for(&messages) {
            shared.title_released().await;
            return Json(ids.message(&title, &[])).into_response();
        }
    }
    let tools = request.get("tools").and_then(Value::as_array).map_or(0, Vec::len);
    let selected = shared.script.select(&messages).for_request(&ids.model, tools);
    if let Some(failure) = shared.scripted_failure_as(selected.key, &selected.turn, error) {
        return failure;
    }
    if !streamed {
        let text = selected.turn.text.clone().unwrap_or_default();
        return Json(ids.message(&text, &selected.turn.tool_calls)).into_response();
    }
    event_stream(&shared, stream_plan(&ids, &selected.turn), &selected.turn)
}

fn error(status: u16, message: &str) -> Response {
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (code, Json(error_body(status, message))).into_response()
}

/// The API's error body; the type follows the status as the API's do (529 is `overloaded_error`).
fn error_body(status: u16, message: &str) -> Value {
    let kind = match status {
        401 => "authentication_error",
        402 => "billing_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        504 => "timeout_error",
        529 => "overloaded_error",
        400..=499 => "invalid_request_error",
        _ => "api_error",
    };
    json!({"type": "error", "error": {"type": kind, "message": message}})
}

/// A message's content blocks: a string is one text block.
fn blocks(message: &Value) -> Option<Vec<Value>> {
    match message.get("content") {
        Some(Value::String(text)) => Some(vec![json!({"type": "text", "text": text})]),
        Some(Value::Array(blocks)) => Some(blocks.clone()),
        _ => None,
    }
}

fn kind(block: &Value) -> &str {
    block.get("type").and_then(Value::as_str).unwrap_or("")
}

fn str_field<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

/// What the real API refuses with a 400, in its words (near enough).
fn validate(request: &Value) -> Result<(), String> {
    if !request.get("max_tokens").is_some_and(Value::is_u64) {
        return Err("max_tokens: Field required".into());
    }
    if !matches!(request.get("system"), None | Some(Value::String(_)) | Some(Value::Array(_))) {
        return Err("system: Input should be a valid string".into());
    }
    let Some(messages) = request.get("messages").and_then(Value::as_array) else {
        return Err("messages: Field required".into());
    };
    let has_tools = request.get("tools").and_then(Value::as_array).is_some_and(|t| !t.is_empty());
    let tool_blocks =
        messages.iter().filter_map(blocks).flatten().any(|b| matches!(kind(&b), "tool_use" | "tool_result"));
    if tool_blocks && !has_tools {
        return Err("Requests which include `tool_use` or `tool_result` blocks must define tools.".into());
    }
    let mut previous = "";
    let mut open_calls: Vec<String> = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        let role = str_field(message, "role");
        if role != "user" && role != "assistant" {
            return Err(format!("messages.{i}.role: Input should be 'user' or 'assistant'"));
        }
        if role == previous {
            return Err(format!(
                "messages: roles must alternate between \"user\" and \"assistant\", but found multiple \"{role}\" roles in a row"
            ));
        }
        let content = blocks(message).ok_or_else(|| format!("messages.{i}.content: Field required"))?;
        if content.is_empty() {
            return Err(format!("messages.{i}: all messages must have non-empty content"));
        }
        for (j, block) in content.iter().enumerate() {
            check_block(role, block).map_err(|e| format!("messages.{i}.content.{j}: {e}"))?;
        }
        let answered: Vec<&str> =
            content.iter().take_while(|b| kind(b) == "tool_result").map(|b| str_field(b, "tool_use_id")).collect();
        let missing: Vec<&str> = open_calls.iter().map(String::as_str).filter(|id| !answered.contains(id)).collect();
        if role == "user" && !missing.is_empty() {
            return Err(format!(
                "messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: {}. Each \
                 `tool_use` block must have a corresponding `tool_result` block in the next message.",
                missing.join(", ")
            ));
        }
        let mut results = content.iter().filter(|b| kind(b) == "tool_result").map(|b| str_field(b, "tool_use_id"));
        if let Some(stray) = results.find(|id| !open_calls.iter().any(|open| open == id)) {
            return Err(format!(
                "messages.{i}: unexpected `tool_use_id` found in `tool_result` blocks: {stray}. Each `tool_result` \
                 block must have a corresponding `tool_use` block in the previous message."
            ));
        }
        open_calls = content.iter().filter(|b| kind(b) == "tool_use").map(|b| str_field(b, "id").to_string()).collect();
        previous = role;
    }
    for (i, tool) in request.get("tools").and_then(Value::as_array).into_iter().flatten().enumerate() {
        check_tool(tool).map_err(|e| format!("tools.{i}.custom.{e}"))?;
    }
    Ok(())
}

fn check_block(role: &str, block: &Value) -> Result<(), String> {
    match (kind(block), role) {
        ("text", _) if str_field(block, "text").trim().is_empty() => {
            Err("text content blocks must contain non-whitespace text".into())
        }
        ("text", _) => Ok(()),
        ("image", _) => match block.pointer("/source/type").and_then(Value::as_str) {
            Some("base64")
                if block.pointer("/source/media_type").is_some() && block.pointer("/source/data").is_some() =>
            {
                Ok(())
            }
            _ => Err("image.source: Input tag does not match any of the expected tags".into()),
        },
        ("tool_use", "assistant") if !is_tool_id(str_field(block, "id")) => {
            Err("tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'".into())
        }
        ("tool_use", "assistant") if !block.get("input").is_some_and(Value::is_object) => {
            Err("tool_use.input: Input should be a valid dictionary".into())
        }
        ("tool_use", "assistant") => Ok(()),
        ("tool_result", "user") => {
            let content = block.get("content").map(|c| blocks(&json!({"content": c})));
            match content {
                None => Ok(()),
                Some(None) => Err("tool_result.content: Input should be a valid list".into()),
                Some(Some(parts)) => parts.iter().try_for_each(|p| match kind(p) {
                    "text" | "image" => check_block("user", p),
                    other => Err(format!("tool_result.content: `{other}` blocks are not accepted here")),
                }),
            }
        }
        (other, role) => Err(format!("`{other}` blocks are not accepted in a `{role}` message")),
    }
}

fn is_tool_id(id: &str) -> bool {
    !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn check_tool(tool: &Value) -> Result<(), String> {
    if str_field(tool, "name").is_empty() {
        return Err("name: Field required".into());
    }
    let schema = tool.get("input_schema").ok_or("input_schema: Field required")?;
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err("input_schema.type: Input should be 'object'".into());
    }
    if ["oneOf", "allOf", "anyOf"].iter().any(|k| schema.get(*k).is_some()) {
        return Err("input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level".into());
    }
    Ok(())
}

/// The request's turns as the `[{role, content}]` list the script reads: the system prompt first, each
/// `tool_result` a `tool` message (its content as text: images named `[image block: <type>]`, an error
/// marked `[is_error] `), the rest of a user turn one `user` message, an assistant turn with `tool_calls`.
fn chat_messages(request: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    let system = match request.get("system") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts.iter().map(|p| str_field(p, "text")).collect(),
        _ => String::new(),
    };
    if !system.is_empty() {
        out.push(json!({"role": "system", "content": system}));
    }
    for message in request.get("messages").and_then(Value::as_array).into_iter().flatten() {
        let content = blocks(message).unwrap_or_default();
        let text = |blocks: &[Value]| -> String {
            blocks.iter().filter(|b| kind(b) == "text").map(|b| str_field(b, "text")).collect()
        };
        if str_field(message, "role") == "assistant" {
            let calls: Vec<Value> = content
                .iter()
                .filter(|b| kind(b) == "tool_use")
                .map(|b| {
                    let arguments = b.get("input").map(Value::to_string).unwrap_or_default();
                    json!({"id": str_field(b, "id"), "type": "function",
                           "function": {"name": str_field(b, "name"), "arguments": arguments}})
                })
                .collect();
            out.push(json!({"role": "assistant", "content": text(&content), "tool_calls": calls}));
            continue;
        }
        let (results, rest): (Vec<Value>, Vec<Value>) = content.into_iter().partition(|b| kind(b) == "tool_result");
        for result in &results {
            out.push(json!({"role": "tool", "tool_call_id": str_field(result, "tool_use_id"), "content": result_text(result)}));
        }
        if !rest.is_empty() {
            out.push(json!({"role": "user", "content": text(&rest)}));
        }
    }
    out
}

fn result_text(result: &Value) -> String {
    let parts: Vec<String> = match result.get("content") {
        Some(Value::String(text)) => vec![text.clone()],
        Some(Value::Array(parts)) => parts
            .iter()
            .map(|p| match kind(p) {
                "text" => str_field(p, "text").to_string(),
                "image" => {
                    format!("[image block: {}]", p.pointer("/source/media_type").and_then(Value::as_str).unwrap_or("?"))
                }
                other => format!("[{other} block]"),
            })
            .collect(),
        _ => Vec::new(),
    };
    let text = parts.join("\n");
    if result.get("is_error").and_then(Value::as_bool) == Some(true) {
        format!("[is_error] {text}")
    } else {
        text
    }
}

/// Names one response: its `msg_` id, the model echoed back, and its tool-use ids.
struct Ids {
    serial: u64,
    model: String,
}

impl Ids {
    fn call_id(&self, block: usize) -> String {
        format!("toolu_fixture_{}_{block}", self.serial)
    }

    fn message(&self, text: &str, calls: &[ScriptedCall]) -> Value {
        let mut content = Vec::new();
        if !text.is_empty() {
            content.push(json!({"type": "text", "text": text}));
        }
        for call in calls {
            let input = serde_json::from_str::<Value>(&call.arguments_string()).ok().filter(Value::is_object);
            content.push(json!({"type": "tool_use", "id": self.call_id(content.len()), "name": call.name,
                                "input": input.unwrap_or_else(|| json!({}))}));
        }
        let mut message = self.message_head();
        message["content"] = Value::Array(content);
        message["stop_reason"] = json!(if calls.is_empty() { "end_turn" } else { "tool_use" });
        message
    }

    fn message_head(&self) -> Value {
        json!({
            "id": format!("msg_fixture_{}", self.serial), "type": "message", "role": "assistant",
            "model": self.model, "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        })
    }
}

/// One streamed answer: `message_start`, a text block streamed token by token, one block per tool call
/// (one after another, as the API sends them; the arguments in `input_json_delta` pieces), then
/// `message_delta` with the stop reason and `message_stop`.
fn stream_plan(ids: &Ids, turn: &Turn) -> StreamPlan {
    let mut plan = StreamPlan::default();
    let push = |plan: &mut StreamPlan, name: &'static str, data: Value| {
        plan.events.push(data.to_string());
        plan.event_names.push(Some(name));
    };
    push(&mut plan, "message_start", json!({"type": "message_start", "message": ids.message_head()}));
    push(&mut plan, "ping", json!({"type": "ping"}));
    let tokens = wire::text_tokens(turn);
    if !tokens.is_empty() {
        let block = json!({"type": "text", "text": ""});
        push(
            &mut plan,
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": block}),
        );
    }
    for (i, token) in tokens.iter().enumerate() {
        if turn.stall_after_tokens == Some(i) {
            plan.stall_after = Some(plan.events.len());
        }
        let delta = json!({"type": "text_delta", "text": token});
        push(&mut plan, "content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": delta}));
    }
    if turn.stall_after_tokens.is_some_and(|n| n >= tokens.len()) {
        plan.stall_after = Some(plan.events.len());
    }
    plan.endless_after = turn.endless_line.then_some(plan.events.len());
    if let Some(e) = &turn.stream_error {
        push(&mut plan, "error", error_body(e.status, &e.message));
        return plan;
    }
    let mut index = 0;
    if !tokens.is_empty() {
        push(&mut plan, "content_block_stop", json!({"type": "content_block_stop", "index": 0}));
        index = 1;
    }
    for call in &turn.tool_calls {
        let block = json!({"type": "tool_use", "id": ids.call_id(index), "name": call.name, "input": {}});
        push(
            &mut plan,
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": block}),
        );
        // The API's first piece is empty.
        let pieces = std::iter::once(String::new()).chain(wire::pieces(&call.arguments_string(), ARGUMENT_PIECE));
        for piece in pieces {
            let delta = json!({"type": "input_json_delta", "partial_json": piece});
            push(
                &mut plan,
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index, "delta": delta}),
            );
        }
        push(&mut plan, "content_block_stop", json!({"type": "content_block_stop", "index": index}));
        index += 1;
    }
    let stop_reason = if turn.tool_calls.is_empty() { "end_turn" } else { "tool_use" };
    push(
        &mut plan,
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null},
               "usage": {"output_tokens": tokens.len()}}),
    );
    push(&mut plan, "message_stop", json!({"type": "message_stop"}));
    plan
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::ScriptedError;

    fn ids() -> Ids {
        Ids { serial: 3, model: "claude-test".into() }
    }

    fn events(plan: &StreamPlan) -> Vec<Value> {
        plan.events.iter().map(|e| serde_json::from_str(e).unwrap()).collect()
    }

    fn request(messages: Value) -> Value {
        json!({"model": "m", "max_tokens": 100, "messages": messages})
    }

    #[test]
    fn every_event_is_named_for_its_type_and_the_text_joins_back() {
        let plan = stream_plan(&ids(), &Turn::text("one two three"));
        let events = events(&plan);
        assert_eq!(plan.event_names.len(), events.len());
        for (name, event) in plan.event_names.iter().zip(&events) {
            assert_eq!(Some(kind(event)), *name);
        }
        let text: String = events.iter().filter_map(|e| e.pointer("/delta/text").and_then(Value::as_str)).collect();
        assert_eq!(text, "one two three");
        assert_eq!(events[events.len() - 2]["delta"]["stop_reason"], "end_turn");
        assert_eq!(kind(events.last().unwrap()), "message_stop");
    }

    #[test]
    fn tool_calls_are_blocks_after_the_text_with_their_arguments_in_pieces() {
        let calls = vec![ScriptedCall::new("a", json!({"path": "one.txt"})), ScriptedCall::new("b", json!("{broken"))];
        let events = events(&stream_plan(&ids(), &Turn { text: Some("Let me.".into()), ..Turn::calls(calls) }));
        let starts: Vec<&Value> = events.iter().filter(|e| kind(e) == "content_block_start").collect();
        assert_eq!(starts[1]["index"], 1);
        assert_eq!(
            starts[1]["content_block"],
            json!({"type": "tool_use", "id": "toolu_fixture_3_1", "name": "a", "input": {}})
        );
        assert_eq!(starts[2]["index"], 2);
        let args = |i: u64| -> (String, usize) {
            let pieces: Vec<&str> = events
                .iter()
                .filter(|e| e["index"] == i)
                .filter_map(|e| e.pointer("/delta/partial_json").and_then(Value::as_str))
                .collect();
            (pieces.concat(), pieces.len())
        };
        assert_eq!(args(1).0, r#"{"path":"one.txt"}"#);
        assert!(args(1).1 > 2);
        assert_eq!(args(2).0, "{broken");
        assert_eq!(events[events.len() - 2]["delta"]["stop_reason"], "tool_use");
    }

    #[test]
    fn a_stream_error_is_an_error_event_after_the_text_and_ends_the_plan() {
        let error = ScriptedError { status: 529, message: "Overloaded".into() };
        let plan = stream_plan(&ids(), &Turn { stream_error: Some(error), ..Turn::text("so far") });
        let last = events(&plan).pop().unwrap();
        assert_eq!(last, json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}));
        assert_eq!(plan.event_names.last(), Some(&Some("error")));
    }

    #[test]
    fn a_stall_comes_after_the_requested_number_of_tokens() {
        let turn = Turn { stall_after_tokens: Some(2), repeat_tokens: Some(5), ..Default::default() };
        // message_start, ping, text block start, 2 tokens
        assert_eq!(stream_plan(&ids(), &turn).stall_after, Some(5));
    }

    #[test]
    fn roles_must_alternate_and_each_tool_use_be_answered_first_in_the_next_turn() {
        let user = |content: Value| json!({"role": "user", "content": content});
        let call =
            json!({"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]});
        let result = json!({"type": "tool_result", "tool_use_id": "t1", "content": "ok"});
        let tooled = |messages: Value| {
            let mut r = request(messages);
            r["tools"] = json!([{"name": "f", "input_schema": {"type": "object"}}]);
            r
        };
        assert!(validate(&tooled(json!([user(json!("hi")), call, user(json!([result]))]))).is_ok());
        let err = validate(&request(json!([user(json!("hi")), call, user(json!([result]))]))).unwrap_err();
        assert!(err.contains("must define tools"), "{err}");

        let err = validate(&request(json!([user(json!("a")), user(json!("b"))]))).unwrap_err();
        assert!(err.contains("roles must alternate"), "{err}");
        let late = json!([{"type": "text", "text": "and"}, result]);
        let err = validate(&tooled(json!([user(json!("hi")), call, user(late)]))).unwrap_err();
        assert!(err.contains("without `tool_result` blocks immediately after: t1"), "{err}");
        let err = validate(&tooled(json!([user(json!([result]))]))).unwrap_err();
        assert!(err.contains("unexpected `tool_use_id`"), "{err}");
        let err = validate(&request(json!([user(json!(" "))]))).unwrap_err();
        assert!(err.contains("non-whitespace"), "{err}");
        let err = validate(&json!({"model": "m", "messages": [user(json!("hi"))]})).unwrap_err();
        assert!(err.contains("max_tokens"), "{err}");
    }

    #[test]
    fn tool_schemas_need_an_object_top_level_without_combinators() {
        let with_tool = |schema: Value| {
            let mut r = request(json!([{"role": "user", "content": "hi"}]));
            r["tools"] = json!([{"name": "f", "input_schema": schema}]);
            validate(&r)
        };
        assert!(with_tool(json!({"type": "object"})).is_ok());
        assert!(with_tool(json!({"properties": {}})).unwrap_err().contains("Input should be 'object'"));
        assert!(with_tool(json!({"type": "object", "anyOf": []})).unwrap_err().contains("at the top level"));
    }

    #[test]
    fn the_turns_read_as_chat_messages_with_tool_results_as_tool_messages() {
        let r = json!({"system": "Be brief.", "messages": [
            {"role": "user", "content": "look"},
            {"role": "assistant", "content": [{"type": "text", "text": "Sure."},
                {"type": "tool_use", "id": "t1", "name": "shot", "input": {"x": 1}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "is_error": true, "content": [
                    {"type": "text", "text": "partial"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}]},
                {"type": "text", "text": "well?"}]}
        ]});
        assert_eq!(
            chat_messages(&r),
            vec![
                json!({"role": "system", "content": "Be brief."}),
                json!({"role": "user", "content": "look"}),
                json!({"role": "assistant", "content": "Sure.", "tool_calls": [
                    {"id": "t1", "type": "function", "function": {"name": "shot", "arguments": "{\"x\":1}"}}]}),
                json!({"role": "tool", "tool_call_id": "t1", "content": "[is_error] partial\n[image block: image/png]"}),
                json!({"role": "user", "content": "well?"}),
            ]
        );
    }

    #[test]
    fn a_whole_message_has_text_and_tool_use_blocks() {
        let calls = [ScriptedCall::new("f", json!({"a": 1})), ScriptedCall::new("g", json!("{bad"))];
        let message = ids().message("Hi", &calls);
        assert_eq!(message["content"][0], json!({"type": "text", "text": "Hi"}));
        assert_eq!(message["content"][1]["input"], json!({"a": 1}));
        assert_eq!(message["content"][2]["input"], json!({}));
        assert_eq!(message["stop_reason"], "tool_use");
    }
}
