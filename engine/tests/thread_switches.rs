//! A thread's switches from the composer: tools off (the model is offered none, and a call it makes
//! anyway never runs), MCP off (built-in tools stay, MCP servers' go), and the thread's step limit,
//! recorded on the runs it starts. The fixture model records what each request offered.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::common::*;
use async_trait::async_trait;
use serde_json::{json, Value};
use warden_engine::toolbox::ToolSource;
use warden_engine::Error;
use warden_testkit::{FixtureModel, Scenario, Script, ScriptedCall, Turn};
use warden_tools::{Risk, Tool, ToolContext, ToolError, ToolOrigin, ToolOutput, ToolSpec};
use warden_types::run::RunStatus;
use warden_types::thread::ThreadOptions;

const BUILT_IN: [&str; 4] = ["list_dir", "read_file", "write_file", "shell"];

/// The names of the tools each streamed request offered, in order.
fn offered(model: &FixtureModel) -> Vec<Vec<String>> {
    let streamed = model.requests().into_iter().filter(|r| r["stream"] == true);
    streamed
        .map(|r| {
            let tools = r.get("tools").and_then(Value::as_array).cloned().unwrap_or_default();
            tools.iter().filter_map(|t| t["function"]["name"].as_str().map(str::to_string)).collect()
        })
        .collect()
}

/// A tool that says it comes from an MCP server and counts its calls.
struct McpEcho(Arc<AtomicUsize>);

#[async_trait]
impl Tool for McpEcho {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "fx__echo".into(),
            description: "Echoes, from the fx server.".into(),
            parameters: json!({"type": "object", "properties": {}, "additionalProperties": false}),
        }
    }
    fn origin(&self) -> ToolOrigin {
        ToolOrigin::Mcp { server: "fx".into() }
    }
    fn needs_approval(&self, _: &Value) -> bool {
        false
    }
    fn risk(&self, _: &Value) -> Risk {
        Risk::Low
    }
    fn summary(&self, _: &Value) -> String {
        "Echo".into()
    }
    async fn call(&self, _: Value, _: ToolContext) -> Result<ToolOutput, ToolError> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok(ToolOutput::text("echoed"))
    }
}

struct Fx(Arc<AtomicUsize>);

impl ToolSource for Fx {
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        vec![Arc::new(McpEcho(self.0.clone()))]
    }
}

/// "call <tool>": the model calls it, then answers with what the tool said.
fn calling(tool: &str, arguments: Value) -> Scenario {
    let call = Turn::calls(vec![ScriptedCall::new(tool, arguments)]);
    Scenario::new(format!("call {tool}"), vec![call, Turn { echo_tool_results: true, ..Turn::text("Back.") }])
}

fn options(tools: bool, mcp: bool, max_steps: Option<u32>) -> ThreadOptions {
    ThreadOptions { tools, mcp, max_steps }
}

