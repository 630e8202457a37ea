//! `AppState::open` is how the binary and every server test build the state: the engine, then
//! warden-mcp on the same database with the `mcpServers` file the config names, its servers
//! connected in the background and their tools offered to the agent.

use crate::common;

use std::time::Duration;

use leptos::prelude::LeptosOptions;
use reqwest::{Method, StatusCode};
use serde_json::json;
use warden_engine::config::{Config, ModelConfig};
use warden_mcp_fixture::{binary as fixture_bin, PATIENCE};
use warden_testkit::{FixtureModel, Scenario, Script, Turn};

#[tokio::test]
async fn the_opened_state_loads_the_mcp_file_and_offers_its_tools_to_the_model() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("mcp.json");
    let servers = json!({"mcpServers": {"fixture": {"command": fixture_bin().display().to_string(), "args": []}}});
    std::fs::write(&file, servers.to_string()).expect("mcp file written");
    let model = FixtureModel::start(Script {
        scenarios: vec![Scenario::new("tools", vec![Turn::text("I see them.")])],
        default_title: None,
    })
    .await
    .expect("fixture model");
    let mut config = Config::with_data_dir(dir.path().join("data"));
    config.model = Some(ModelConfig { base_url: model.base_url(), api_key: None, model: "fixture".into() });
    config.mcp_config_file = Some(file);
    let served = common::serve_app(config, LeptosOptions::builder().output_name("warden").build()).await;
    let http = common::client();

    // The file's server is stored and connects without anyone asking.
    let connected = tokio::time::timeout(PATIENCE, async {
        loop {
            let (status, server) =
                common::send_json(&http, Method::GET, format!("{}/api/mcp/servers/fixture", served.base), None).await;
            assert_eq!(status, StatusCode::OK, "{server}");
            if server["state"]["state"] == "connected" {
                return server;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the file's server connects");
    assert!(connected["tools"].as_array().is_some_and(|t| !t.is_empty()), "{connected}");

    // The agent is offered its tools.
    let engine = served.engine();
    let thread = engine.create_thread(None).await.expect("thread");
    let run_id = engine.send_message(&thread.id, "tools?".into(), &crate::common::owner()).await.expect("sent").run_id;
    tokio::time::timeout(PATIENCE, async {
        while !engine.run(&run_id).await.expect("run").status.is_terminal() {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the run ends");
    let request = model.requests().into_iter().find(|r| r["stream"] == true).expect("a model request");
    let offered: Vec<&str> = request["tools"]
        .as_array()
        .map(|t| t.iter().filter_map(|t| t["function"]["name"].as_str()).collect())
        .unwrap_or_default();
    assert!(offered.contains(&"fixture__echo"), "offered: {offered:?}");
    served.mcp().shutdown().await;
}
