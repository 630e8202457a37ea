//! Server configs: the `mcpServers` JSON format in and out, validation, persistence across a
//! restart (with last-known tools), the `WARDEN_MCP_CONFIG` file, and env redaction.

use std::collections::BTreeMap;

use crate::common::*;
use warden_mcp::redact::{redact_value, MASK};
use warden_mcp::Validate;
use warden_mcp::{mcp_servers_json, Error, McpServerConfig, ServerState, Transport};

const CLAUDE_DESKTOP: &str = r#"{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
      "env": { "DEBUG": "1" }
    },
    "my remote": {
      "url": "https://mcp.example.com/mcp",
      "headers": { "Authorization": "Bearer abc123" }
    },
    "off": { "command": "uvx", "args": ["mcp-server-time"], "disabled": true }
  }
}"#;

#[test]
fn import_reads_the_claude_desktop_format_and_export_round_trips() {
    let configs = mcp_servers_json::import(CLAUDE_DESKTOP).expect("imports");
    let names: Vec<&str> = configs.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["filesystem", "my-remote", "off"]);
    assert_eq!(
        configs[0].transport,
        Transport::Stdio {
            command: "npx".into(),
            args: vec!["-y".into(), "@modelcontextprotocol/server-filesystem".into(), "/tmp".into()],
            env: BTreeMap::from([("DEBUG".into(), "1".into())]),
        }
    );
    assert_eq!(
        configs[1].transport,
        Transport::Http {
            url: "https://mcp.example.com/mcp".into(),
            headers: BTreeMap::from([("Authorization".into(), "Bearer abc123".into())]),
        }
    );
    assert!(configs[0].enabled && !configs[2].enabled);
    assert!(!configs[0].trust_read_only_hints, "imported servers are not trusted");

    let exported = mcp_servers_json::export(&configs);
    assert_eq!(mcp_servers_json::import(&exported).expect("re-imports"), configs);
    let document: serde_json::Value = serde_json::from_str(&exported).expect("valid JSON");
    assert_eq!(document["mcpServers"]["my-remote"]["url"], "https://mcp.example.com/mcp");
    assert_eq!(document["mcpServers"]["filesystem"]["command"], "npx");
}

#[test]
fn import_accepts_vs_code_servers_and_refuses_what_it_cannot_run() {
    let vscode = r#"{"servers":{"gh":{"type":"http","url":"https://api.example.com/mcp/"}}}"#;
    let configs = mcp_servers_json::import(vscode).expect("imports");
    assert!(matches!(&configs[0].transport, Transport::Http { url, .. } if url == "https://api.example.com/mcp/"));

    for bad in [
        "not json",
        r#"{"other": {}}"#,
        r#"{"mcpServers":{"x":{"type":"sse","url":"https://e.com/sse"}}}"#,
        r#"{"mcpServers":{"x":{"command":"a","url":"https://e.com"}}}"#,
        r#"{"mcpServers":{"x":{}}}"#,
        r#"{"mcpServers":{"x":{"url":"ftp://e.com"}}}"#,
    ] {
        assert!(mcp_servers_json::import(bad).is_err(), "accepted {bad}");
    }
}

#[test]
fn config_validation_guards_tool_names_and_limits() {
    let stdio = Transport::Stdio { command: "x".into(), args: vec![], env: BTreeMap::new() };
    assert!(McpServerConfig::new("ok-name_1", stdio.clone()).validate().is_ok());
    for name in ["", "has space", "a__b", "dots.in.name", &"x".repeat(33)] {
        assert!(matches!(McpServerConfig::new(name, stdio.clone()).validate(), Err(Error::InvalidConfig(_))), "{name}");
    }
    let mut zero = McpServerConfig::new("t", stdio);
    zero.call_timeout_secs = 0;
    assert!(zero.validate().is_err());
}

#[test]
fn redaction_shows_at_most_the_last_four_characters() {
    assert_eq!(redact_value("short"), MASK);
    assert_eq!(redact_value("sk-0123456789abcdef"), format!("{MASK}cdef"));
}

