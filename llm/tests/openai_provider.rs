//! The OpenAI-compatible provider driven against the scripted fixture model over real HTTP: streaming
//! text and tool calls, error statuses, stalls, cancellation, and what the model is sent.

use std::time::Duration;

use futures::StreamExt;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;
use warden_llm::{
    AssembledCall, FinishReason, OpenAiCompatible, OpenAiConfig, Provider, ProviderError, StreamEvent,
    ToolCallAccumulator, TurnRequest,
};
use warden_testkit::{FixtureModel, Script, ScriptedCall, ScriptedError, Turn};
use warden_types::message::{Block, Message, Role};
use warden_types::tool::{ToolContent, ToolSpec};

use crate::common::provider_turns::{ask, closed_after_first_token, run, script, text_deltas, GUARD};

fn provider(model: &FixtureModel, api_key: Option<&str>, idle: Duration) -> OpenAiCompatible {
    OpenAiCompatible::new(OpenAiConfig {
        base_url: model.base_url(),
        api_key: api_key.map(str::to_string),
        model: "test-model".into(),
        connect_timeout: Duration::from_secs(5),
        idle_timeout: idle,
        request_timeout: Duration::from_secs(10),
        max_event_bytes: warden_llm::openai::DEFAULT_MAX_EVENT_BYTES,
    })
    .unwrap()
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
async fn parallel_tool_calls_are_assembled_with_their_raw_arguments() {
    let calls = vec![
        ScriptedCall::new("read_file", json!({"path": "notes/ä.txt"})),
        ScriptedCall::new("run_shell", json!("{\"command\": \"ls")),
    ];
    let model = FixtureModel::start(script("look", vec![Turn::calls(calls)])).await.unwrap();
    let events = run(&provider(&model, None, Duration::from_secs(10)), ask("please look")).await;
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
    assert_eq!(events.last(), Some(&Ok(StreamEvent::Finished { reason: FinishReason::ToolCalls })));
}

#[tokio::test]
async fn a_wrong_api_key_is_http_401_with_the_servers_message_and_no_key_in_it() {
    let model = FixtureModel::start_with_key(Script::default(), "right-key").await.unwrap();
    let p = provider(&model, Some("wrong-key"), Duration::from_secs(10));
    let Err(err) = p.stream_turn(ask("hi"), CancellationToken::new()).await else { panic!("expected an error") };
    assert_eq!(err, ProviderError::Http { status: 401, message: "Incorrect API key provided.".into() });
    assert!(err.to_string().starts_with("The model server answered 401 Unauthorized"), "{err}");
    assert!(!err.to_string().contains("wrong-key"));
}

#[tokio::test]
async fn the_right_api_key_is_sent_as_a_bearer_token() {
    let model = FixtureModel::start_with_key(script("hi", vec![Turn::text("welcome")]), "right-key").await.unwrap();
    let events = run(&provider(&model, Some("right-key"), Duration::from_secs(10)), ask("hi")).await;
    assert_eq!(text_deltas(&events).concat(), "welcome");
}

#[tokio::test]
async fn a_server_error_is_http_500_with_its_message_and_a_retry_can_succeed() {
    let turn = Turn {
        error: Some(ScriptedError { status: 500, message: "The engine is overloaded".into() }),
        fail_first: 1,
        ..Turn::text("recovered")
    };
    let model = FixtureModel::start(script("go", vec![turn])).await.unwrap();
    let p = provider(&model, None, Duration::from_secs(10));
    let Err(err) = p.stream_turn(ask("go"), CancellationToken::new()).await else { panic!("expected an error") };
    assert_eq!(err, ProviderError::Http { status: 500, message: "The engine is overloaded".into() });
    assert!(err.is_retryable());
    assert_eq!(text_deltas(&run(&p, ask("go")).await).concat(), "recovered");
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
async fn a_connection_closed_before_the_finish_and_done_is_a_stream_error() {
    let rest = closed_after_first_token(|model| provider(model, None, Duration::from_secs(60))).await;
    assert!(matches!(rest.as_slice(), [Err(ProviderError::Stream(_))]), "{rest:?}");
}

/// The connection closes halfway through a call's arguments: the turn fails rather than finishing with
/// a call cut short.
#[tokio::test]
async fn a_connection_closed_inside_a_tool_call_fails_the_turn_instead_of_finishing_it() {
    let call = ScriptedCall::new("read_file", json!({"path": "notes/a-rather-long-name.txt"}));
    // The role chunk, two text tokens, the call's header and two pieces of its arguments.
    let turn = Turn { text: Some("Reading it.".into()), close_after_events: Some(6), ..Turn::calls(vec![call]) };
    let model = FixtureModel::start(script("read", vec![turn])).await.unwrap();
    let events = run(&provider(&model, None, Duration::from_secs(60)), ask("read the notes")).await;
    assert_eq!(text_deltas(&events).concat(), "Reading it.");
    let arguments: String = events
        .iter()
        .filter_map(|e| match e {
            Ok(StreamEvent::ToolCallDelta { arguments, .. }) => Some(arguments.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(arguments, "{\"path\":\"notes", "the call was cut inside its arguments");
    assert!(!events.iter().any(|e| matches!(e, Ok(StreamEvent::Finished { .. }))), "{events:?}");
    match events.last() {
        Some(Err(ProviderError::Stream(message))) => assert!(message.contains("closed"), "{message}"),
        other => panic!("expected the turn to fail as cut, got {other:?}"),
    }
}

#[tokio::test]
async fn a_rate_limit_is_http_429_with_the_servers_message_and_a_retry_can_succeed() {
    let message = "Rate limit reached for test-model. Please try again in 20ms.";
    let turn = Turn {
        error: Some(ScriptedError { status: 429, message: message.into() }),
        fail_first: 2,
        ..Turn::text("after the wait")
    };
    let model = FixtureModel::start(script("busy", vec![turn])).await.unwrap();
    let p = provider(&model, None, Duration::from_secs(10));
    let Err(err) = p.stream_turn(ask("busy"), CancellationToken::new()).await else { panic!("expected an error") };
    assert_eq!(err, ProviderError::Http { status: 429, message: message.into() });
    assert!(err.is_retryable(), "{err:?}");
    // A title (not streamed) meets the same limit the same way.
    let title = p.complete(vec![Message::text(Role::User, "busy")]).await;
    assert_eq!(title, Err(ProviderError::Http { status: 429, message: message.into() }));
    assert_eq!(text_deltas(&run(&p, ask("busy")).await).concat(), "after the wait");
}

#[tokio::test]
async fn an_endless_sse_line_fails_the_turn_instead_of_growing_without_bound() {
    let turn = Turn { endless_line: true, ..Turn::text("before the flood") };
    let model = FixtureModel::start(script("flood", vec![turn])).await.unwrap();
    let mut p = provider(&model, None, Duration::from_secs(10));
    p = OpenAiCompatible::new(OpenAiConfig { max_event_bytes: 256 * 1024, ..p.config().clone() }).unwrap();
    // Bytes keep coming, so the idle timeout never fires: only the event cap can end this turn.
    let events = run(&p, ask("flood")).await;
    assert_eq!(text_deltas(&events).concat(), "before the flood");
    match events.last() {
        Some(Err(ProviderError::Stream(message))) => {
            assert!(message.contains("longer than 262144 bytes"), "{message}")
        }
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
async fn tool_calls_and_results_reach_the_model_in_the_openai_shape() {
    let model = FixtureModel::start(script("read", vec![Turn::text("unused"), Turn::text("The file says hello.")]))
        .await
        .unwrap();
    let messages = vec![
        Message::text(Role::System, "You are careful."),
        Message::text(Role::User, "read a.txt"),
        Message {
            role: Role::Assistant,
            content: vec![Block::ToolCall {
                id: "t1".into(),
                call_id: "call_1".into(),
                name: "read_file".into(),
                arguments: json!({"path": "a.txt"}),
            }],
        },
        Message {
            role: Role::Tool,
            content: vec![Block::ToolResult {
                tool_call_id: "t1".into(),
                call_id: "call_1".into(),
                content: vec![ToolContent::Text { text: "hello".into() }],
                is_error: false,
            }],
        },
    ];
    let tools = vec![ToolSpec {
        name: "read_file".into(),
        description: "Reads a file".into(),
        parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
    }];
    let events = run(&provider(&model, None, Duration::from_secs(10)), TurnRequest { messages, tools }).await;
    assert_eq!(text_deltas(&events).concat(), "The file says hello.");

    let sent = &model.requests()[0];
    assert_eq!(sent["stream"], true);
    assert_eq!(sent["model"], "test-model");
    assert_eq!(sent["messages"][3], json!({"role": "tool", "tool_call_id": "call_1", "content": "hello"}));
    assert_eq!(sent["messages"][2]["tool_calls"][0]["function"]["arguments"], "{\"path\":\"a.txt\"}");
    assert_eq!(
        sent["tools"][0],
        json!({"type": "function", "function": {
        "name": "read_file", "description": "Reads a file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}})
    );
}

#[tokio::test]
async fn without_tools_the_request_has_no_tools_field() {
    let model = FixtureModel::start(Script::default()).await.unwrap();
    let events = run(&provider(&model, None, Duration::from_secs(10)), ask("echo me")).await;
    assert_eq!(text_deltas(&events).concat(), "You said: echo me");
    assert!(model.requests()[0].get("tools").is_none());
}

#[tokio::test]
async fn complete_returns_the_scripted_title() {
    let mut s = script("weather", vec![]);
    s.scenarios[0].title = Some("Weather in Oslo".into());
    let model = FixtureModel::start(s).await.unwrap();
    let title = provider(&model, None, Duration::from_secs(10))
        .complete(vec![Message::text(Role::User, "Give a title for: what's the weather in Oslo?")])
        .await
        .unwrap();
    assert_eq!(title, "Weather in Oslo");
    assert_eq!(model.requests()[0]["stream"], false);
}

#[tokio::test]
async fn an_unreachable_server_is_a_connect_error() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let p = OpenAiCompatible::new(OpenAiConfig::new(format!("http://127.0.0.1:{port}/v1"), "m", None)).unwrap();
    let err = p.complete(vec![Message::text(Role::User, "hi")]).await.unwrap_err();
    assert!(matches!(err, ProviderError::Connect(_)), "{err:?}");
}

#[test]
fn a_provider_without_address_or_model_is_not_configured() {
    let err = OpenAiCompatible::new(OpenAiConfig::new("", "m", None)).unwrap_err();
    assert_eq!(err, ProviderError::NotConfigured);
    let err = OpenAiCompatible::new(OpenAiConfig::new("http://localhost/v1", " ", None)).unwrap_err();
    assert_eq!(err, ProviderError::NotConfigured);
}

/// A server that echoes the key in an error inside the stream: the turn's error does not show it.
#[tokio::test]
async fn a_key_a_server_echoes_in_a_streamed_error_is_redacted() {
    let key = "sk-echoed-secret-4242";
    let error = ScriptedError { status: 400, message: format!("the key {key} is not allowed here") };
    let turn = Turn { stream_error: Some(error), ..Turn::text("so far") };
    let model = FixtureModel::start(script("echo", vec![turn])).await.unwrap();
    let events = run(&provider(&model, Some(key), Duration::from_secs(10)), ask("echo please")).await;
    let failure = events.iter().find_map(|e| e.as_ref().err()).expect("the turn fails");
    let shown = failure.to_string();
    assert!(shown.contains("[redacted]") && !shown.contains(key), "{shown}");
}
