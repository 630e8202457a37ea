//! The built-in model for real: SmolLM2-135M-Instruct loaded from its GGUF file by llama.cpp, behind
//! the real engine on a real SQLite file. `scripts/test.sh` fetches the file (scripts/fetch-model.sh);
//! `WARDEN_TEST_LOCAL_MODEL` points at it, else `target/models/` of the workspace. The engine is
//! given the model as the server gives it (`warden_local::provider` for `Config::local_model_to_load`).
#![allow(
    clippy::unwrap_used,
    reason = "test code: a test fails where it unwraps; clippy.toml's allow-unwrap-in-tests covers only #[test] fns, not the helpers"
)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use warden_types::id::{RunId, ThreadId};

use futures::StreamExt;
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use warden_engine::config::{Config, DEFAULT_LOCAL_MODEL_FILE as DEFAULT_MODEL_FILE};
use warden_engine::{Engine, RunEventRecord};
use warden_llm::{StreamEvent, TurnRequest};
use warden_local::LocalModel;
use warden_types::message::{Message, Role};
use warden_types::tool::ToolSpec;

fn model_file() -> PathBuf {
    let path = std::env::var_os("WARDEN_TEST_LOCAL_MODEL")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/models").join(DEFAULT_MODEL_FILE));
    assert!(path.exists(), "no {}: run scripts/fetch-model.sh target/models (scripts/test.sh does)", path.display());
    path
}

/// An engine with no provider configured, the model file where scripts/dev.sh puts it.
async fn engine_with_the_built_in_model(dir: &tempfile::TempDir) -> Engine {
    let models = dir.path().join("models");
    std::fs::create_dir_all(&models).expect("models dir");
    std::os::unix::fs::symlink(model_file(), models.join(DEFAULT_MODEL_FILE)).expect("link the model");
    let config = Config::with_data_dir(dir.path());
    assert!(config.model.is_none());
    let path = config.local_model_to_load().expect("the built-in model is wanted, its file is there");
    let local = warden_local::provider(path).expect("the model loads");
    Engine::open_with_local(config, Some(local)).await.expect("engine opens")
}

#[tokio::test]
async fn with_no_provider_the_built_in_model_answers_and_says_what_it_is() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = engine_with_the_built_in_model(&dir).await;
    let status = engine.model_status();
    assert!(status.configured);
    assert_eq!(status.provider, "local");
    assert_eq!(status.model, "SmolLM2-135M-Instruct.Q4_1");
    assert!(status.hint.is_some_and(|h| h.contains("seldom picks the right tool")));

    let thread = engine.create_thread(None).await.expect("thread");
    let started = engine
        .send_message(
            &thread.id,
            "What is the capital of France? Answer in one sentence.".into(),
            &warden_testkit::people::owner(),
        )
        .await
        .expect("send");
    let events = run_to_end_slowly(&engine, started.run_id.as_str()).await;
    // Streamed, not sent in one piece, and the answer depends on the question. (Tokens that arrive
    // within one 16 ms text frame go out as one delta: a one-sentence answer came in 3 on a busy run.)
    assert!(of_kind(&events, "text_delta").len() >= 2, "{events:#?}");
    assert!(text_of(&events).contains("Paris"), "{}", text_of(&events));
    assert_eq!(of_kind(&events, "run_finished").len(), 1);
}

#[tokio::test]
async fn stop_ends_a_long_answer_early() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = engine_with_the_built_in_model(&dir).await;
    let thread = engine.create_thread(None).await.expect("thread");
    let started = engine
        .send_message(
            &thread.id,
            "Write a very long story about a lighthouse keeper, at least 1000 words.".into(),
            &warden_testkit::people::owner(),
        )
        .await
        .expect("send");
    events_until_within(&engine, started.run_id.as_str(), GUARD, |e| e.kind == "text_delta").await;
    engine.stop_run(&started.run_id).await.expect("stop");
    let events = run_to_end_slowly(&engine, started.run_id.as_str()).await;
    let finished = of_kind(&events, "run_finished");
    assert_eq!(finished.len(), 1, "{events:#?}");
    assert_eq!(finished[0]["stopped"], true);
    // Far fewer tokens than the 1,000 words asked for were streamed.
    assert!(of_kind(&events, "text_delta").len() < 200, "{}", of_kind(&events, "text_delta").len());
    // The context still holds the story cut short; the thread's next question is read after it.
    let answer = answer_in(&engine, thread.id.as_str(), "What is the capital of France? Answer in one sentence.").await;
    assert!(answer.contains("Paris"), "{answer}");
}

