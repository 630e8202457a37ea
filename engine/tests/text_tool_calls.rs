//! `TextToolCalls` over the real OpenAI-compatible provider and the scripted fixture model: calls
//! written as JSON in the model's text come out as tool calls, the model is sent no native tools but
//! their description, and earlier calls and results go back as text; end to end through the engine,
//! a call runs and a malformed one is answered with a note the model reads.

use std::sync::Arc;

use serde_json::{json, Value};
use warden_engine::config::Config;
use warden_engine::llm::{
    with_text_tool_calls, FinishReason, OpenAiCompatible, OpenAiConfig, ProviderError, StreamEvent, TextToolCalls,
    TurnRequest,
};
use warden_engine::tools::{ToolContent, ToolSpec};
use warden_engine::Engine;
use warden_testkit::{FixtureModel, Scenario, Script, Turn};
use warden_types::message::{Block, Message, Role};

use crate::common::provider_turns::run;
use crate::common::{run_to_end, text_of};

fn openai(model: &FixtureModel) -> OpenAiCompatible {
    OpenAiCompatible::new(OpenAiConfig::new(model.base_url(), "test-model", None)).unwrap()
}

fn read_file_spec() -> ToolSpec {
    ToolSpec {
        name: "read_file".into(),
        description: "Reads a file".into(),
        parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
    }
}

