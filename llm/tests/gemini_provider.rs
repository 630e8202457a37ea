//! The Gemini provider driven against the scripted fixture model's Gemini route over real HTTP:
//! streamed text and whole function calls, thought signatures sent back, error statuses and in-stream
//! errors, stalls, early closes, cancellation, and exactly what Gemini is sent.

use std::time::Duration;

use futures::StreamExt;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;
use warden_llm::{
    AssembledCall, FinishReason, Gemini, GeminiConfig, Provider, ProviderError, StreamEvent, ToolCallAccumulator,
    TurnRequest,
};
use warden_testkit::{FixtureModel, Scenario, Script, ScriptedCall, ScriptedError, Turn};
use warden_types::message::{Block, Message, Role};
use warden_types::tool::{ToolContent, ToolSpec};

use crate::common::provider_turns::{ask, closed_after_first_token, run, script, text_deltas, GUARD};

fn config(model: &FixtureModel, api_key: Option<&str>, idle: Duration) -> GeminiConfig {
    GeminiConfig {
        base_url: format!("http://{}", model.addr()),
        idle_timeout: idle,
        connect_timeout: Duration::from_secs(5),
        request_timeout: Duration::from_secs(10),
        ..GeminiConfig::new(warden_llm::gemini::DEFAULT_BASE_URL, "test-model", api_key.map(str::to_string))
    }
}

fn provider(model: &FixtureModel, api_key: Option<&str>, idle: Duration) -> Gemini {
    Gemini::new(config(model, api_key, idle)).unwrap()
}

fn assembled(events: &[Result<StreamEvent, ProviderError>]) -> Vec<AssembledCall> {
    let mut acc = ToolCallAccumulator::new();
    for event in events {
        acc.observe(event.as_ref().unwrap());
    }
    acc.finish().into_iter().map(Result::unwrap).collect()
}

#[tokio::test]
async fn text_streams_in_several_deltas_that_join_to_the_scripted_text() {
    let text = "Hello there, this reply arrives in many small pieces.";
    let model = FixtureModel::start(script("hi", vec![Turn { chunk_delay_ms: 2, ..Turn::text(text) }])).await.unwrap();
    let events = run(&provider(&model, None, Duration::from_secs(10)), ask("hi")).await;
    let deltas = text_deltas(&events);
    assert!(deltas.len() > 3, "{deltas:?}");
    assert_eq!(deltas.concat(), text);
    assert_eq!(events.last(), Some(&Ok(StreamEvent::Finished { reason: FinishReason::Stop })));
}

#[tokio::test]
async fn parallel_function_calls_arrive_whole_with_distinct_ids_and_end_as_tool_calls() {
    let calls = vec![
        ScriptedCall::new("read_file", json!({"path": "notes/ä.txt"})),
        ScriptedCall::new("run_shell", json!({"command": "ls"})),
    ];
    let model = FixtureModel::start(script("look", vec![Turn { text: Some("Looking.".into()), ..Turn::calls(calls) }]))
        .await
        .unwrap();
    let events = run(&provider(&model, None, Duration::from_secs(10)), ask("please look")).await;
    assert_eq!(text_deltas(&events).concat(), "Looking.");
    let deltas = events.iter().filter(|e| matches!(e, Ok(StreamEvent::ToolCallDelta { .. }))).count();
    assert_eq!(deltas, 2, "one whole delta per call");
    let calls = assembled(&events);
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].name, "read_file");
    assert_eq!(serde_json::from_str::<Value>(&calls[0].arguments).unwrap(), json!({"path": "notes/ä.txt"}));
    assert_eq!(calls[1].name, "run_shell");
    assert_eq!(serde_json::from_str::<Value>(&calls[1].arguments).unwrap(), json!({"command": "ls"}));
    assert_ne!(calls[0].call_id, calls[1].call_id);
    assert_eq!(events.last(), Some(&Ok(StreamEvent::Finished { reason: FinishReason::ToolCalls })));
}

