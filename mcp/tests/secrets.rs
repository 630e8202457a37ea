//! Stored secrets stay with the server they were entered for: a masked value is filled back in
//! only while the stdio command, arguments and environment, or the HTTP endpoint, are unchanged,
//! for updates, `test_connection` and imports alike; and `args` are masked like `env`.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;

use crate::common::*;
use serde_json::json;
use warden_mcp::redact::MASK;
use warden_mcp::{Error, McpServerConfig, Transport};

const API_KEY: &str = "env-secret-value-42";
const ARG_TOKEN: &str = "arg-secret-token-7781";

/// The fixture with a secret in its environment and one in its arguments.
fn fixture_with_secrets() -> McpServerConfig {
    let mut config = stdio_config("fx", &["--token", ARG_TOKEN]);
    if let Transport::Stdio { env, .. } = &mut config.transport {
        env.insert("API_KEY".into(), API_KEY.into());
    }
    config
}

fn stdio_parts(config: &mut McpServerConfig) -> (&mut String, &mut Vec<String>, &mut BTreeMap<String, String>) {
    match &mut config.transport {
        Transport::Stdio { command, args, env, .. } => (command, args, env),
        Transport::Http { .. } => panic!("stdio expected"),
    }
}

fn changed(result: Result<impl std::fmt::Debug, Error>, what: &str) {
    match result {
        Err(Error::SecretNeedsReentry { changed, .. }) if changed == what => {}
        other => panic!("expected re-entry because the {what} changed, got {other:?}"),
    }
}

#[tokio::test]
async fn a_masked_env_value_is_not_handed_to_a_changed_command_even_by_test_connection() {
    let (hub, dir) = hub().await;
    hub.upsert(fixture_with_secrets()).await.expect("saved");
    let mut attack = hub.get("fx").expect("listed").config;

    // The new "server" would write the key it is given to a file.
    let leak = dir.path().join("leak");
    let script = dir.path().join("steal.sh");
    std::fs::write(&script, format!("#!/bin/sh\nprintenv API_KEY > '{}'\n", leak.display())).expect("script written");
    std::fs::set_permissions(&script, PermissionsExt::from_mode(0o755)).expect("executable");
    *stdio_parts(&mut attack).0 = script.display().to_string();

    let result = hub.test_connection(attack.clone()).await;
    assert!(matches!(&result, Err(Error::SecretNeedsReentry { changed, .. }) if changed == "command"), "{result:?}");
    assert!(!leak.exists(), "the key reached the new command");
    let message = result.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(message.starts_with("re-enter the secret"), "{message}");

    changed(hub.upsert(attack).await, "command");
    let stored = hub.get("fx").expect("still there").config;
    assert_eq!(stdio_parts(&mut stored.clone()).0, &fixture_bin().display().to_string());
    hub.shutdown().await;
}

#[tokio::test]
async fn a_masked_value_is_refused_when_the_arguments_or_environment_changed() {
    let (hub, _dir) = hub().await;
    hub.upsert(fixture_with_secrets()).await.expect("saved");
    let shown = hub.get("fx").expect("listed").config;

    let mut more_args = shown.clone();
    stdio_parts(&mut more_args).1.push("--log".into());
    stdio_parts(&mut more_args).1.push("/tmp/x".into());
    changed(hub.upsert(more_args).await, "arguments");

    // Same command, same arguments, but code injected through the environment.
    let mut preload = shown.clone();
    stdio_parts(&mut preload).2.insert("LD_PRELOAD".into(), "/tmp/evil.so".into());
    changed(hub.test_connection(preload).await, "environment");

    // Only the masked argument is left and the command changes: refused as well.
    let mut args_only = shown.clone();
    stdio_parts(&mut args_only).2.insert("API_KEY".into(), "typed-again".into());
    *stdio_parts(&mut args_only).0 = "/bin/cat".into();
    changed(hub.upsert(args_only).await, "command");

    // Everything re-entered: no stored secret is used, so any change is fine.
    let mut reentered = fixture_with_secrets();
    stdio_parts(&mut reentered).1.push("--log".into());
    stdio_parts(&mut reentered).1.push("/dev/null".into());
    hub.upsert(reentered).await.expect("full values need no identity check");
    hub.shutdown().await;
}

#[tokio::test]
async fn a_mask_is_restored_only_when_it_is_the_stored_values_own_masked_form() {
    let (hub, _dir) = hub().await;
    hub.upsert(fixture_with_secrets()).await.expect("saved");
    let shown = hub.get("fx").expect("listed").config;

    // A stale or invented mask, e.g. a real-looking "••••" + other tail, is not the stored key.
    let mut forged = shown.clone();
    stdio_parts(&mut forged).2.insert("API_KEY".into(), format!("{MASK}zzzz"));
    assert!(
        matches!(hub.upsert(forged).await, Err(Error::RedactedWithoutStoredValue(ref what)) if what == "environment variable API_KEY")
    );
    let mut forged_arg = shown.clone();
    stdio_parts(&mut forged_arg).1[1] = format!("{MASK}9999");
    assert!(
        matches!(hub.upsert(forged_arg).await, Err(Error::RedactedWithoutStoredValue(ref what)) if what == "argument 2")
    );
    hub.shutdown().await;
}

