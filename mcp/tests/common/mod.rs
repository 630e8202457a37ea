//! Shared helpers for warden-mcp's integration tests: the real fixture server (from the fixture
//! crate's launcher), a hub over a real SQLite file, and polling helpers with generous deadlines.
#![allow(dead_code, unused_imports)]

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;
use warden_db::Database;
use warden_mcp::{McpHub, McpServerConfig, McpServerStatus, McpStore, Transport};
use warden_tools::{Tool, ToolContext, ToolError, ToolOutput};

pub use warden_mcp_fixture::{binary as fixture_bin, serve_http as http_fixture, HttpFixture, PATIENCE};

/// A hub over a fresh SQLite file, its table made by warden-mcp's own migrations.
pub async fn hub() -> (McpHub, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let hub = hub_at(dir.path()).await;
    (hub, dir)
}

/// The database `warden.db` in `dir` (created if missing), through the engine's handle.
pub async fn database_at(dir: &Path) -> Database {
    let url = format!("sqlite://{}", dir.join("warden.db").display());
    Database::open(&url).await.expect("sqlite opens")
}

/// A hub over the database in `dir` (created if missing).
pub async fn hub_at(dir: &Path) -> McpHub {
    let store = McpStore::open(&database_at(dir).await).await.expect("mcp migrations run");
    McpHub::new(store)
}

/// A stdio config for the fixture.
pub fn stdio_config(name: &str, args: &[&str]) -> McpServerConfig {
    McpServerConfig::new(
        name,
        Transport::Stdio {
            command: fixture_bin().display().to_string(),
            args: args.iter().map(|a| a.to_string()).collect(),
            env: Default::default(),
        },
    )
}

pub fn http_config(name: &str, url: &str, token: &str) -> McpServerConfig {
    McpServerConfig::new(
        name,
        Transport::Http {
            url: url.to_owned(),
            headers: [("Authorization".to_owned(), format!("Bearer {token}"))].into_iter().collect(),
        },
    )
}

/// Polls the server's status until `done` holds.
#[track_caller]
pub fn wait_for(
    hub: &McpHub,
    name: &str,
    what: &str,
    done: impl Fn(&McpServerStatus) -> bool,
) -> impl std::future::Future<Output = McpServerStatus> {
    let hub = hub.clone();
    let name = name.to_owned();
    let what = what.to_owned();
    async move {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let status = hub.get(&name);
            if let Some(status) = &status {
                if done(status) {
                    return status.clone();
                }
            }
            assert!(tokio::time::Instant::now() < deadline, "gave up waiting for {name} to be {what}: {status:?}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

pub async fn wait_connected(hub: &McpHub, name: &str) -> McpServerStatus {
    wait_for(hub, name, "connected", |s| s.state == warden_mcp::ServerState::Connected).await
}

/// The hub's tool with this `server__tool` name.
#[track_caller]
pub fn tool(hub: &McpHub, qualified: &str) -> Arc<dyn Tool> {
    let tools = hub.tools();
    let names: Vec<String> = tools.iter().map(|t| t.spec().name).collect();
    tools.into_iter().find(|t| t.spec().name == qualified).unwrap_or_else(|| panic!("no tool {qualified} in {names:?}"))
}

pub fn ctx() -> ToolContext {
    ToolContext { cancel: CancellationToken::new(), progress: None, network: false, call_id: None }
}

pub async fn call(hub: &McpHub, qualified: &str, args: Value) -> Result<ToolOutput, ToolError> {
    let tool = tool(hub, qualified);
    tokio::time::timeout(PATIENCE, tool.call(args, ctx())).await.expect("the call ends")
}

pub fn text_of(output: &ToolOutput) -> String {
    output
        .content
        .iter()
        .filter_map(|c| match c {
            warden_tools::ToolContent::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Waits until the fixture's `--log` file has a line equal to `event`.
pub async fn wait_for_log(path: &Path, event: &str) {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let log = std::fs::read_to_string(path).unwrap_or_default();
        if log.lines().any(|line| line == event) {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "the fixture never logged {event:?}; log: {log:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