/// Gemini may send a turn's calls a chunk each: they are numbered across the chunks, not per chunk, so
/// none overwrites another, and the turn ends as tool calls only with the last chunk's finish reason.
#[tokio::test]
async fn function_calls_in_separate_chunks_stay_separate_calls_with_distinct_ids() {
    let calls = vec![
        ScriptedCall::new("read_file", json!({"path": "a.txt"})),
        ScriptedCall::new("read_file", json!({"path": "b.txt"})),
        ScriptedCall::new("list_dir", json!({})),
    ];
    let turn = Turn { text: Some("Looking.".into()), calls_in_separate_chunks: true, ..Turn::calls(calls) };
    let model = FixtureModel::start(script("look", vec![turn])).await.unwrap();
    let events = run(&provider(&model, None, Duration::from_secs(10)), ask("please look")).await;
    assert_eq!(text_deltas(&events).concat(), "Looking.");
    let indexes: Vec<u32> = events
        .iter()
        .filter_map(|e| match e {
            Ok(StreamEvent::ToolCallDelta { index, .. }) => Some(*index),
            _ => None,
        })
        .collect();
    assert_eq!(indexes, [0, 1, 2]);
    let calls = assembled(&events);
    let made: Vec<(&str, Value)> =
        calls.iter().map(|c| (c.name.as_str(), serde_json::from_str::<Value>(&c.arguments).unwrap())).collect();
    assert_eq!(
        made,
        [("read_file", json!({"path": "a.txt"})), ("read_file", json!({"path": "b.txt"})), ("list_dir", json!({}))]
    );
    let ids: std::collections::HashSet<&str> = calls.iter().map(|c| c.call_id.as_str()).collect();
    assert_eq!(ids.len(), 3, "{calls:?}");
    assert_eq!(events.last(), Some(&Ok(StreamEvent::Finished { reason: FinishReason::ToolCalls })));
}

#[tokio::test]
async fn a_call_goes_back_with_its_thought_signature_and_the_reply_depends_on_the_result_sent() {
    let turns = vec![
        Turn::calls(vec![ScriptedCall::new("read_file", json!({"path": "a.txt"}))]),
        Turn { echo_tool_results: true, ..Turn::text("The file says") },
    ];
    let model = FixtureModel::start(script("read", turns)).await.unwrap();
    let p = provider(&model, None, Duration::from_secs(10));
    let first = run(&p, ask("read a.txt")).await;
    let call = assembled(&first).remove(0);
    let messages = vec![
        Message::text(Role::User, "read a.txt"),
        Message {
            role: Role::Assistant,
            content: vec![Block::ToolCall {
                id: "t1".into(),
                call_id: call.call_id.clone(),
                name: call.name.clone(),
                arguments: serde_json::from_str(&call.arguments).unwrap(),
            }],
        },
        Message {
            role: Role::Tool,
            content: vec![Block::ToolResult {
                tool_call_id: "t1".into(),
                call_id: call.call_id,
                content: vec![ToolContent::Text { text: "hello from a.txt".into() }],
                is_error: false,
            }],
        },
    ];
    let second = run(&p, TurnRequest { messages, tools: vec![] }).await;
    assert_eq!(text_deltas(&second).concat(), "The file says [tool said: hello from a.txt]");

    let sent = &model.requests()[1];
    let call_part = &sent["contents"][1]["parts"][0];
    assert_eq!(call_part["functionCall"], json!({"name": "read_file", "args": {"path": "a.txt"}}));
    let signature = call_part["thoughtSignature"].as_str().expect("the signature goes back");
    assert!(signature.starts_with("Zml4dHVyZS1zaWduYXR1cmU"), "{signature}");
    assert_eq!(
        sent["contents"][2],
        json!({"role": "user", "parts": [
            {"functionResponse": {"name": "read_file", "response": {"output": "hello from a.txt"}}}
        ]})
    );
}

