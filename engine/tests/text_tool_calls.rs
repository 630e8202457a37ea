//! `TextToolCalls` through the engine, over the real OpenAI-compatible provider and the scripted fixture
//! model: a call written as JSON in the model's text runs and its result reaches the model, and a
//! malformed one is answered with a note the model reads.

use std::sync::Arc;

use serde_json::Value;
use warden_engine::config::Config;
use warden_engine::Engine;
use warden_llm::{with_text_tool_calls, OpenAiCompatible, OpenAiConfig};
use warden_testkit::{FixtureModel, Scenario, Script, Turn};

use crate::common::{run_to_end, text_of};

fn openai(model: &FixtureModel) -> OpenAiCompatible {
    OpenAiCompatible::new(OpenAiConfig::new(model.base_url(), "test-model", None)).unwrap()
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
    let run_id = engine.send_message(&thread.id, "read my notes".into(), &crate::common::owner()).await.unwrap().run_id;
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
        let run_id =
            engine.send_message(&thread.id, "read my notes".into(), &crate::common::owner()).await.unwrap().run_id;
        let events = run_to_end(&engine, &run_id).await;

        assert!(text_of(&events).ends_with("Thanks."), "{call}: the model answered the note");
        let results = user_texts(&model, 1);
        let note = results.last().unwrap();
        assert!(note.starts_with("Result of read_file (call text-call-1), which failed:\n"), "{call}: {note}");
        assert!(note.contains("Invalid arguments for `read_file`"), "{call}: {note}");
    }
}
