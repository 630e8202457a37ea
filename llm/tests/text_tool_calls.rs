//! `TextToolCalls` over the real OpenAI-compatible provider and the scripted fixture model: calls
//! written as JSON in the model's text come out as tool calls, the model is sent no native tools but
//! their description, and earlier calls and results go back as text (through the engine: the engine's
//! `text_tool_calls` tests).

use std::sync::Arc;

use serde_json::json;
use warden_llm::{
    with_text_tool_calls, FinishReason, OpenAiCompatible, OpenAiConfig, ProviderError, StreamEvent, TextToolCalls,
    TurnRequest,
};
use warden_testkit::{FixtureModel, Scenario, Script, Turn};
use warden_types::message::{Block, Message, Role};
use warden_types::tool::{ToolContent, ToolSpec};

use crate::common::provider_turns::run;

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
    // The schema as JSON, whatever order its keys print in (serde_json keeps the written order when another
    // crate of the build, llguidance, turns on `preserve_order`).
    let schema_line = system.lines().find_map(|l| l.strip_prefix("Parameters (JSON Schema): ")).unwrap_or_default();
    let schema: serde_json::Value = serde_json::from_str(schema_line).unwrap_or_default();
    assert_eq!(schema, json!({"type": "object", "properties": {"path": {"type": "string"}}}), "{system}");
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