#[tokio::test]
async fn gemini_receives_system_instruction_alternating_contents_function_parts_and_rewritten_schemas() {
    let model = FixtureModel::start_with_key(
        script("read", vec![Turn::text("unused"), Turn { echo_tool_results: true, ..Turn::text("Seen:") }]),
        "right-key",
    )
    .await
    .unwrap();
    let messages = vec![
        Message::text(Role::System, "You are careful."),
        Message::text(Role::User, "read a.txt"),
        Message {
            role: Role::Assistant,
            content: vec![
                Block::Text { text: "Reading.".into() },
                Block::ToolCall {
                    id: "t1".into(),
                    call_id: "gemini-call-0#sig:U0lH".into(),
                    name: "read_file".into(),
                    arguments: json!({"path": "a.txt"}),
                },
                Block::ToolCall {
                    id: "t2".into(),
                    call_id: "gemini-call-1".into(),
                    name: "write_file".into(),
                    arguments: json!({"path": "b.txt", "content": "x"}),
                },
            ],
        },
        Message {
            role: Role::Tool,
            content: vec![
                Block::ToolResult {
                    tool_call_id: "t1".into(),
                    call_id: "gemini-call-0#sig:U0lH".into(),
                    content: vec![ToolContent::Text { text: "hello".into() }],
                    is_error: false,
                },
                Block::ToolResult {
                    tool_call_id: "t2".into(),
                    call_id: "gemini-call-1".into(),
                    content: vec![ToolContent::Text { text: "The user denied this call: not now".into() }],
                    is_error: true,
                },
            ],
        },
    ];
    let tools = vec![
        ToolSpec {
            name: "read_file".into(),
            description: "Reads a file".into(),
            parameters: json!({
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "path": {"$ref": "#/$defs/path"},
                    "encoding": {"type": ["string", "null"], "const": "utf-8"}
                },
                "required": ["path"],
                "$defs": {"path": {"type": "string", "description": "Relative path"}}
            }),
        },
        ToolSpec {
            name: "list_roots".into(),
            description: "Lists roots".into(),
            parameters: json!({"type": "object", "properties": {}}),
        },
    ];
    let events =
        run(&provider(&model, Some("right-key"), Duration::from_secs(10)), TurnRequest { messages, tools }).await;
    assert_eq!(
        text_deltas(&events).concat(),
        "Seen: [tool said: hello] [tool said: Error: The user denied this call: not now]"
    );

    assert_eq!(model.request_targets(), vec!["POST /v1beta/models/test-model:streamGenerateContent?alt=sse"]);
    let sent = &model.requests()[0];
    assert_eq!(sent["systemInstruction"], json!({"parts": [{"text": "You are careful."}]}));
    assert_eq!(
        sent["contents"],
        json!([
            {"role": "user", "parts": [{"text": "read a.txt"}]},
            {"role": "model", "parts": [
                {"text": "Reading."},
                {"functionCall": {"name": "read_file", "args": {"path": "a.txt"}}, "thoughtSignature": "U0lH"},
                {"functionCall": {"name": "write_file", "args": {"path": "b.txt", "content": "x"}}}
            ]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "read_file", "response": {"output": "hello"}}},
                {"functionResponse": {"name": "write_file",
                                      "response": {"error": "The user denied this call: not now"}}}
            ]}
        ])
    );
    assert_eq!(
        sent["tools"],
        json!([{"functionDeclarations": [
            {"name": "read_file", "description": "Reads a file", "parameters": {
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Relative path"},
                    "encoding": {"type": "string", "enum": ["utf-8"], "nullable": true}
                },
                "required": ["path"]
            }},
            {"name": "list_roots", "description": "Lists roots"}
        ]}])
    );
    assert!(sent.get("model").is_none() && sent.get("stream").is_none() && sent.get("messages").is_none());
}

#[tokio::test]
async fn without_tools_the_request_has_no_tools_field() {
    let model = FixtureModel::start(Script::default()).await.unwrap();
    let events = run(&provider(&model, None, Duration::from_secs(10)), ask("echo me")).await;
    assert_eq!(text_deltas(&events).concat(), "You said: echo me");
    assert!(model.requests()[0].get("tools").is_none());
    assert!(model.requests()[0].get("systemInstruction").is_none());
}