fn text_of_events(events: &[Result<StreamEvent, ProviderError>]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            Ok(StreamEvent::TextDelta(t)) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

const CALLING_ANSWER: &str =
    "I will read it.\n\n```json\n{\"tool\": \"read_file\", \"arguments\": {\"path\": \"a.txt\"}}\n```\n";

#[tokio::test]
async fn a_fenced_call_in_the_models_text_is_a_tool_call_and_the_tool_is_described_not_sent() {
    let turn = Turn { chunk_delay_ms: 1, ..Turn::text(CALLING_ANSWER) };
    let model = FixtureModel::start(Script { scenarios: vec![Scenario::new("read", vec![turn])], default_title: None })
        .await
        .unwrap();
    let provider = TextToolCalls::new(Arc::new(openai(&model)));
    let request = TurnRequest {
        messages: vec![Message::text(Role::System, "You are careful."), Message::text(Role::User, "read a.txt")],
        tools: vec![read_file_spec()],
    };
    let events = run(&provider, request).await;

    assert_eq!(text_of_events(&events), "I will read it.\n\n");
    let calls: Vec<&StreamEvent> = events
        .iter()
        .filter_map(|e| e.as_ref().ok())
        .filter(|e| matches!(e, StreamEvent::ToolCallDelta { .. }))
        .collect();
    assert_eq!(
        calls,
        vec![&StreamEvent::ToolCallDelta {
            index: 0,
            call_id: Some("text-call-1".into()),
            name: Some("read_file".into()),
            arguments: json!({"path": "a.txt"}).to_string(),
        }]
    );
    assert_eq!(events.last(), Some(&Ok(StreamEvent::Finished { reason: FinishReason::ToolCalls })));

    let sent = &model.requests()[0];
    assert!(sent.get("tools").is_none(), "no native tools: {sent}");
    let messages = sent["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[0]["role"], "system");
    let system = messages[0]["content"].as_str().unwrap();
    assert!(system.starts_with("You are careful.\n\n"), "{system}");
    assert!(system.contains("## read_file\nReads a file\n"), "{system}");
    assert!(system.contains(r#"{"properties":{"path":{"type":"string"}},"type":"object"}"#), "{system}");
    assert!(system.contains("```json\n{\"tool\": \"<tool name>\""), "{system}");
    assert_eq!(messages[1], json!({"role": "user", "content": "read a.txt"}));
}

#[tokio::test]
async fn the_next_turn_carries_the_call_as_text_and_its_result_as_a_user_message() {
    let script = Script {
        scenarios: vec![Scenario::new("Result of read_file", vec![Turn::text("The file says hello.")])],
        default_title: None,
    };
    let model = FixtureModel::start(script).await.unwrap();
    let provider = with_text_tool_calls(Arc::new(openai(&model)));
    let messages = vec![
        Message::text(Role::User, "read a.txt"),
        Message {
            role: Role::Assistant,
            content: vec![
                Block::Text { text: "I will read it.".into() },
                Block::ToolCall {
                    id: "t1".into(),
                    call_id: "text-call-1".into(),
                    name: "read_file".into(),
                    arguments: json!({"path": "a.txt"}),
                },
            ],
        },
        Message {
            role: Role::Tool,
            content: vec![Block::ToolResult {
                tool_call_id: "t1".into(),
                call_id: "text-call-1".into(),
                content: vec![ToolContent::Text { text: "hello".into() }],
                is_error: false,
            }],
        },
    ];
    let events = run(provider.as_ref(), TurnRequest { messages, tools: vec![read_file_spec()] }).await;
    assert_eq!(text_of_events(&events), "The file says hello.");
    assert_eq!(events.last(), Some(&Ok(StreamEvent::Finished { reason: FinishReason::Stop })));

    let sent = &model.requests()[0];
    let messages = sent["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["system", "user", "assistant", "user"]);
    assert_eq!(
        messages[2],
        json!({"role": "assistant",
               "content": "I will read it.\n\n```json\n{\"tool\":\"read_file\",\"arguments\":{\"path\":\"a.txt\"}}\n```"})
    );
    assert_eq!(messages[3], json!({"role": "user", "content": "Result of read_file (call text-call-1):\nhello"}));
    assert!(messages.iter().all(|m| m.get("tool_calls").is_none()));
}

/// An engine whose provider is the fixture model behind `TextToolCalls`, on a temp dir.
async fn engine_with_text_calls(script: Script) -> (tempfile::TempDir, FixtureModel, Engine) {
    let dir = tempfile::tempdir().unwrap();
    let model = FixtureModel::start(script).await.unwrap();
    let provider = with_text_tool_calls(Arc::new(openai(&model)));
    let engine = Engine::open_with_provider(Config::with_data_dir(dir.path()), Some(provider)).await.unwrap();
    (dir, model, engine)
}

/// The user-role messages of streamed request `index`.
fn user_texts(model: &FixtureModel, index: usize) -> Vec<String> {
    let streamed: Vec<Value> = model.requests().into_iter().filter(|r| r["stream"] == true).collect();
    streamed[index]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn two_step_script(call: &str) -> Script {
    Script {
        scenarios: vec![
            Scenario::new("Result of read_file", vec![Turn::text("Thanks.")]),
            Scenario::new("notes", vec![Turn::text(format!("Reading.\n```json\n{call}\n```"))]),
        ],
        default_title: Some("Notes".into()),
    }
}

#[tokio::test]
async fn through_the_engine_a_call_in_text_runs_and_its_result_reaches_the_model() {
    let (_dir, model, engine) =
        engine_with_text_calls(two_step_script(r#"{"tool": "read_file", "arguments": {"path": "notes.txt"}}"#)).await;
    std::fs::write(engine.config().workspace.join("notes.txt"), "hello from notes").unwrap();
    let thread = engine.create_thread(None).await.unwrap();
    let run_id = engine.send_message(&thread.id, "read my notes".into()).await.unwrap().run_id;
    let events = run_to_end(&engine, &run_id).await;

    assert_eq!(text_of(&events), "Reading.\nThanks.");
    let results = user_texts(&model, 1);
    let result = results.last().unwrap();
    assert!(result.starts_with("Result of read_file (call text-call-1):\n"), "{result}");
    assert!(result.contains("hello from notes"), "{result}");
}

#[tokio::test]
async fn through_the_engine_arguments_that_are_not_an_object_are_answered_with_a_note_to_the_model() {
    for call in [
        r#"{"tool": "read_file", "arguments": "notes.txt"}"#,
        r#"{"tool": "read_file", "arguments": {path: "notes.txt"}}"#,
        r#"{"tool": "read_file", "arguments": {"path": "notes.txt""#,
    ] {
        let (_dir, model, engine) = engine_with_text_calls(two_step_script(call)).await;
        let thread = engine.create_thread(None).await.unwrap();
        let run_id = engine.send_message(&thread.id, "read my notes".into()).await.unwrap().run_id;
        let events = run_to_end(&engine, &run_id).await;

        assert!(text_of(&events).ends_with("Thanks."), "{call}: the model answered the note");
        let results = user_texts(&model, 1);
        let note = results.last().unwrap();
        assert!(note.starts_with("Result of read_file (call text-call-1), which failed:\n"), "{call}: {note}");
        assert!(note.contains("Invalid arguments for `read_file`"), "{call}: {note}");
    }
}