#[tokio::test]
async fn env_values_are_redacted_and_kept_on_a_redacted_update() {
    let (hub, dir) = hub().await;
    let mut config = stdio_config("fx", &[]);
    if let Transport::Stdio { env, .. } = &mut config.transport {
        env.insert("API_KEY".into(), "env-secret-value-42".into());
    }
    hub.upsert(config).await.expect("saved");
    let shown = hub.get("fx").expect("listed").config;
    let Transport::Stdio { env, .. } = &shown.transport else { panic!("stdio") };
    assert_eq!(env["API_KEY"], format!("{MASK}e-42"));

    hub.upsert(shown).await.expect("redacted update accepted");
    // A new hub starts the child from what was stored: the real value, not the mask.
    hub.shutdown().await;
    drop(hub);
    let hub = hub_at(dir.path()).await;
    hub.start().await.expect("starts");
    wait_connected(&hub, "fx").await;
    let output = call(&hub, "fx__env", serde_json::json!({ "name": "API_KEY" })).await.expect("env answers");
    assert_eq!(text_of(&output), "env-secret-value-42");
    hub.shutdown().await;
}

#[tokio::test]
async fn configs_and_last_known_tools_survive_a_restart_and_start_does_not_block() {
    let dir = tempfile::tempdir().expect("temp dir");
    let down = dir.path().join("down");
    let down_arg = down.display().to_string();
    {
        let hub = hub_at(dir.path()).await;
        let mut config = stdio_config("fx", &["--down-while", &down_arg]);
        config.call_timeout_secs = 7;
        config.tool_policies.insert("echo".into(), warden_mcp::ToolPolicy::NeverAsk);
        hub.upsert(config).await.expect("saved");
        wait_connected(&hub, "fx").await;
        hub.shutdown().await;
    }
    // The server cannot start now; its tools are still known from last time.
    std::fs::write(&down, "").expect("flag file");
    let hub = hub_at(dir.path()).await;
    hub.start().await.expect("start returns at once");
    let status = hub.get("fx").expect("loaded");
    assert_eq!(status.config.call_timeout_secs, 7);
    assert_eq!(status.config.policy("echo"), warden_mcp::ToolPolicy::NeverAsk);
    assert!(status.tools.iter().any(|t| t.name == "echo" && t.offline), "{:?}", status.tools);
    assert!(hub.tools().iter().any(|t| t.spec().name == "fx__echo"));
    wait_for(&hub, "fx", "failed", |s| matches!(s.state, ServerState::Failed { .. })).await;

    std::fs::remove_file(&down).expect("flag removed");
    hub.reconnect("fx").expect("known server");
    wait_connected(&hub, "fx").await;
    hub.shutdown().await;
}

#[tokio::test]
async fn a_warden_mcp_config_file_is_merged_keeping_warden_settings() {
    let (hub, dir) = hub().await;
    let mut existing = stdio_config("fx", &["--log", "/dev/null"]);
    existing.trust_read_only_hints = true;
    hub.upsert(existing).await.expect("saved");

    let file = dir.path().join("mcp.json");
    let bin = fixture_bin().display().to_string();
    let json = serde_json::json!({ "mcpServers": {
        "fx": { "command": bin, "args": [] },
        "second": { "command": bin }
    }});
    std::fs::write(&file, json.to_string()).expect("written");
    let names = hub.load_config_file(&file).await.expect("merged");
    assert_eq!(names, ["fx", "second"]);
    hub.start().await.expect("starts");

    let fx = hub.get("fx").expect("kept");
    assert!(fx.config.trust_read_only_hints, "Warden's own setting kept");
    assert!(matches!(&fx.config.transport, Transport::Stdio { args, .. } if args.is_empty()), "file's transport wins");
    wait_connected(&hub, "second").await;
    assert!(matches!(hub.load_config_file(&dir.path().join("missing.json")).await, Err(Error::ReadFile { .. })));
    hub.shutdown().await;
}

#[tokio::test]
async fn an_import_with_one_bad_entry_saves_none_of_it() {
    let (hub, _dir) = hub().await;
    // "a-good" sorts first, so a per-entry import would have saved it before "z-masked" failed.
    let document = format!(
        r#"{{"mcpServers": {{
            "a-good": {{"command": "/bin/true"}},
            "z-masked": {{"command": "/bin/true", "env": {{"TOKEN": "{MASK}"}}}}
        }}}}"#
    );
    let result = hub.import_json(&document).await;
    assert!(matches!(result, Err(Error::RedactedWithoutStoredValue(_))), "{result:?}");
    assert!(hub.list().is_empty(), "nothing was saved: {:?}", hub.list());
    hub.shutdown().await;
}