#[tokio::test]
async fn a_wrong_api_key_is_http_401_with_googles_message_and_the_key_is_never_in_the_url() {
    let model = FixtureModel::start_with_key(Script::default(), "right-key").await.unwrap();
    let p = provider(&model, Some("wrong-key"), Duration::from_secs(10));
    let Err(err) = p.stream_turn(ask("hi"), CancellationToken::new()).await else { panic!("expected an error") };
    assert_eq!(
        err,
        ProviderError::Http { status: 401, message: "API key not valid. Please pass a valid API key.".into() }
    );
    assert!(err.to_string().starts_with("The model server answered 401 Unauthorized"), "{err}");
    assert!(!err.is_retryable());
    assert!(model.request_targets().iter().all(|t| !t.contains("key")), "{:?}", model.request_targets());
}

#[tokio::test]
async fn no_api_key_is_googles_403() {
    let model = FixtureModel::start_with_key(Script::default(), "right-key").await.unwrap();
    let err = provider(&model, None, Duration::from_secs(10)).complete(vec![Message::text(Role::User, "hi")]).await;
    assert!(
        matches!(err, Err(ProviderError::Http { status: 403, ref message }) if message.contains("unregistered callers"))
    );
}

#[tokio::test]
async fn rate_limits_and_overload_are_retryable_http_errors_and_a_retry_can_succeed() {
    let failing = |status: u16, message: &str| Turn {
        error: Some(ScriptedError { status, message: message.into() }),
        fail_first: 1,
        ..Turn::text("recovered")
    };
    let model = FixtureModel::start(Script {
        scenarios: vec![
            Scenario::new("busy", vec![failing(429, "Resource has been exhausted (e.g. check quota).")]),
            Scenario::new("overloaded", vec![failing(503, "The model is overloaded. Please try again later.")]),
        ],
        default_title: None,
    })
    .await
    .unwrap();
    let p = provider(&model, None, Duration::from_secs(10));
    for (ask_for, status, message) in [
        ("busy", 429, "Resource has been exhausted (e.g. check quota)."),
        ("overloaded", 503, "The model is overloaded. Please try again later."),
    ] {
        let Err(err) = p.stream_turn(ask(ask_for), CancellationToken::new()).await else { panic!("expected an error") };
        assert_eq!(err, ProviderError::Http { status, message: message.into() });
        assert!(err.is_retryable(), "{err:?}");
        assert_eq!(text_deltas(&run(&p, ask(ask_for)).await).concat(), "recovered");
    }
}

#[tokio::test]
async fn an_error_in_the_stream_is_an_http_error_with_its_status_after_the_text_sent() {
    let turn = Turn {
        stream_error: Some(ScriptedError { status: 500, message: "An internal error has occurred.".into() }),
        ..Turn::text("partial answer")
    };
    let model = FixtureModel::start(script("go", vec![turn])).await.unwrap();
    let events = run(&provider(&model, None, Duration::from_secs(10)), ask("go")).await;
    assert_eq!(text_deltas(&events).concat(), "partial answer");
    let last = events.last().unwrap();
    assert_eq!(last, &Err(ProviderError::Http { status: 500, message: "An internal error has occurred.".into() }));
    assert!(last.as_ref().unwrap_err().is_retryable());
}

#[tokio::test]
async fn a_stalled_stream_ends_with_a_timeout_after_the_tokens_it_sent() {
    let turn = Turn { repeat_tokens: Some(10), stall_after_tokens: Some(2), ..Default::default() };
    let model = FixtureModel::start(script("stall", vec![turn])).await.unwrap();
    let events = run(&provider(&model, None, Duration::from_millis(300)), ask("stall")).await;
    assert_eq!(text_deltas(&events).concat(), "tok0 tok1");
    assert!(matches!(events.last(), Some(Err(ProviderError::Silent(_)))), "{events:?}");
}

