//! Bounds on what a model or a tool can make the engine do: a model turn is cut at its byte and
//! tool-call caps, a tool call that never returns is ended by Stop and by the per-call timeout, and
//! a FIFO in the workspace cannot hang a run. The real engine, real SQLite, real HTTP to the
//! scripted model.

use std::sync::Arc;
use std::time::Duration;

use crate::common::*;
use async_trait::async_trait;
use serde_json::{json, Value};
use warden_engine::toolbox::ToolSource;
use warden_testkit::{Scenario, Script, ScriptedCall, Turn};
use warden_tools::{Risk, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};
use warden_types::run::RunStatus;

fn script(when: &str, turns: Vec<Turn>) -> Script {
    Script { scenarios: vec![Scenario::new(when, turns)], default_title: None }
}

#[tokio::test]
async fn a_model_turn_past_the_byte_cap_is_cut_with_a_clear_error() {
    let flood = Turn { repeat_tokens: Some(5000), ..Turn::text("Here goes:") };
    let h = Harness::start_with(script("talk", vec![flood]), |c| c.max_turn_bytes = 4096).await;
    let (thread_id, run_id) = h.send("talk a lot").await;
    let events = run_to_end(&h.engine, &run_id).await;
    let error = &of_kind(&events, "run_failed")[0];
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("The model's answer exceeded 4096 bytes and was cut"), "{message}");
    assert!(text_of(&events).len() < 8192, "the relayed text stops near the cap");
    let run = h.engine.run(&run_id).await.unwrap();
    assert_eq!(run.status, RunStatus::Failed);
    assert_eq!(run.error.as_deref(), Some(message));
    let messages = h.engine.thread(&thread_id).await.unwrap().messages;
    assert_eq!(messages.len(), 1, "the cut answer is not kept as a message");
}

#[tokio::test]
async fn a_turn_with_too_many_tool_calls_is_cut_and_none_of_them_run() {
    let calls = (0..40)
        .map(|i| ScriptedCall::new("write_file", json!({"path": format!("f{i}.txt"), "content": "x"})))
        .collect();
    let h = Harness::start_with(script("many", vec![Turn::calls(calls), Turn::text("never")]), |c| {
        c.max_tool_calls_per_turn = 32;
    })
    .await;
    let (thread_id, run_id) = h.send("many calls").await;
    let events = run_to_end(&h.engine, &run_id).await;
    let message = of_kind(&events, "run_failed")[0]["message"].as_str().unwrap().to_string();
    assert!(message.contains("asked for more than 32 tool calls and was cut"), "{message}");
    assert!(of_kind(&events, "tool_call").is_empty() && of_kind(&events, "approval_request").is_empty());
    assert!(h.engine.thread(&thread_id).await.unwrap().tool_calls.is_empty());
    assert!(!h.workspace().join("f0.txt").exists());
    assert_eq!(streamed_requests(&h.model), 1);
}

/// A tool that never returns and ignores its cancel token, like a wedged MCP server.
struct Hang;

#[async_trait]
impl Tool for Hang {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "hang".into(),
            description: "Never returns.".into(),
            parameters: json!({"type": "object", "properties": {}, "additionalProperties": false}),
        }
    }
    fn needs_approval(&self, _: &Value) -> bool {
        false
    }
    fn risk(&self, _: &Value) -> Risk {
        Risk::Low
    }
    fn summary(&self, _: &Value) -> String {
        "Hang for ever".into()
    }
    async fn call(&self, _: Value, _: ToolContext) -> Result<ToolOutput, ToolError> {
        std::future::pending().await
    }
}

struct HangSource;

impl ToolSource for HangSource {
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        vec![Arc::new(Hang)]
    }
}

fn hang_script() -> Script {
    script("hang", vec![Turn::calls(vec![ScriptedCall::new("hang", json!({}))]), Turn::text("It came back.")])
}

#[tokio::test]
async fn stop_ends_a_run_whose_tool_call_never_returns() {
    let h = Harness::start(hang_script()).await;
    h.engine.add_tool_source(Arc::new(HangSource));
    let (thread_id, run_id) = h.send("hang please").await;
    events_until(&h.engine, &run_id, |e| e.kind == "step" && e.data.contains("Hang for ever")).await;
    h.engine.stop_run(&run_id).await.unwrap();
    let events = run_to_end(&h.engine, &run_id).await;
    assert_eq!(of_kind(&events, "run_finished")[0]["stopped"], true);
    let result = &of_kind(&events, "tool_result")[0];
    assert_eq!(result["is_error"], true);
    assert!(result["output"].as_str().unwrap().contains("stopped by the user while this call was running"));
    assert_eq!(h.engine.run(&run_id).await.unwrap().status, RunStatus::Cancelled);
    let call = &h.engine.thread(&thread_id).await.unwrap().tool_calls[0];
    assert_eq!(call.status, warden_types::run::ToolCallStatus::Done);
}

#[tokio::test]
async fn the_per_call_timeout_ends_a_tool_call_that_never_returns_and_the_run_goes_on() {
    let h = Harness::start_with(hang_script(), |c| c.tool_timeout = Duration::from_millis(300)).await;
    h.engine.add_tool_source(Arc::new(HangSource));
    let (_, run_id) = h.send("hang please").await;
    let events = run_to_end(&h.engine, &run_id).await;
    let result = &of_kind(&events, "tool_result")[0];
    assert_eq!(result["is_error"], true);
    assert!(result["output"].as_str().unwrap().contains("did not finish within 300 ms"), "{result}");
    assert!(text_of(&events).contains("It came back."));
    assert_eq!(h.engine.run(&run_id).await.unwrap().status, RunStatus::Finished);
    let told = tool_messages(&h.model, 1)[0]["content"].as_str().unwrap_or_default().to_string();
    assert!(told.contains("did not finish within 300 ms"), "the model is told: {told}");
}

#[tokio::test]
async fn reading_a_fifo_in_the_workspace_fails_at_once_and_the_run_finishes() {
    let turn = Turn::calls(vec![ScriptedCall::new("read_file", json!({"path": "pipe"}))]);
    let h = Harness::start(script("pipe", vec![turn, Turn::text("That is a pipe.")])).await;
    let fifo = std::ffi::CString::new(h.workspace().join("pipe").into_os_string().into_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0, "mkfifo");
    let (_, run_id) = h.send("read the pipe").await;
    let events = run_to_end(&h.engine, &run_id).await;
    let result = &of_kind(&events, "tool_result")[0];
    assert_eq!(result["is_error"], true);
    assert!(result["output"].as_str().unwrap().contains("is a FIFO (named pipe), not a regular file"), "{result}");
    assert!(text_of(&events).contains("That is a pipe."));
}
