//! What a stdio server gets from Warden: only its configured environment plus the MCP SDKs' defaults,
//! and, with `"sandbox": true`, a confined process (real fixture server, real kernel sandbox).

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use warden_mcp::{McpHub, McpServerConfig, McpStore, Transport, Validate};

use crate::common::fixture_bin;

/// A hub over a fresh SQLite file in `data`, whose sandboxed servers may not read `data`.
async fn hub_hiding(data: &Path) -> McpHub {
    let store = McpStore::open(&common::database_at(data).await).await.expect("mcp migrations run");
    McpHub::with_private_paths(store, vec![data.to_path_buf()])
}

/// A stdio server that first runs `script` with `sh`, then becomes the fixture.
fn scripted_server(name: &str, script: &str) -> McpServerConfig {
    McpServerConfig::new(
        name,
        Transport::Stdio {
            command: "sh".into(),
            args: vec!["-c".into(), format!("{script}; exec '{}'", fixture_bin().display())],
            env: BTreeMap::from([("CONFIGURED".to_string(), "yes".to_string())]),
        },
    )
}

#[tokio::test]
async fn a_stdio_server_gets_its_configured_env_and_the_sdk_defaults_never_the_servers_secrets() {
    // Stands in for a model key in Warden's own environment.
    std::env::set_var("WARDEN_TEST_MODEL_KEY", "sk-must-not-leak");
    let (hub, dir) = common::hub().await;
    let out = dir.path().join("env.txt");
    let config = scripted_server("envcheck", &format!("env > '{}'", out.display()));
    hub.test_connection(config).await.expect("the fixture answers");
    let env = std::fs::read_to_string(&out).unwrap();
    assert!(!env.contains("sk-must-not-leak"), "{env}");
    assert!(env.lines().any(|l| l == "CONFIGURED=yes"), "{env}");
    assert!(env.lines().any(|l| l.starts_with("PATH=")), "{env}");
    let allowed = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "CONFIGURED", "PWD", "OLDPWD", "SHLVL", "_"];
    for line in env.lines() {
        let name = line.split('=').next().unwrap_or_default();
        assert!(allowed.contains(&name), "unexpected variable {line:?}");
    }
}

fn sandboxed() -> bool {
    let status = warden_sandbox::status();
    if !status.available {
        eprintln!("\n!!! SKIPPED: no sandbox on this machine: {} !!!\n", status.detail);
    }
    status.available
}

#[tokio::test]
async fn a_sandboxed_server_writes_only_in_its_paths_reads_nothing_of_the_data_dir_and_has_no_network() {
    if !sandboxed() {
        return;
    }
    let data = tempfile::tempdir().unwrap();
    let data = data.path().canonicalize().unwrap();
    std::fs::write(data.join("secrets.txt"), "mcp-secret").unwrap();
    let hub = hub_hiding(&data).await;
    let allowed = tempfile::tempdir().unwrap();
    let allowed: PathBuf = allowed.path().canonicalize().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let outside: PathBuf = outside.path().canonicalize().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let script = format!(
        "echo in > '{a}/in.txt'; echo out > '{o}/out.txt'; cat '{d}/secrets.txt' > '{a}/stolen.txt'; \
         bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port}' 2>/dev/null; echo \"home=$HOME\" > '{a}/home.txt'",
        a = allowed.display(),
        o = outside.display(),
        d = data.display()
    );
    let mut config = scripted_server("confined", &script);
    config.sandbox = true;
    config.sandbox_paths = vec![allowed.display().to_string()];
    hub.test_connection(config).await.expect("the confined fixture answers");

    assert_eq!(std::fs::read_to_string(allowed.join("in.txt")).unwrap(), "in\n");
    assert!(!outside.join("out.txt").exists(), "a sandboxed server wrote outside its paths");
    assert_eq!(std::fs::read_to_string(allowed.join("stolen.txt")).unwrap(), "", "the data dir was readable");
    assert!(
        tokio::time::timeout(Duration::from_millis(300), listener.accept()).await.is_err(),
        "a sandboxed server without network connected"
    );
    let home = std::fs::read_to_string(allowed.join("home.txt")).unwrap();
    let home = home.trim().strip_prefix("home=").unwrap_or_default().to_string();
    assert!(home.contains("warden-sandbox-"), "the server kept the real HOME: {home}");
}

#[test]
fn sandbox_settings_round_trip_through_mcp_servers_json_and_are_validated() {
    let json = r#"{"mcpServers":{"files":{"command":"npx","args":["-y","server-filesystem"],
        "sandbox":true,"sandbox_paths":["/srv/shared"],"sandbox_network":true}}}"#;
    let configs = warden_mcp::mcp_servers_json::import(json).unwrap();
    let files = &configs[0];
    assert!(files.sandbox && files.sandbox_network);
    assert_eq!(files.sandbox_paths, ["/srv/shared"]);
    let again = warden_mcp::mcp_servers_json::import(&warden_mcp::mcp_servers_json::export(&configs)).unwrap();
    assert_eq!(again, configs);
    let stored: McpServerConfig = serde_json::from_str(&serde_json::to_string(files).unwrap()).unwrap();
    assert_eq!(&stored, files);

    let mut relative = files.clone();
    relative.sandbox_paths = vec!["srv".into()];
    assert!(relative.validate().is_err());
    let mut http =
        McpServerConfig::new("web", Transport::Http { url: "http://127.0.0.1:1/mcp".into(), headers: BTreeMap::new() });
    http.sandbox = true;
    assert!(http.validate().is_err());
    let mut stray =
        McpServerConfig::new("plain", Transport::Stdio { command: "x".into(), args: vec![], env: BTreeMap::new() });
    stray.sandbox_network = true;
    assert!(stray.validate().is_err());
}
