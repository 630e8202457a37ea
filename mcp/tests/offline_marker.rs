//! A call whose MCP server went offline is stored with a typed marker (`ToolFailure::ServerOffline`),
//! so the chat offers to reconnect from the record, never from the result's wording. Real engine,
//! scripted model over HTTP, real fixture server that crashes on purpose.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use warden_engine::config::{Config, ModelConfig};
use warden_engine::Engine;
use warden_mcp::{McpHub, McpStore, ToolPolicy};
use warden_testkit::{FixtureModel, Scenario, Script, ScriptedCall, Turn};
use warden_tools::ToolFailure;
use warden_types::run::RunStatus;

use crate::common::{stdio_config, wait_connected};

#[tokio::test]
async fn a_call_to_a_server_that_went_offline_is_stored_with_the_offline_marker() {
    let dir = tempfile::tempdir().expect("temp dir");
    // The echo's own text says the words the UI once matched on; only the crash is marked.
    let turn = Turn::calls(vec![
        ScriptedCall::new("fx__echo", json!({"text": "Error: server `fx` is offline"})),
        ScriptedCall::new("fx__crash", json!({})),
    ]);
    let model = FixtureModel::start(Script {
        scenarios: vec![Scenario::new("crash", vec![turn, Turn::text("Noted.")])],
        default_title: None,
    })
    .await
    .expect("fixture model");
    let mut config = Config::with_data_dir(dir.path());
    config.model = Some(ModelConfig { base_url: model.base_url(), api_key: None, model: "fixture".into() });
    let engine = Engine::open(config).await.expect("engine opens");
    let hub = McpHub::new(McpStore::open(&engine.database()).await.expect("mcp store"));
    let down = dir.path().join("down");
    hub.upsert(stdio_config("fx", &["--down-while", &down.display().to_string()])).await.expect("saved");
    wait_connected(&hub, "fx").await;
    for tool in ["echo", "crash"] {
        hub.set_tool_policy("fx", tool, ToolPolicy::NeverAsk).await.expect("policy");
    }
    // Once it crashes it stays down (it refuses to start while this file exists).
    std::fs::write(&down, "").expect("flag file");
    engine.add_tool_source(Arc::new(hub.clone()));

    let thread = engine.create_thread(None).await.expect("thread");
    let run_id = engine
        .send_message(&thread.id, "crash please".into(), &warden_testkit::people::owner())
        .await
        .expect("sent")
        .run_id;
    let finished = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            let run = engine.run(&run_id).await.expect("run");
            if run.status.is_terminal() {
                return run;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the run ends");
    assert_eq!(finished.status, RunStatus::Finished, "{finished:?}");

    let calls = engine.thread(&thread.id).await.expect("thread").tool_calls;
    let failure_of = |name: &str| {
        calls.iter().find(|c| c.name == name).map(|c| c.failure).unwrap_or_else(|| panic!("no {name} call: {calls:?}"))
    };
    assert_eq!(failure_of("fx__crash"), Some(ToolFailure::ServerOffline), "{calls:?}");
    assert_eq!(failure_of("fx__echo"), None, "a tool's own words are not the marker: {calls:?}");
    // Sent as a typed value to every client.
    let crash = calls.iter().find(|c| c.name == "fx__crash").expect("crash call");
    assert_eq!(serde_json::to_value(crash).expect("JSON")["failure"], "server_offline");

    hub.shutdown().await;
    engine.shutdown();
}
