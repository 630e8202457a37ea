//! Shared helpers for warden-mcp's integration tests: the real fixture server binary (built once
//! with cargo), a hub over a real SQLite file, and polling helpers with generous deadlines.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde_json::Value;
use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio_util::sync::CancellationToken;
use warden_engine::tools::{Tool, ToolContext, ToolError, ToolOutput};
use warden_mcp::{McpHub, McpServerConfig, McpServerStatus, Transport};

/// Upper bound for anything we wait for; a failure guard, not a timing assertion.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// The fixture binary. `CARGO_BIN_EXE_*` only exists for binaries of the test's own package, so
/// this builds `warden-mcp-fixture` with the cargo that runs the tests (same profile, same
/// target dir, already up to date after the first time) and asks cargo where the binary is.
pub fn fixture_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut cmd = std::process::Command::new(env!("CARGO"));
        cmd.current_dir(&workspace).args([
            "build",
            "-p",
            "warden-mcp-fixture",
            "--bin",
            "warden-mcp-fixture",
            "--message-format=json",
        ]);
        if !cfg!(debug_assertions) {
            cmd.arg("--release");
        }
        let output = cmd.stderr(Stdio::inherit()).output().expect("cargo runs");
        assert!(
            output.status.success(),
            "building warden-mcp-fixture failed"
        );
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|msg| {
                msg["reason"] == "compiler-artifact"
                    && msg["target"]["name"] == "warden-mcp-fixture"
            })
            .find_map(|msg| msg["executable"].as_str().map(PathBuf::from))
            .expect("cargo reports the fixture executable")
    })
}

/// A hub over a fresh SQLite file with the `mcp_servers` table from the engine's migration.
pub async fn hub() -> (McpHub, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let hub = hub_at(dir.path()).await;
    (hub, dir)
}

/// A hub over the database in `dir` (created if missing).
pub async fn hub_at(dir: &Path) -> McpHub {
    let options = SqliteConnectOptions::new()
        .filename(dir.join("warden.db"))
        .create_if_missing(true);
    let pool = SqlitePoolOptions::new()
        .max_connections(2)
        .connect_with(options)
        .await
        .expect("sqlite opens");
    sqlx::raw_sql(include_str!(
        "../../../engine/migrations/20261122000300_mcp_servers.sql"
    ))
    .execute(&pool)
    .await
    .expect("migration runs");
    McpHub::new(pool)
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

/// The fixture serving Streamable HTTP on a free port; killed when dropped.
pub struct HttpFixture {
    pub url: String,
    _child: tokio::process::Child,
}

pub async fn http_fixture(token: &str) -> HttpFixture {
    let mut child = tokio::process::Command::new(fixture_bin())
        .args(["--http", "0", "--token", token])
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("fixture starts");
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut lines = BufReader::new(stdout).lines();
    let line = tokio::time::timeout(PATIENCE, lines.next_line())
        .await
        .expect("fixture prints its address")
        .expect("stdout readable")
        .expect("a line");
    let url = line
        .strip_prefix("listening on ")
        .expect("address line")
        .to_owned();
    HttpFixture { url, _child: child }
}

pub fn http_config(name: &str, url: &str, token: &str) -> McpServerConfig {
    McpServerConfig::new(
        name,
        Transport::Http {
            url: url.to_owned(),
            headers: [("Authorization".to_owned(), format!("Bearer {token}"))]
                .into_iter()
                .collect(),
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
            assert!(
                tokio::time::Instant::now() < deadline,
                "gave up waiting for {name} to be {what}: {status:?}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

pub async fn wait_connected(hub: &McpHub, name: &str) -> McpServerStatus {
    wait_for(hub, name, "connected", |s| {
        s.state == warden_mcp::ServerState::Connected
    })
    .await
}

/// The hub's tool with this `server__tool` name.
#[track_caller]
pub fn tool(hub: &McpHub, qualified: &str) -> Arc<dyn Tool> {
    let tools = hub.tools();
    let names: Vec<String> = tools.iter().map(|t| t.spec().name).collect();
    tools
        .into_iter()
        .find(|t| t.spec().name == qualified)
        .unwrap_or_else(|| panic!("no tool {qualified} in {names:?}"))
}

pub fn ctx() -> ToolContext {
    ToolContext {
        cancel: CancellationToken::new(),
        progress: None,
    }
}

pub async fn call(hub: &McpHub, qualified: &str, args: Value) -> Result<ToolOutput, ToolError> {
    let tool = tool(hub, qualified);
    tokio::time::timeout(PATIENCE, tool.call(args, ctx()))
        .await
        .expect("the call ends")
}

pub fn text_of(output: &ToolOutput) -> String {
    output
        .content
        .iter()
        .filter_map(|c| match c {
            warden_engine::tools::ToolContent::Text { text } => Some(text.as_str()),
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
        assert!(
            tokio::time::Instant::now() < deadline,
            "the fixture never logged {event:?}; log: {log:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