#[tokio::test]
async fn a_connection_closed_before_the_finish_reason_is_a_stream_error() {
    let rest = closed_after_first_token(|model| provider(model, None, Duration::from_secs(60))).await;
    match rest.as_slice() {
        [Err(ProviderError::Stream(message))] => assert!(message.contains("closed before"), "{message}"),
        other => panic!("expected one stream error, got {other:?}"),
    }
}

#[tokio::test]
async fn an_endless_sse_line_fails_the_turn_instead_of_growing_without_bound() {
    let turn = Turn { endless_line: true, ..Turn::text("before the flood") };
    let model = FixtureModel::start(script("flood", vec![turn])).await.unwrap();
    let p = Gemini::new(GeminiConfig { max_event_bytes: 256 * 1024, ..config(&model, None, Duration::from_secs(10)) })
        .unwrap();
    let events = run(&p, ask("flood")).await;
    assert_eq!(text_deltas(&events).concat(), "before the flood");
    assert!(
        matches!(events.last(), Some(Err(ProviderError::Stream(m))) if m.contains("longer than 262144 bytes")),
        "{:?}",
        events.last()
    );
}

#[tokio::test]
async fn a_broken_call_from_the_model_finishes_with_gemini_s_reason() {
    let turn = Turn::calls(vec![ScriptedCall::new("read_file", json!("{\"path\": \"a"))]);
    let model = FixtureModel::start(script("broken", vec![turn])).await.unwrap();
    let events = run(&provider(&model, None, Duration::from_secs(10)), ask("broken")).await;
    assert_eq!(
        events,
        vec![Ok(StreamEvent::Finished { reason: FinishReason::Other("MALFORMED_FUNCTION_CALL".into()) })]
    );
}

#[tokio::test]
async fn cancelling_ends_the_stream_with_cancelled() {
    let turn = Turn { repeat_tokens: Some(10), stall_after_tokens: Some(1), ..Default::default() };
    let model = FixtureModel::start(script("wait", vec![turn])).await.unwrap();
    let p = provider(&model, None, Duration::from_secs(60));
    let cancel = CancellationToken::new();
    let mut stream = p.stream_turn(ask("wait"), cancel.clone()).await.unwrap();
    let first = tokio::time::timeout(GUARD, stream.next()).await.unwrap();
    assert_eq!(first, Some(Ok(StreamEvent::TextDelta("tok0".into()))));
    cancel.cancel();
    let rest: Vec<_> = tokio::time::timeout(GUARD, stream.collect::<Vec<_>>()).await.unwrap();
    assert_eq!(rest, vec![Err(ProviderError::Cancelled)]);
}

#[tokio::test]
async fn complete_returns_the_scripted_title_from_generate_content() {
    let mut s = script("weather", vec![]);
    s.scenarios[0].title = Some("Weather in Oslo".into());
    let model = FixtureModel::start_with_key(s, "right-key").await.unwrap();
    let title = provider(&model, Some("right-key"), Duration::from_secs(10))
        .complete(vec![
            Message::text(Role::System, "Give a short title."),
            Message::text(Role::User, "what's the weather in Oslo?"),
        ])
        .await
        .unwrap();
    assert_eq!(title, "Weather in Oslo");
    assert_eq!(model.request_targets(), vec!["POST /v1beta/models/test-model:generateContent"]);
    assert_eq!(model.requests()[0]["systemInstruction"]["parts"][0]["text"], "Give a short title.");
}

#[tokio::test]
async fn an_unreachable_server_is_a_connect_error() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let config = GeminiConfig {
        base_url: format!("http://127.0.0.1:{port}"),
        ..GeminiConfig::new(warden_llm::gemini::DEFAULT_BASE_URL, "m", None)
    };
    let err = Gemini::new(config).unwrap().complete(vec![Message::text(Role::User, "hi")]).await.unwrap_err();
    assert!(matches!(err, ProviderError::Connect(_)), "{err:?}");
}
