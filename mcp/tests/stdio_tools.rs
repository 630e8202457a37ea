//! MCP tools over stdio, against the real fixture process: listing, approval from annotations,
//! faithful results, progress, cancellation, timeouts, list_changed, and crash recovery.

use crate::common;

use crate::common::*;
use serde_json::json;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use warden_mcp::{ServerState, ToolPolicy};
use warden_tools::{Risk, ToolContent, ToolContext, ToolError, ToolOrigin};

#[tokio::test]
async fn stdio_server_lists_its_identity_and_namespaced_tools_with_their_schemas() {
    let (hub, _dir) = hub().await;
    hub.upsert(stdio_config("fx", &[])).await.expect("saved");
    let status = wait_connected(&hub, "fx").await;

    let info = status.server_info.expect("server info");
    assert_eq!(info.name, "warden-mcp-fixture");
    assert!(!info.version.is_empty());
    let echo = status.tools.iter().find(|t| t.name == "echo").expect("echo listed");
    assert_eq!(echo.qualified_name, "fx__echo");
    assert!(echo.read_only_hint);
    assert!(!echo.offline);

    let spec = tool(&hub, "fx__echo").spec();
    assert_eq!(spec.parameters["properties"]["text"]["type"], "string");
    assert_eq!(spec.parameters["required"], json!(["text"]));
    assert_eq!(spec.description, "Send the text back");
    assert_eq!(tool(&hub, "fx__echo").origin(), ToolOrigin::Mcp { server: "fx".into() });

    let output = call(&hub, "fx__echo", json!({ "text": "hello" })).await.expect("echo answers");
    assert_eq!(text_of(&output), "hello");
    assert!(!output.is_error);
    hub.shutdown().await;
}

#[tokio::test]
async fn read_only_tool_skips_approval_only_when_the_server_is_trusted_for_read_only_hints() {
    let (hub, _dir) = hub().await;
    let mut config = stdio_config("fx", &[]);
    hub.upsert(config.clone()).await.expect("saved");
    wait_connected(&hub, "fx").await;
    let args = json!({ "text": "x" });
    assert!(tool(&hub, "fx__echo").needs_approval(&args), "untrusted read-only hint still asks");
    assert_eq!(tool(&hub, "fx__echo").risk(&args), Risk::Low);

    config.trust_read_only_hints = true;
    hub.upsert(config).await.expect("saved");
    assert!(!tool(&hub, "fx__echo").needs_approval(&args), "trusted read-only hint runs without asking");
    assert!(tool(&hub, "fx__fail").needs_approval(&json!({})), "tools without the hint still ask");
    hub.shutdown().await;
}

#[tokio::test]
async fn destructive_tool_is_high_risk_and_asks_and_the_summary_names_the_server() {
    let (hub, _dir) = hub().await;
    let mut config = stdio_config("files", &[]);
    config.trust_read_only_hints = true;
    hub.upsert(config).await.expect("saved");
    wait_connected(&hub, "files").await;

    let delete = tool(&hub, "files__delete_item");
    let args = json!({ "id": "42" });
    assert!(delete.needs_approval(&args));
    assert_eq!(delete.risk(&args), Risk::High);
    let summary = delete.summary(&args);
    assert!(summary.contains("`delete_item`") && summary.contains("MCP server `files`"), "{summary}");
    assert!(summary.contains("\"42\""), "{summary}");
    assert_eq!(tool(&hub, "files__fail").risk(&json!({})), Risk::Medium);
    hub.shutdown().await;
}

#[tokio::test]
async fn per_tool_policies_override_annotations_and_disabled_tools_are_not_offered() {
    let (hub, _dir) = hub().await;
    hub.upsert(stdio_config("fx", &[])).await.expect("saved");
    wait_connected(&hub, "fx").await;

    hub.set_tool_policy("fx", "delete_item", ToolPolicy::NeverAsk).await.expect("policy set");
    assert!(!tool(&hub, "fx__delete_item").needs_approval(&json!({ "id": "1" })));
    hub.set_tool_policy("fx", "echo", ToolPolicy::AlwaysAsk).await.expect("policy set");
    assert!(tool(&hub, "fx__echo").needs_approval(&json!({ "text": "x" })));
    hub.set_tool_policy("fx", "crash", ToolPolicy::Disabled).await.expect("policy set");
    assert!(hub.tools().iter().all(|t| t.spec().name != "fx__crash"));

    let status = hub.get("fx").expect("listed");
    let crash = status.tools.iter().find(|t| t.name == "crash").expect("still listed on the settings page");
    assert_eq!(crash.policy, ToolPolicy::Disabled);
    assert!(matches!(
        hub.set_tool_policy("nope", "echo", ToolPolicy::NeverAsk).await,
        Err(warden_mcp::Error::NotFound(_))
    ));
    hub.shutdown().await;
}

