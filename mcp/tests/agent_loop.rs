//! MCP tools inside the real agent loop: the engine on a real SQLite file, the fixture model over
//! HTTP asking for MCP tools, the rmcp fixture server and the published `mcp-server-time`, each
//! call gated by the same approval machinery as built-in tools.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use warden_types::id::ApprovalId;
use warden_types::id::RunId;

use crate::common::*;
use futures::StreamExt;
use serde_json::{json, Value};
use warden_engine::config::{Config, ModelConfig};
use warden_engine::Engine;
use warden_mcp::{McpHub, McpServerConfig, McpStore, Transport};
use warden_testkit::{FixtureModel, Scenario, Script, ScriptedCall, Turn};
use warden_tools::{Risk, ToolOrigin};
use warden_types::approval::DecisionInput;

fn time_python() -> PathBuf {
    std::env::var_os("WARDEN_PUBLISHED_MCP_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/published-mcp"))
        .join("time-venv/bin/python")
}

async fn events_until(engine: &Engine, run_id: &RunId, kind: &str, n: usize) -> Vec<(String, Value)> {
    let mut stream = engine.subscribe(run_id, 0).await.unwrap();
    let mut seen = Vec::new();
    let read = async {
        let mut count = 0;
        while let Some(e) = stream.next().await {
            let data: Value = serde_json::from_str(&e.data).unwrap();
            let hit = e.kind == kind;
            seen.push((e.kind.to_string(), data));
            if hit {
                count += 1;
                if count >= n {
                    return;
                }
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(60), read).await.expect("event arrives");
    seen
}

#[tokio::test]
async fn gated_mcp_tools_run_after_approval_and_the_model_sees_their_results() {
    let dir = tempfile::tempdir().unwrap();
    let turn = Turn::calls(vec![
        ScriptedCall::new("fixture__delete_item", json!({"id": "42"})),
        ScriptedCall::new("time__get_current_time", json!({"timezone": "UTC"})),
    ]);
    let model = FixtureModel::start(Script {
        scenarios: vec![Scenario::new("clean", vec![turn, Turn::text("Done.")])],
        default_title: None,
    })
    .await
    .unwrap();
    let mut config = Config::with_data_dir(dir.path());
    config.model = Some(ModelConfig { base_url: model.base_url(), api_key: None, model: "fixture".into() });
    let engine = Engine::open(config).await.unwrap();
    let hub = McpHub::new(McpStore::open(&engine.database()).await.unwrap());
    hub.upsert(stdio_config("fixture", &[])).await.unwrap();
    let python = time_python();
    assert!(python.exists(), "run mcp/tests/install-published-servers.sh first");
    hub.upsert(McpServerConfig::new(
        "time",
        Transport::Stdio {
            command: python.display().to_string(),
            args: vec!["-m".into(), "mcp_server_time".into(), "--local-timezone".into(), "UTC".into()],
            env: Default::default(),
        },
    ))
    .await
    .unwrap();
    wait_connected(&hub, "fixture").await;
    wait_connected(&hub, "time").await;
    engine.add_tool_source(Arc::new(hub.clone()));

    let thread = engine.create_thread(None).await.unwrap();
    let run_id =
        engine.send_message(&thread.id, "clean up".into(), &warden_testkit::people::owner()).await.unwrap().run_id;
    let events = events_until(&engine, &run_id, "approval_request", 2).await;
    let approvals: Vec<&Value> =
        events.iter().filter(|(k, _)| k == "approval_request").map(|(_, d)| &d["approval"]).collect();
    let delete =
        approvals.iter().find(|a| a["tool"] == "fixture__delete_item").expect("a card for the destructive tool");
    let delete: warden_types::approval::Approval = serde_json::from_value((*delete).clone()).unwrap();
    assert_eq!(delete.risk, Risk::High, "destructiveHint means high risk");
    assert_eq!(delete.origin, ToolOrigin::Mcp { server: "fixture".into() }, "the card names the server");
    assert!(approvals.iter().any(|a| a["tool"] == "time__get_current_time"), "untrusted read-only hints still ask");

    for a in &approvals {
        let id = a["id"].as_str().unwrap();
        engine.decide(&ApprovalId::from(id), DecisionInput::approve(), &warden_testkit::people::owner()).await.unwrap();
    }
    let events = events_until(&engine, &run_id, "run_finished", 1).await;
    let results: Vec<&Value> = events.iter().filter(|(k, _)| k == "tool_result").map(|(_, d)| d).collect();
    assert!(results.iter().any(|r| r["output"].as_str().unwrap().contains("deleted 42")));
    assert!(
        results.iter().any(|r| r["output"].as_str().unwrap().contains("UTC")),
        "the published server answered: {results:?}"
    );

    let second = model.requests().into_iter().filter(|r| r["stream"] == true).nth(1).expect("a second model turn");
    let tool_texts: Vec<String> = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].to_string())
        .collect();
    assert_eq!(tool_texts.len(), 2);
    assert!(tool_texts.iter().any(|t| t.contains("deleted 42")));
    hub.shutdown().await;
    engine.shutdown();
}