#[tokio::test]
async fn args_are_masked_everywhere_they_leave_and_restored_by_position() {
    let (hub, dir) = hub().await;
    hub.upsert(fixture_with_secrets()).await.expect("saved");
    wait_connected(&hub, "fx").await;

    let shown = hub.get("fx").expect("listed").config;
    let Transport::Stdio { args, .. } = &shown.transport else { panic!("stdio") };
    assert_eq!(args, &["--token".to_owned(), format!("{MASK}7781")]);
    let listed = serde_json::to_string(&hub.list()).expect("serialises");
    let exported = hub.export_json();
    for text in [&listed, &exported] {
        assert!(!text.contains(ARG_TOKEN) && !text.contains(API_KEY), "{text}");
    }

    // The UI edits another field and sends the masked copy back.
    let mut edited = shown;
    edited.trust_read_only_hints = true;
    hub.upsert(edited).await.expect("masked update accepted");
    hub.shutdown().await;
    drop(hub);

    // A new hub starts the child from what was stored: the real argument, not the mask.
    let hub = hub_at(dir.path()).await;
    hub.start().await.expect("starts");
    wait_connected(&hub, "fx").await;
    let argv = call(&hub, "fx__argv", json!({})).await.expect("argv answers");
    assert_eq!(text_of(&argv), format!("--token\n{ARG_TOKEN}"));
    hub.shutdown().await;
}

#[tokio::test]
async fn an_exported_document_imports_back_whole_but_not_with_another_command() {
    let (hub, dir) = hub().await;
    hub.upsert(fixture_with_secrets()).await.expect("saved");
    let exported = hub.export_json();

    assert_eq!(hub.import_json(&exported).await.expect("imports"), ["fx"]);
    let mut document: serde_json::Value = serde_json::from_str(&exported).expect("JSON");
    document["mcpServers"]["fx"]["command"] = json!("/usr/bin/env");
    changed(hub.import_json(&document.to_string()).await, "command");

    // The same through the WARDEN_MCP_CONFIG file.
    let file = dir.path().join("mcp.json");
    std::fs::write(&file, document.to_string()).expect("written");
    changed(hub.load_config_file(&file).await, "command");
    hub.shutdown().await;
    drop(hub);

    let hub = hub_at(dir.path()).await;
    hub.start().await.expect("starts");
    wait_connected(&hub, "fx").await;
    let argv = call(&hub, "fx__argv", json!({})).await.expect("argv answers");
    assert_eq!(text_of(&argv), format!("--token\n{ARG_TOKEN}"));
    let env = call(&hub, "fx__env", json!({ "name": "API_KEY" })).await.expect("env answers");
    assert_eq!(text_of(&env), API_KEY);
    hub.shutdown().await;
}

#[tokio::test]
async fn a_masked_header_is_not_sent_to_another_endpoint() {
    let token = "shared-bearer-token-5150";
    let real = http_fixture(token).await;
    // Another server that would happily accept the stolen token.
    let other = http_fixture(token).await;
    let (hub, _dir) = hub().await;
    hub.upsert(http_config("remote", &real.url, token)).await.expect("saved");
    let shown = hub.get("remote").expect("listed").config;

    let mut moved = shown.clone();
    if let Transport::Http { url, .. } = &mut moved.transport {
        *url = other.url.clone();
    }
    changed(hub.test_connection(moved.clone()).await, "URL (scheme, host, port or path)");
    changed(hub.upsert(moved).await, "URL (scheme, host, port or path)");

    let mut new_path = shown.clone();
    if let Transport::Http { url, .. } = &mut new_path.transport {
        *url = format!("{}/elsewhere", real.url);
    }
    changed(hub.upsert(new_path).await, "URL (scheme, host, port or path)");

    // Same endpoint: other headers may change and the stored token is used.
    let mut extra_header = shown;
    if let Transport::Http { headers, .. } = &mut extra_header.transport {
        headers.insert("X-Trace".into(), "1".into());
    }
    let probe = hub.test_connection(extra_header).await.expect("the stored token still reaches its own server");
    assert!(!probe.tools.is_empty());
    hub.shutdown().await;
}

#[test]
fn debug_output_of_a_config_masks_its_secrets() {
    let stdio = format!("{:?}", fixture_with_secrets());
    assert!(!stdio.contains(API_KEY) && !stdio.contains(ARG_TOKEN), "{stdio}");
    // Names of environment variables are shown; arguments only counted (one may carry a token).
    assert!(stdio.contains("API_KEY") && !stdio.contains("--token"), "{stdio}");
    let http = format!("{:?}", http_config("remote", "https://u:pw@h.example/mcp?key=k3y", "bearer-secret-1"));
    for secret in ["bearer-secret-1", "pw@", "k3y"] {
        assert!(!http.contains(secret), "{http}");
    }
}
