//! Tool search over a real MCP server with many tools: the fixture with `--many-tools` behind the real
//! engine. The model is first offered only the built-in tools and `search_tools`; the MCP tool it
//! finds is offered and called (through the approval machinery and rmcp) on its next turn.

use std::sync::Arc;
use warden_types::id::ApprovalId;
use warden_types::id::RunId;

use crate::common::*;
use futures::StreamExt;
use serde_json::{json, Value};
use warden_engine::config::{Config, ModelConfig};
use warden_engine::Engine;
use warden_mcp::{McpHub, McpStore};
use warden_testkit::{FixtureModel, Scenario, Script, ScriptedCall, Turn};
use warden_types::approval::DecisionInput;

fn offered(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .map(|tools| tools.iter().filter_map(|t| t["function"]["name"].as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

fn last_tool_text(request: &Value) -> String {
    let messages = request["messages"].as_array().unwrap();
    messages.iter().rev().find(|m| m["role"] == "tool").unwrap()["content"].as_str().unwrap().to_string()
}

/// Reads the run's events until one of `kind`; returns its data.
async fn next_of(engine: &Engine, run_id: &RunId, kind: &str) -> Value {
    let mut stream = engine.subscribe(run_id, 0).await.unwrap();
    let found = async {
        while let Some(e) = stream.next().await {
            if e.kind == kind {
                return serde_json::from_str::<Value>(&e.data).unwrap();
            }
        }
        panic!("the run's events ended without {kind}")
    };
    tokio::time::timeout(PATIENCE, found).await.expect("the event arrives")
}

#[tokio::test]
async fn the_model_finds_an_mcp_tool_among_many_and_calls_it_next_turn() {
    let dir = tempfile::tempdir().unwrap();
    let turns = vec![
        Turn::calls(vec![ScriptedCall::new("search_tools", json!({"query": "get forecast"}))]),
        Turn::calls(vec![ScriptedCall::new("fixture__get_forecast", json!({}))]),
        Turn { echo_tool_results: true, ..Turn::text("Done.") },
    ];
    let model = FixtureModel::start(Script { scenarios: vec![Scenario::new("forecast", turns)], default_title: None })
        .await
        .unwrap();
    let mut config = Config::with_data_dir(dir.path());
    config.model = Some(ModelConfig { base_url: model.base_url(), api_key: None, model: "fixture".into() });
    let engine = Engine::open(config).await.unwrap();
    let hub = McpHub::new(McpStore::open(&engine.database()).await.unwrap());
    hub.upsert(stdio_config("fixture", &["--many-tools", "50"])).await.unwrap();
    let status = wait_connected(&hub, "fixture").await;
    assert!(status.tools.len() > 50, "{} tools", status.tools.len());
    engine.add_tool_source(Arc::new(hub.clone()));

    let thread = engine.create_thread(None).await.unwrap();
    let run_id = engine
        .send_message(&thread.id, "the forecast please".into(), &warden_testkit::people::owner())
        .await
        .unwrap()
        .run_id;
    let approval = next_of(&engine, &run_id, "approval_request").await;
    assert_eq!(approval["approval"]["tool"], "fixture__get_forecast");
    engine
        .decide(
            &ApprovalId::from(approval["approval"]["id"].as_str().unwrap()),
            DecisionInput::approve(),
            &warden_testkit::people::owner(),
        )
        .await
        .unwrap();
    next_of(&engine, &run_id, "run_finished").await;

    let requests: Vec<Value> = model.requests().into_iter().filter(|r| r["stream"] == true).collect();
    assert_eq!(requests.len(), 3);
    assert_eq!(offered(&requests[0]), ["list_dir", "read_file", "write_file", "shell", "search_tools", "read_result"]);
    let found = last_tool_text(&requests[1]);
    assert!(found.contains("- `fixture__get_forecast`: Get a forecast"), "{found}");
    let now = offered(&requests[1]);
    assert!(now.contains(&"fixture__get_forecast".to_string()), "{now:?}");
    assert!(!now.contains(&"fixture__echo".to_string()) && now.len() <= 6 + 8, "{now:?}");
    assert_eq!(last_tool_text(&requests[2]), "get_forecast ran");
    hub.shutdown().await;
    engine.shutdown();
}
