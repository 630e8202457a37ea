//! A real published MCP server driven through `McpHub`: PyPI `mcp-server-time`, installed by
//! `mcp/tests/install-published-servers.sh` into target/published-mcp/ (run that first).

use std::path::PathBuf;

use crate::common::*;
use serde_json::json;
use warden_mcp::{McpServerConfig, Transport};

fn time_server_python() -> PathBuf {
    let dir = std::env::var_os("WARDEN_PUBLISHED_MCP_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/published-mcp"));
    let python = dir.join("time-venv/bin/python");
    assert!(python.exists(), "{} is missing: run mcp/tests/install-published-servers.sh first", python.display());
    python
}

#[tokio::test]
async fn the_published_time_server_connects_lists_and_answers_through_the_hub() {
    let (hub, _dir) = hub().await;
    let config = McpServerConfig::new(
        "time",
        Transport::Stdio {
            command: time_server_python().display().to_string(),
            args: vec!["-m".into(), "mcp_server_time".into(), "--local-timezone".into(), "UTC".into()],
            env: Default::default(),
        },
    );
    hub.upsert(config).await.expect("saved");
    let status = wait_connected(&hub, "time").await;

    assert_eq!(status.server_info.map(|i| i.name), Some("mcp-time".to_owned()));
    let spec = tool(&hub, "time__get_current_time").spec();
    assert_eq!(spec.parameters["required"], json!(["timezone"]));
    let output =
        call(&hub, "time__get_current_time", json!({ "timezone": "Europe/Paris" })).await.expect("the server answers");
    assert!(!output.is_error, "{output:?}");
    assert!(text_of(&output).contains("Europe/Paris"), "{}", text_of(&output));

    // A bad argument comes back as the server's own error, not a crash.
    let bad = call(&hub, "time__get_current_time", json!({ "timezone": "Not/AZone" })).await;
    match bad {
        Ok(output) => assert!(output.is_error, "{output:?}"),
        Err(error) => assert!(error.to_string().contains("time"), "{error}"),
    }
    hub.shutdown().await;
}