#[tokio::test]
async fn a_thread_longer_than_the_context_gets_a_clear_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = engine_with_the_built_in_model(&dir).await;
    let thread = engine.create_thread(None).await.expect("thread");
    let long = "Tell me about this word: lighthouse. ".repeat(400);
    let started = engine.send_message(&thread.id, long, &warden_testkit::people::owner()).await.expect("send");
    let events = run_to_end_slowly(&engine, started.run_id.as_str()).await;
    let failed = of_kind(&events, "run_failed");
    assert_eq!(failed.len(), 1, "{events:#?}");
    let message = failed[0]["message"].as_str().unwrap_or_default();
    assert!(message.contains("too long for the built-in model") && message.contains("2048"), "{message}");
    // What the context held is untouched by the refusal: the next thread is answered as before.
    let other = engine.create_thread(None).await.expect("thread");
    let answer = answer_in(&engine, other.id.as_str(), "What is the capital of France? Answer in one sentence.").await;
    assert!(answer.contains("Paris"), "{answer}");
}

#[tokio::test]
async fn two_runs_at_once_share_one_loaded_model_and_both_are_answered() {
    let (a, b) = (tempfile::tempdir().expect("temp dir"), tempfile::tempdir().expect("temp dir"));
    let (first, second) = (engine_with_the_built_in_model(&a).await, engine_with_the_built_in_model(&b).await);
    let model = LocalModel::shared(&model_file()).expect("loads");
    assert!(Arc::ptr_eq(
        &model,
        &LocalModel::shared(&a.path().join("models").join(DEFAULT_MODEL_FILE)).expect("loads")
    ));
    let mut runs = Vec::new();
    for (engine, question) in [(&first, "What is the capital of France?"), (&second, "What is the capital of Italy?")] {
        let thread = engine.create_thread(None).await.expect("thread");
        runs.push(
            engine
                .send_message(&thread.id, question.into(), &warden_testkit::people::owner())
                .await
                .expect("send")
                .run_id,
        );
    }
    let (one, two) =
        tokio::join!(run_to_end_slowly(&first, runs[0].as_str()), run_to_end_slowly(&second, runs[1].as_str()));
    assert!(text_of(&one).contains("Paris"), "{}", text_of(&one));
    assert!(text_of(&two).contains("Rome"), "{}", text_of(&two));
    assert!(of_kind(&one, "run_finished")
        .iter()
        .chain(of_kind(&two, "run_finished").iter())
        .all(|f| f["stopped"] == false));
}

/// The model's context keeps the last turn, and the thread's next turn is read after it: the answer
/// still depends on what was said two turns before (not only on the last answer, which this model
/// likes to repeat).
#[tokio::test]
async fn a_later_turn_read_after_the_kept_context_still_knows_the_earlier_ones() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = engine_with_the_built_in_model(&dir).await;
    let thread = engine.create_thread(None).await.expect("thread");
    answer_in(&engine, thread.id.as_str(), "My name is Alice.").await;
    answer_in(&engine, thread.id.as_str(), "My favourite colour is green.").await;
    let answer = answer_in(&engine, thread.id.as_str(), "What is my name?").await;
    assert!(answer.contains("Alice"), "{answer}");
}

/// Two threads taking turns: each turn finds the other thread's conversation in the context, keeps only
/// what both begin with (the system prompt) and reads its own after that.
#[tokio::test]
async fn threads_taking_turns_each_get_answers_from_their_own_conversation() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = engine_with_the_built_in_model(&dir).await;
    let (alice, bob) =
        (engine.create_thread(None).await.expect("thread"), engine.create_thread(None).await.expect("thread"));
    for (alice_says, bob_says) in
        [("My name is Alice.", "My name is Bob."), ("My favourite colour is green.", "My favourite colour is blue.")]
    {
        answer_in(&engine, alice.id.as_str(), alice_says).await;
        answer_in(&engine, bob.id.as_str(), bob_says).await;
    }
    let to_alice = answer_in(&engine, alice.id.as_str(), "What is my name?").await;
    let to_bob = answer_in(&engine, bob.id.as_str(), "What is my name?").await;
    assert!(to_alice.contains("Alice") && !to_alice.contains("Bob"), "{to_alice}");
    assert!(to_bob.contains("Bob") && !to_bob.contains("Alice"), "{to_bob}");
}

/// Sends `text` in the thread and waits for the answer to end; returns the answer's text.
async fn answer_in(engine: &Engine, thread_id: &str, text: &str) -> String {
    let started = engine
        .send_message(&ThreadId::from(thread_id), text.into(), &warden_testkit::people::owner())
        .await
        .expect("send");
    let events = run_to_end_slowly(engine, started.run_id.as_str()).await;
    assert_eq!(of_kind(&events, "run_finished").len(), 1, "{events:#?}");
    text_of(&events)
}

/// The built-in model shares 2 cores with the rest of the suite; this only stops a hung test.
const GUARD: Duration = Duration::from_secs(180);

async fn run_to_end_slowly(engine: &Engine, run_id: &str) -> Vec<warden_engine::RunEventRecord> {
    events_until_within(engine, run_id, GUARD, |e| e.is_terminal()).await
}

