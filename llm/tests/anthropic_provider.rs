//! The Anthropic provider driven against the scripted fixture model's Messages route over real HTTP:
//! streamed text and tool calls, what the API is sent, error statuses and error events, stalls, early
//! ends, cancellation, and titles.

use std::time::Duration;

use futures::StreamExt;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;
use warden_llm::{
    Anthropic, AnthropicConfig, AssembledCall, FinishReason, Provider, ProviderError, StreamEvent, ToolCallAccumulator,
    TurnRequest,
};
use warden_testkit::{FixtureModel, Script, ScriptedCall, ScriptedError, Turn};
use warden_types::message::{Block, Message, Role};
use warden_types::tool::{ToolContent, ToolSpec};

use crate::common::provider_turns::{ask, closed_after_first_token, run, script, text_deltas, GUARD};

fn config(model: &FixtureModel, api_key: Option<&str>, idle: Duration) -> AnthropicConfig {
    AnthropicConfig {
        base_url: format!("http://{}", model.addr()),
        connect_timeout: Duration::from_secs(5),
        idle_timeout: idle,
        request_timeout: Duration::from_secs(10),
        ..AnthropicConfig::new(warden_llm::anthropic::DEFAULT_BASE_URL, "claude-test", api_key.map(str::to_string))
    }
}

fn provider(model: &FixtureModel, api_key: Option<&str>, idle: Duration) -> Anthropic {
    Anthropic::new(config(model, api_key, idle)).unwrap()
}

fn call(call_id: &str, name: &str, arguments: Value) -> Block {
    Block::ToolCall { id: format!("our-{call_id}").into(), call_id: call_id.into(), name: name.into(), arguments }
}

fn result(call_id: &str, content: Vec<ToolContent>, is_error: bool) -> Block {
    Block::ToolResult { tool_call_id: format!("our-{call_id}").into(), call_id: call_id.into(), content, is_error }
}

#[tokio::test]
async fn text_streams_in_several_deltas_that_join_to_the_scripted_text() {
    let text = "Hello there, this reply arrives in many small pieces.";
    // The delay splits every event across two reads.
    let model = FixtureModel::start(script("hi", vec![Turn { chunk_delay_ms: 2, ..Turn::text(text) }])).await.unwrap();
    let events = run(&provider(&model, None, Duration::from_secs(10)), ask("hi")).await;
    let deltas = text_deltas(&events);
    assert!(deltas.len() > 3, "{deltas:?}");
    assert_eq!(deltas.concat(), text);
    assert_eq!(events.last(), Some(&Ok(StreamEvent::Finished { reason: FinishReason::Stop })));
}

#[tokio::test]
async fn parallel_tool_calls_arrive_in_pieces_under_distinct_indexes_and_are_assembled() {
    let calls = vec![
        ScriptedCall::new("read_file", json!({"path": "notes/ä.txt"})),
        ScriptedCall::new("run_shell", json!("{\"command\": \"ls")),
    ];
    let turn = Turn { text: Some("Let me look.".into()), ..Turn::calls(calls) };
    let model = FixtureModel::start(script("look", vec![turn])).await.unwrap();
    let events = run(&provider(&model, None, Duration::from_secs(10)), ask("please look")).await;
    assert_eq!(text_deltas(&events).concat(), "Let me look.");
    let pieces = |index: u32| {
        events.iter().filter(|e| matches!(e, Ok(StreamEvent::ToolCallDelta { index: i, .. }) if *i == index)).count()
    };
    // The text is block 0; the calls are blocks 1 and 2, each a header and several argument pieces.
    assert!(pieces(1) > 2 && pieces(2) > 2, "{events:?}");
    let mut acc = ToolCallAccumulator::new();
    for event in &events {
        acc.observe(event.as_ref().unwrap());
    }
    let calls: Vec<AssembledCall> = acc.finish().into_iter().map(Result::unwrap).collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].name, "read_file");
    assert_eq!(serde_json::from_str::<Value>(&calls[0].arguments).unwrap(), json!({"path": "notes/ä.txt"}));
    assert_eq!(calls[1].name, "run_shell");
    assert_eq!(calls[1].arguments, "{\"command\": \"ls");
    assert_ne!(calls[0].call_id, calls[1].call_id);
    assert!(calls[0].call_id.starts_with("toolu_"), "{}", calls[0].call_id);
    assert_eq!(events.last(), Some(&Ok(StreamEvent::Finished { reason: FinishReason::ToolCalls })));
}