#[tokio::test]
async fn error_image_resource_and_structured_results_come_back_faithfully() {
    let (hub, _dir) = hub().await;
    hub.upsert(stdio_config("fx", &[])).await.expect("saved");
    wait_connected(&hub, "fx").await;

    let failed = call(&hub, "fx__fail", json!({})).await.expect("a result, not a transport error");
    assert!(failed.is_error);
    assert_eq!(text_of(&failed), "the fixture failed on purpose");

    let image = call(&hub, "fx__image", json!({})).await.expect("image answers");
    let (mime, data) = image
        .content
        .iter()
        .find_map(|c| match c {
            ToolContent::Image { mime_type, data } => Some((mime_type.clone(), data.clone())),
            _ => None,
        })
        .expect("an image block");
    assert_eq!(mime, "image/png");
    assert!(data.starts_with("iVBORw0KGgo"), "base64 PNG data: {data}");

    let resource = call(&hub, "fx__resource", json!({})).await.expect("resource answers");
    assert_eq!(
        resource.content,
        vec![ToolContent::Resource {
            uri: "fixture://notes/1".into(),
            mime_type: Some("text/plain".into()),
            text: Some("remember the milk".into())
        }]
    );

    let structured = call(&hub, "fx__structured", json!({})).await.expect("structured answers");
    assert_eq!(structured.structured, Some(json!({ "answer": 42, "unit": "things" })));
    assert!(text_of(&structured).contains("42"));
    hub.shutdown().await;
}

#[tokio::test]
async fn progress_notifications_are_forwarded_while_a_call_runs() {
    let (hub, _dir) = hub().await;
    hub.upsert(stdio_config("fx", &[])).await.expect("saved");
    wait_connected(&hub, "fx").await;

    let (sink, mut updates) = tokio::sync::mpsc::unbounded_channel();
    let ctx = ToolContext { cancel: CancellationToken::new(), progress: Some(sink), network: false, call_id: None };
    let output = tokio::time::timeout(PATIENCE, tool(&hub, "fx__slow").call(json!({ "seconds": 0.5 }), ctx))
        .await
        .expect("the call ends")
        .expect("slow answers");
    assert_eq!(text_of(&output), "worked 5 steps");

    let mut seen = Vec::new();
    while let Ok(update) = updates.try_recv() {
        seen.push(update);
    }
    assert!(!seen.is_empty(), "no progress was forwarded");
    assert!(seen.iter().all(|p| p.total == Some(5.0)), "{seen:?}");
    assert!(seen.iter().any(|p| p.message.as_deref().is_some_and(|m| m.starts_with("step "))), "{seen:?}");
    hub.shutdown().await;
}

#[tokio::test]
async fn stopping_a_run_cancels_the_call_and_the_server_is_told() {
    let (hub, dir) = hub().await;
    let log = dir.path().join("fixture.log");
    let log_arg = log.display().to_string();
    hub.upsert(stdio_config("fx", &["--log", &log_arg])).await.expect("saved");
    wait_connected(&hub, "fx").await;

    let (sink, mut updates) = tokio::sync::mpsc::unbounded_channel();
    let cancel = CancellationToken::new();
    let ctx = ToolContext { cancel: cancel.clone(), progress: Some(sink), network: false, call_id: None };
    let slow = tool(&hub, "fx__slow");
    let call = tokio::spawn(async move { slow.call(json!({ "seconds": 600 }), ctx).await });
    // Once the server reports progress the call is surely running there.
    tokio::time::timeout(PATIENCE, updates.recv()).await.expect("progress arrives").expect("a progress update");
    cancel.cancel();

    let result = tokio::time::timeout(PATIENCE, call).await.expect("the call ends promptly").expect("no panic");
    assert!(matches!(result, Err(ToolError::Cancelled)), "{result:?}");
    wait_for_log(&log, "slow cancelled").await;
    // The session survives a cancelled call.
    assert_eq!(
        text_of(&common::call(&hub, "fx__echo", json!({ "text": "still here" })).await.expect("echo")),
        "still here"
    );
    hub.shutdown().await;
}

#[tokio::test]
async fn a_call_that_outlives_its_timeout_fails_and_is_cancelled_on_the_server() {
    let (hub, dir) = hub().await;
    let log = dir.path().join("fixture.log");
    let log_arg = log.display().to_string();
    let mut config = stdio_config("fx", &["--log", &log_arg]);
    config.call_timeout_secs = 1;
    hub.upsert(config).await.expect("saved");
    wait_connected(&hub, "fx").await;

    let result = call(&hub, "fx__slow", json!({ "seconds": 600 })).await;
    assert!(matches!(result, Err(ToolError::Timeout(1))), "{result:?}");
    wait_for_log(&log, "slow cancelled").await;
    hub.shutdown().await;
}