#[tokio::test]
async fn with_tools_off_the_model_is_offered_none_and_a_call_it_makes_anyway_does_not_run() {
    let script = Script { scenarios: vec![calling("fx__echo", json!({}))], default_title: None };
    let h = Harness::start(script).await;
    let calls = Arc::new(AtomicUsize::new(0));
    h.engine.add_tool_source(Arc::new(Fx(calls.clone())));
    let thread = h.engine.create_thread(None).await.unwrap();
    assert_eq!(h.engine.thread(&thread.id).await.unwrap().options, options(true, true, None));

    h.engine.set_thread_options(&thread.id, options(false, true, None)).await.unwrap();
    assert_eq!(h.engine.thread(&thread.id).await.unwrap().options, options(false, true, None));
    let started = h.engine.send_message(&thread.id, "call fx__echo".into(), &crate::common::owner()).await.unwrap();
    let events = run_to_end(&h.engine, &started.run_id).await;
    assert_eq!(offered(&h.model), [Vec::<String>::new(), vec![]], "no request offered a tool");
    assert!(text_of(&events).contains("no tools are offered in this conversation"), "{}", text_of(&events));
    assert_eq!(calls.load(Ordering::SeqCst), 0, "the call was not run");

    // Switched on again: the next run's model is offered every tool, and the call runs.
    h.model.reset();
    h.engine.set_thread_options(&thread.id, options(true, true, None)).await.unwrap();
    let started =
        h.engine.send_message(&thread.id, "call fx__echo again".into(), &crate::common::owner()).await.unwrap();
    let events = run_to_end(&h.engine, &started.run_id).await;
    let mut every = BUILT_IN.map(String::from).to_vec();
    every.push("fx__echo".into());
    every.push("read_result".into());
    assert_eq!(offered(&h.model)[0], every);
    assert!(text_of(&events).contains("[tool said: echoed]"), "{}", text_of(&events));
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn with_mcp_off_the_built_in_tools_stay_and_the_mcp_servers_tools_go() {
    let script = Script {
        scenarios: vec![calling("fx__echo", json!({})), calling("list_dir", json!({"path": "."}))],
        default_title: None,
    };
    let h = Harness::start(script).await;
    let calls = Arc::new(AtomicUsize::new(0));
    h.engine.add_tool_source(Arc::new(Fx(calls.clone())));
    let thread = h.engine.create_thread(None).await.unwrap();
    h.engine.set_thread_options(&thread.id, options(true, false, None)).await.unwrap();

    let started = h.engine.send_message(&thread.id, "call fx__echo".into(), &crate::common::owner()).await.unwrap();
    let events = run_to_end(&h.engine, &started.run_id).await;
    let mut built_in = BUILT_IN.map(String::from).to_vec();
    built_in.push("read_result".into());
    assert_eq!(offered(&h.model), [built_in.clone(), built_in.clone()]);
    assert!(text_of(&events).contains("There is no tool named `fx__echo`"), "{}", text_of(&events));
    assert_eq!(calls.load(Ordering::SeqCst), 0, "the MCP tool was not run");

    // A built-in tool still runs.
    let started = h.engine.send_message(&thread.id, "call list_dir".into(), &crate::common::owner()).await.unwrap();
    let events = run_to_end(&h.engine, &started.run_id).await;
    let detail = h.engine.thread(&thread.id).await.unwrap();
    let listed = detail.tool_calls.iter().find(|c| c.name == "list_dir").expect("the list_dir call");
    assert_eq!(listed.status, warden_types::run::ToolCallStatus::Done, "{}", text_of(&events));
}

#[tokio::test]
async fn a_threads_step_limit_is_recorded_on_its_runs_and_stops_them_there() {
    let mut looping =
        Scenario::new("loop", vec![Turn::calls(vec![ScriptedCall::new("list_dir", json!({"path": "."}))])]);
    looping.repeat_last_turn = true;
    let mut h = Harness::start(Script { scenarios: vec![looping], default_title: None }).await;
    let thread = h.engine.create_thread(None).await.unwrap();
    h.engine.set_thread_options(&thread.id, options(true, true, Some(2))).await.unwrap();

    let started = h.engine.send_message(&thread.id, "loop for ever".into(), &crate::common::owner()).await.unwrap();
    let events = run_to_end(&h.engine, &started.run_id).await;
    let failed = &of_kind(&events, "run_failed")[0];
    assert!(failed["message"].as_str().unwrap().contains("step limit (2 of 2 steps)"), "{failed}");
    let run = h.engine.run(&started.run_id).await.unwrap();
    assert_eq!((run.status, run.max_steps), (RunStatus::Failed, 2));
    assert_eq!(streamed_requests(&h.model), 2);

    // Kept across a restart; back to the server's default when cleared.
    h.restart(|_| {}).await;
    let detail = h.engine.thread(&thread.id).await.unwrap();
    assert_eq!((detail.options.max_steps, detail.default_max_steps), (Some(2), 10));
    h.engine.set_thread_options(&thread.id, options(true, true, None)).await.unwrap();
    let started = h.engine.send_message(&thread.id, "hello".into(), &crate::common::owner()).await.unwrap();
    run_to_end(&h.engine, &started.run_id).await;
    assert_eq!(h.engine.run(&started.run_id).await.unwrap().max_steps, 10);
}

#[tokio::test]
async fn step_limits_outside_1_to_100_are_refused_and_change_nothing() {
    let h = Harness::start(Script::default()).await;
    let thread = h.engine.create_thread(None).await.unwrap();
    h.engine.set_thread_options(&thread.id, options(true, false, Some(100))).await.unwrap();
    for bad in [0, 101, u32::MAX] {
        let err = h.engine.set_thread_options(&thread.id, options(false, true, Some(bad))).await.unwrap_err();
        assert!(matches!(err, Error::Invalid(_)) && err.to_string().contains("from 1 to 100"), "{err}");
    }
    assert_eq!(h.engine.thread(&thread.id).await.unwrap().options, options(true, false, Some(100)));
    let err = h.engine.set_thread_options(&"nope".into(), ThreadOptions::default()).await.unwrap_err();
    assert!(matches!(err, Error::NotFound { .. }), "{err}");
}