/// The model is asked to copy a call with a misspelt tool and a wrong key: left to itself it would
/// write an invalid call (shown as text, or refused by the loop). Once it opens the ```json block the
/// grammar holds it to a registered tool with arguments valid for that tool, so a real call comes out.
#[tokio::test]
async fn a_call_the_built_in_model_starts_is_held_to_a_registered_tool_and_valid_arguments() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = engine_with_the_built_in_model(&dir).await;
    std::fs::write(engine.config().workspace.join("notes.txt"), "The meeting is on Tuesday.").unwrap();
    let thread = engine.create_thread(None).await.expect("thread");
    let prompt = "Reply with exactly this block and nothing else:\n```json\n{\"tool\": \"read_fil\", \"arguments\": \
                  {\"pth\": \"notes.txt\"}}\n```";
    let sent = std::time::Instant::now();
    let started = engine.send_message(&thread.id, prompt.into(), &warden_testkit::people::owner()).await.expect("send");
    let events =
        events_until_within(&engine, started.run_id.as_str(), GUARD, |e| e.kind == "tool_call" || e.is_terminal())
            .await;
    let took = sent.elapsed();
    engine.stop_run(&started.run_id).await.expect("stop");
    let calls = of_kind(&events, "tool_call");
    let first = calls.first().unwrap_or_else(|| panic!("no call: {}", text_of(&events)));
    let call = &first["call"];
    eprintln!("the built-in model called {} with {} after {took:?}", first["name"], first["arguments"]);
    assert!(["read_file", "list_dir", "write_file", "shell"].contains(&first["name"].as_str().unwrap()), "{first}");
    assert_ne!(call["status"], "invalid", "the arguments fit the tool's schema: {first}");
}

/// Bounds of a tool's schema hold too (`minimum`, `pattern`): asked to copy a call whose seats are below
/// the minimum and whose code breaks the pattern, the model writes one that keeps both.
#[tokio::test]
async fn a_call_the_built_in_model_writes_keeps_the_schemas_minimum_and_pattern() {
    let provider = warden_local::provider(&model_file()).expect("the model loads");
    let book = ToolSpec {
        name: "book".into(),
        description: "Books seats on a flight.".into(),
        parameters: serde_json::json!({"type": "object", "properties": {
            "seats": {"type": "integer", "minimum": 2},
            "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
        }, "required": ["seats", "code"]}),
    };
    let prompt = "Reply with exactly this block and nothing else:\n```json\n{\"tool\": \"book\", \"arguments\": \
                  {\"seats\": 0, \"code\": \"lhr\"}}\n```";
    let request = TurnRequest { messages: vec![Message::text(Role::User, prompt)], tools: vec![book] };
    let sent = std::time::Instant::now();
    let mut stream = provider.stream_turn(request, CancellationToken::new()).await.expect("a turn");
    let (mut name, mut arguments, mut text) = (None, String::new(), String::new());
    let read = async {
        while let Some(event) = stream.next().await {
            match event.expect("the turn goes on") {
                StreamEvent::ToolCallDelta { name: n, arguments: a, .. } => {
                    name = name.take().or(n);
                    arguments.push_str(&a);
                }
                StreamEvent::TextDelta(t) => text.push_str(&t),
                StreamEvent::Finished { .. } => break,
            }
        }
    };
    tokio::time::timeout(GUARD, read).await.expect("the turn ends");
    eprintln!("the built-in model called {name:?} with {arguments} after {:?}", sent.elapsed());
    assert_eq!(name.as_deref(), Some("book"), "{text}");
    let arguments: Value = serde_json::from_str(&arguments).expect("JSON arguments");
    assert!(arguments["seats"].as_i64().is_some_and(|n| n >= 2), "{arguments}");
    let code = arguments["code"].as_str().unwrap_or_default();
    assert!(code.len() == 3 && code.bytes().all(|b| b.is_ascii_uppercase()), "{arguments}");
}

/// Reads the run's events (from the start) until one satisfies `until`; returns all read so far.
async fn events_until_within(
    engine: &Engine,
    run_id: &str,
    guard: Duration,
    until: impl Fn(&RunEventRecord) -> bool,
) -> Vec<RunEventRecord> {
    let stream = engine.subscribe(&RunId::from(run_id), 0).await.expect("subscribe");
    warden_testkit::events::read_until(stream, guard, until, |e| e.kind.to_string()).await
}

fn of_kind(events: &[RunEventRecord], kind: &str) -> Vec<Value> {
    events
        .iter()
        .filter(|e| e.kind == kind)
        .map(|e| serde_json::from_str(&e.data).expect("event data is JSON"))
        .collect()
}

fn text_of(events: &[RunEventRecord]) -> String {
    of_kind(events, "text_delta").iter().filter_map(|d| d["text"].as_str().map(str::to_string)).collect()
}