#[tokio::test]
async fn tools_list_changed_refreshes_the_offered_tools() {
    let (hub, _dir) = hub().await;
    hub.upsert(stdio_config("fx", &[])).await.expect("saved");
    wait_connected(&hub, "fx").await;
    assert!(hub.tools().iter().all(|t| t.spec().name != "fx__dynamic_1"));

    let output = call(&hub, "fx__add_tool", json!({})).await.expect("add_tool answers");
    assert_eq!(text_of(&output), "added dynamic_1");
    wait_for(&hub, "fx", "showing dynamic_1", |s| s.tools.iter().any(|t| t.name == "dynamic_1")).await;
    let output = call(&hub, "fx__dynamic_1", json!({})).await.expect("the new tool answers");
    assert_eq!(text_of(&output), "dynamic_1 ran");
    hub.shutdown().await;
}

#[tokio::test]
async fn a_crashed_server_stays_listed_offline_refuses_calls_and_comes_back() {
    let (hub, dir) = hub().await;
    let down = dir.path().join("down");
    let down_arg = down.display().to_string();
    hub.upsert(stdio_config("fx", &["--down-while", &down_arg])).await.expect("saved");
    wait_connected(&hub, "fx").await;

    // Keep it from restarting until we say so.
    std::fs::write(&down, "").expect("flag file");
    let crashed = call(&hub, "fx__crash", json!({})).await;
    assert!(matches!(&crashed, Err(ToolError::Offline(server)) if server == "fx"), "{crashed:?}");

    let status = wait_for(&hub, "fx", "offline", |s| matches!(s.state, ServerState::Offline { .. })).await;
    assert!(status.tools.iter().any(|t| t.name == "echo"), "last-known tools stay listed");
    assert!(status.tools.iter().all(|t| t.offline), "and are marked offline");
    let offline_call = call(&hub, "fx__echo", json!({ "text": "anyone?" })).await;
    assert!(matches!(&offline_call, Err(ToolError::Offline(server)) if server == "fx"), "{offline_call:?}");
    assert_eq!(offline_call.err().map(|e| e.to_string()), Some("server `fx` is offline".to_owned()));
    // A failed restart says why, from the child's stderr.
    wait_for(
        &hub,
        "fx",
        "explaining the failed restart",
        |s| matches!(&s.state, ServerState::Offline { error } if error.contains("refusing to start")),
    )
    .await;

    // Reconnecting on request waits for that attempt and reports how it went.
    let retried = hub.reconnect_and_wait("fx", Duration::from_secs(30)).await.expect("reconnect attempted");
    assert!(
        matches!(&retried.state, ServerState::Failed { error } | ServerState::Offline { error } if error.contains("refusing to start")),
        "{:?}",
        retried.state
    );

    std::fs::remove_file(&down).expect("flag removed");
    let back = hub.reconnect_and_wait("fx", Duration::from_secs(30)).await.expect("reconnected");
    assert_eq!(back.state, ServerState::Connected);
    assert!(back.tools.iter().all(|t| !t.offline));
    assert!(matches!(
        hub.reconnect_and_wait("nobody", Duration::from_secs(1)).await,
        Err(warden_mcp::Error::NotFound(_))
    ));
    let output = call(&hub, "fx__echo", json!({ "text": "back" })).await.expect("echo after reconnect");
    assert_eq!(text_of(&output), "back");
    hub.shutdown().await;
}

#[tokio::test]
async fn disabling_a_server_disconnects_it_and_withdraws_its_tools() {
    let (hub, _dir) = hub().await;
    hub.upsert(stdio_config("fx", &[])).await.expect("saved");
    wait_connected(&hub, "fx").await;

    hub.set_enabled("fx", false).await.expect("disabled");
    let status = hub.get("fx").expect("still configured");
    assert_eq!(status.state, ServerState::Disabled);
    assert!(!status.enabled);
    assert!(hub.tools().is_empty());

    hub.set_enabled("fx", true).await.expect("enabled");
    wait_connected(&hub, "fx").await;
    assert!(!hub.tools().is_empty());

    hub.remove("fx").await.expect("removed");
    assert!(hub.get("fx").is_none());
    assert!(hub.tools().is_empty());
    assert!(matches!(hub.remove("fx").await, Err(warden_mcp::Error::NotFound(_))));
    hub.shutdown().await;
}

#[tokio::test]
async fn a_command_that_cannot_start_fails_with_the_reason() {
    let (hub, _dir) = hub().await;
    let config = warden_mcp::McpServerConfig::new(
        "ghost",
        warden_mcp::Transport::Stdio {
            command: "/nonexistent/warden-no-such-server".into(),
            args: vec![],
            env: Default::default(),
        },
    );
    let probe = hub.test_connection(config.clone()).await;
    assert!(matches!(&probe, Err(warden_mcp::Error::Connect(e)) if e.contains("could not start")), "{probe:?}");
    hub.upsert(config).await.expect("saved anyway");
    wait_for(
        &hub,
        "ghost",
        "failed",
        |s| matches!(&s.state, ServerState::Failed { error } if error.contains("/nonexistent/warden-no-such-server")),
    )
    .await;
    hub.shutdown().await;
}