#[tokio::test]
async fn the_api_receives_system_on_top_alternating_turns_tool_blocks_and_acceptable_schemas() {
    let model = FixtureModel::start(script("read", vec![Turn::text("unused"), Turn::text("Done.")])).await.unwrap();
    let messages = vec![
        Message::text(Role::System, "You are careful."),
        Message::text(Role::User, "read a.txt"),
        Message::text(Role::User, "and b.txt"),
        Message {
            role: Role::Assistant,
            content: vec![
                Block::Text { text: "Reading both.".into() },
                call("toolu_1", "read_file", json!({"path": "a.txt"})),
                call("toolu_2", "read_file", json!("{\"path\": \"b.t")),
            ],
        },
        Message {
            role: Role::Tool,
            content: vec![
                result(
                    "toolu_1",
                    vec![
                        ToolContent::Text { text: "hello".into() },
                        ToolContent::Image { mime_type: "image/png".into(), data: "iVBORw0KGgo=".into() },
                    ],
                    false,
                ),
                result("toolu_2", vec![ToolContent::Text { text: "Invalid arguments".into() }], true),
            ],
        },
    ];
    let tools = vec![
        ToolSpec {
            name: "read_file".into(),
            description: "Reads a file".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
        },
        ToolSpec {
            name: "fetch".into(),
            description: "Fetches a page or a file".into(),
            parameters: json!({"oneOf": [
                {"properties": {"url": {"type": "string"}}, "required": ["url"]},
                {"properties": {"path": {"type": "string"}}, "required": ["path"]}
            ]}),
        },
    ];
    let events = run(&provider(&model, None, Duration::from_secs(10)), TurnRequest { messages, tools }).await;
    // The fixture refuses what the API refuses (400); an answer means the request was accepted.
    assert_eq!(text_deltas(&events).concat(), "Done.");

    let sent = &model.requests()[0];
    assert_eq!(sent["model"], "claude-test");
    assert_eq!(sent["max_tokens"], 4096);
    assert_eq!(sent["stream"], true);
    assert_eq!(sent["system"], "You are careful.");
    assert_eq!(
        sent["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "read a.txt"}, {"type": "text", "text": "and b.txt"}]},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Reading both."},
                {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a.txt"}},
                {"type": "tool_use", "id": "toolu_2", "name": "read_file", "input": {"_raw_arguments": "{\"path\": \"b.t"}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": false, "content": [
                    {"type": "text", "text": "hello"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
                ]},
                {"type": "tool_result", "tool_use_id": "toolu_2", "is_error": true, "content": [
                    {"type": "text", "text": "Invalid arguments"}
                ]}
            ]}
        ])
    );
    assert_eq!(
        sent["tools"],
        json!([
            {"name": "read_file", "description": "Reads a file", "input_schema":
                {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
            {"name": "fetch", "description": "Fetches a page or a file", "input_schema":
                {"type": "object", "properties": {"url": {"type": "string"}, "path": {"type": "string"}}}}
        ])
    );
}

#[tokio::test]
async fn the_reply_depends_on_the_tool_results_the_provider_really_sent() {
    let echo = Turn { echo_tool_results: true, ..Turn::text("Noted.") };
    let model = FixtureModel::start(script("shot", vec![Turn::text("unused"), echo])).await.unwrap();
    let messages = vec![
        Message::text(Role::User, "take a shot"),
        Message { role: Role::Assistant, content: vec![call("toolu_9", "screenshot", json!({}))] },
        Message {
            role: Role::Tool,
            content: vec![result(
                "toolu_9",
                vec![
                    ToolContent::Text { text: "captured".into() },
                    ToolContent::Image { mime_type: "image/jpeg".into(), data: "/9j/4AAQ".into() },
                ],
                true,
            )],
        },
    ];
    // The tool is still offered, so its call and result go as tool blocks.
    let tools = vec![ToolSpec {
        name: "screenshot".into(),
        description: "Takes a screenshot.".into(),
        parameters: json!({"type": "object", "properties": {}}),
    }];
    let events = run(&provider(&model, None, Duration::from_secs(10)), TurnRequest { messages, tools }).await;
    assert_eq!(text_deltas(&events).concat(), "Noted. [tool said: [is_error] captured\n[image block: image/jpeg]]");
}

#[tokio::test]
async fn a_wrong_api_key_is_http_401_with_the_apis_message_and_no_key_in_it() {
    let model = FixtureModel::start_with_key(Script::default(), "right-key").await.unwrap();
    let p = provider(&model, Some("wrong-key"), Duration::from_secs(10));
    let Err(err) = p.stream_turn(ask("hi"), CancellationToken::new()).await else { panic!("expected an error") };
    assert_eq!(err, ProviderError::Http { status: 401, message: "invalid x-api-key".into() });
    assert!(!err.is_retryable());
    assert!(err.to_string().starts_with("The model server answered 401 Unauthorized"), "{err}");
    assert!(!err.to_string().contains("wrong-key"));

    let Err(err) =
        provider(&model, None, Duration::from_secs(10)).stream_turn(ask("hi"), CancellationToken::new()).await
    else {
        panic!("expected an error")
    };
    assert_eq!(err, ProviderError::Http { status: 401, message: "x-api-key header is required".into() });
}

#[tokio::test]
async fn the_right_api_key_is_sent_as_x_api_key() {
    let model = FixtureModel::start_with_key(script("hi", vec![Turn::text("welcome")]), "right-key").await.unwrap();
    let events = run(&provider(&model, Some("right-key"), Duration::from_secs(10)), ask("hi")).await;
    assert_eq!(text_deltas(&events).concat(), "welcome");
}

async fn failing_once(status: u16, message: &str) -> (FixtureModel, Anthropic) {
    let turn = Turn {
        error: Some(ScriptedError { status, message: message.into() }),
        fail_first: 1,
        ..Turn::text("recovered")
    };
    let model = FixtureModel::start(script("go", vec![turn])).await.unwrap();
    let p = provider(&model, None, Duration::from_secs(10));
    (model, p)
}

#[tokio::test]
async fn a_rate_limit_is_a_retryable_http_429_and_a_retry_can_succeed() {
    let (_model, p) = failing_once(429, "Number of request tokens has exceeded your per-minute rate limit").await;
    let Err(err) = p.stream_turn(ask("go"), CancellationToken::new()).await else { panic!("expected an error") };
    assert_eq!(
        err,
        ProviderError::Http {
            status: 429,
            message: "Number of request tokens has exceeded your per-minute rate limit".into()
        }
    );
    assert!(err.is_retryable());
    assert_eq!(text_deltas(&run(&p, ask("go")).await).concat(), "recovered");
}

#[tokio::test]
async fn an_overload_is_a_retryable_http_529_and_a_retry_can_succeed() {
    let (_model, p) = failing_once(529, "Overloaded").await;
    let Err(err) = p.stream_turn(ask("go"), CancellationToken::new()).await else { panic!("expected an error") };
    assert_eq!(err, ProviderError::Http { status: 529, message: "Overloaded".into() });
    assert!(err.is_retryable());
    assert_eq!(text_deltas(&run(&p, ask("go")).await).concat(), "recovered");
}

#[tokio::test]
async fn an_error_event_mid_stream_is_the_http_error_its_type_implies_after_the_text_so_far() {
    let turn = Turn {
        stream_error: Some(ScriptedError { status: 529, message: "Overloaded".into() }),
        ..Turn::text("The first half")
    };
    let model = FixtureModel::start(script("half", vec![turn])).await.unwrap();
    let events = run(&provider(&model, None, Duration::from_secs(10)), ask("half")).await;
    assert_eq!(text_deltas(&events).concat(), "The first half");
    let last = events.last().unwrap().as_ref().unwrap_err();
    assert_eq!(last, &ProviderError::Http { status: 529, message: "Overloaded".into() });
    assert!(last.is_retryable());
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
async fn a_connection_closed_before_the_message_stopped_is_a_stream_error() {
    let rest = closed_after_first_token(|model| provider(model, None, Duration::from_secs(60))).await;
    assert!(matches!(rest.as_slice(), [Err(ProviderError::Stream(_))]), "{rest:?}");
}

#[tokio::test]
async fn an_endless_sse_line_fails_the_turn_instead_of_growing_without_bound() {
    let turn = Turn { endless_line: true, ..Turn::text("before the flood") };
    let model = FixtureModel::start(script("flood", vec![turn])).await.unwrap();
    let p = Anthropic::new(AnthropicConfig {
        max_event_bytes: 256 * 1024,
        ..config(&model, None, Duration::from_secs(10))
    })
    .unwrap();
    let events = run(&p, ask("flood")).await;
    assert_eq!(text_deltas(&events).concat(), "before the flood");
    match events.last() {
        Some(Err(ProviderError::Stream(message))) => assert!(message.contains("longer than 262144 bytes"), "{message}"),
        other => panic!("expected the stream to be cut, got {other:?}"),
    }
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
async fn a_token_cancelled_before_the_answer_arrives_gives_cancelled() {
    let model = FixtureModel::start(Script::default()).await.unwrap();
    let cancel = CancellationToken::new();
    cancel.cancel();
    let result = provider(&model, None, Duration::from_secs(10)).stream_turn(ask("hi"), cancel).await;
    assert_eq!(result.err(), Some(ProviderError::Cancelled));
}

#[tokio::test]
async fn without_tools_or_system_prompt_the_request_has_neither_field() {
    let model = FixtureModel::start(Script::default()).await.unwrap();
    let events = run(&provider(&model, None, Duration::from_secs(10)), ask("echo me")).await;
    assert_eq!(text_deltas(&events).concat(), "You said: echo me");
    let sent = &model.requests()[0];
    assert!(sent.get("tools").is_none() && sent.get("system").is_none(), "{sent}");
}

#[tokio::test]
async fn complete_returns_the_scripted_title_from_a_whole_message() {
    let mut s = script("weather", vec![]);
    s.scenarios[0].title = Some("Weather in Oslo".into());
    let model = FixtureModel::start(s).await.unwrap();
    let title = provider(&model, None, Duration::from_secs(10))
        .complete(vec![
            Message::text(Role::System, "Write a short title."),
            Message::text(Role::User, "Give a title for: what's the weather in Oslo?"),
        ])
        .await
        .unwrap();
    assert_eq!(title, "Weather in Oslo");
    let sent = &model.requests()[0];
    assert_eq!(sent["stream"], false);
    assert_eq!(sent["system"], "Write a short title.");
    assert_eq!(sent["max_tokens"], 4096);
}

#[tokio::test]
async fn a_failed_complete_is_the_http_error_with_the_apis_message() {
    let (_model, p) = failing_once(529, "Overloaded").await;
    let err = p.complete(vec![Message::text(Role::User, "go")]).await.unwrap_err();
    assert_eq!(err, ProviderError::Http { status: 529, message: "Overloaded".into() });
}

#[tokio::test]
async fn an_unreachable_server_is_a_connect_error() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let config = AnthropicConfig {
        base_url: format!("http://127.0.0.1:{port}"),
        ..AnthropicConfig::new(warden_llm::anthropic::DEFAULT_BASE_URL, "m", None)
    };
    let err = Anthropic::new(config).unwrap().complete(vec![Message::text(Role::User, "hi")]).await.unwrap_err();
    assert!(matches!(err, ProviderError::Connect(_)), "{err:?}");
}

#[test]
fn a_provider_without_address_or_model_is_not_configured() {
    let err = Anthropic::new(AnthropicConfig::new(warden_llm::anthropic::DEFAULT_BASE_URL, " ", None)).unwrap_err();
    assert_eq!(err, ProviderError::NotConfigured);
    let config = AnthropicConfig {
        base_url: String::new(),
        ..AnthropicConfig::new(warden_llm::anthropic::DEFAULT_BASE_URL, "claude-x", None)
    };
    assert_eq!(Anthropic::new(config).unwrap_err(), ProviderError::NotConfigured);
    let p = Anthropic::new(AnthropicConfig::new(warden_llm::anthropic::DEFAULT_BASE_URL, "claude-x", None)).unwrap();
    assert_eq!((p.name(), p.model()), ("anthropic", "claude-x"));
}

/// A thread whose tools were switched off still has its earlier calls: the API refuses tool blocks in a
/// request without tools, so they go as text, and the turn is answered.
#[tokio::test]
async fn earlier_calls_go_as_text_when_no_tools_are_offered() {
    let model = FixtureModel::start(script("", vec![Turn::text("Fine without tools.")])).await.unwrap();
    let messages = vec![
        Message::text(Role::User, "read a.txt"),
        Message { role: Role::Assistant, content: vec![call("toolu_1", "read_file", json!({"path": "a.txt"}))] },
        Message {
            role: Role::Tool,
            content: vec![result("toolu_1", vec![ToolContent::Text { text: "alpha".into() }], false)],
        },
        Message::text(Role::User, "thanks, no more tools"),
    ];
    let events = run(&provider(&model, None, Duration::from_secs(10)), TurnRequest { messages, tools: vec![] }).await;
    assert_eq!(text_deltas(&events).concat(), "Fine without tools.", "{events:?}");
    let sent = model.requests()[0].to_string();
    assert!(!sent.contains("tool_use") && !sent.contains("tool_result"), "{sent}");
    assert!(sent.contains("read_file") && sent.contains("alpha"), "the calls and results went as text: {sent}");
}
