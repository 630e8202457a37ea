//! MCP over Streamable HTTP with a bearer token, against the real fixture serving on 127.0.0.1;
//! and secrets: never shown in full, kept when the UI sends its redacted copy back.

use crate::common::*;
use serde_json::json;
use warden_mcp::redact::MASK;
use warden_mcp::{Error, ServerState, Transport};

#[tokio::test]
async fn http_server_with_the_right_bearer_token_lists_and_runs_tools() {
    let fixture = http_fixture("s3cret-token-abcd").await;
    let (hub, _dir) = hub().await;
    hub.upsert(http_config("remote", &fixture.url, "s3cret-token-abcd")).await.expect("saved");
    let status = wait_connected(&hub, "remote").await;

    assert_eq!(status.server_info.map(|i| i.name), Some("warden-mcp-fixture".to_owned()));
    assert!(status.tools.iter().any(|t| t.qualified_name == "remote__delete_item" && t.destructive_hint));
    let output = call(&hub, "remote__echo", json!({ "text": "over http" })).await.expect("echo answers");
    assert_eq!(text_of(&output), "over http");

    // Progress and list_changed travel over HTTP too.
    let (sink, mut updates) = tokio::sync::mpsc::unbounded_channel();
    let ctx =
        warden_tools::ToolContext { cancel: Default::default(), progress: Some(sink), network: false, call_id: None };
    tool(&hub, "remote__slow").call(json!({ "seconds": 0.3 }), ctx).await.expect("slow answers");
    assert!(updates.try_recv().is_ok(), "progress arrives over HTTP");
    call(&hub, "remote__add_tool", json!({})).await.expect("add_tool answers");
    wait_for(&hub, "remote", "showing dynamic_1", |s| s.tools.iter().any(|t| t.name == "dynamic_1")).await;
    hub.shutdown().await;
}

#[tokio::test]
async fn a_wrong_bearer_token_fails_clearly() {
    let fixture = http_fixture("right-token-1234").await;
    let (hub, _dir) = hub().await;

    let probe = hub.test_connection(http_config("remote", &fixture.url, "wrong-token-0000")).await;
    let Err(Error::Connect(message)) = probe else { panic!("expected a refusal, got {probe:?}") };
    assert!(message.contains("401"), "{message}");

    let mut no_token = http_config("bare", &fixture.url, "x");
    no_token.transport = Transport::Http { url: fixture.url.clone(), headers: Default::default() };
    hub.upsert(no_token).await.expect("saved");
    let status = wait_for(&hub, "bare", "failed", |s| matches!(s.state, ServerState::Failed { .. })).await;
    let ServerState::Failed { error } = status.state else { unreachable!() };
    assert!(error.contains("401"), "{error}");
    hub.shutdown().await;
}

#[tokio::test]
async fn test_connection_reports_identity_and_tools_without_saving() {
    let fixture = http_fixture("probe-token-5678").await;
    let (hub, _dir) = hub().await;
    let probe = hub.test_connection(http_config("remote", &fixture.url, "probe-token-5678")).await.expect("connects");
    assert_eq!(probe.server_info.map(|i| i.name), Some("warden-mcp-fixture".to_owned()));
    let echo = probe.tools.iter().find(|t| t.name == "echo").expect("echo listed");
    assert!(echo.needs_approval, "default: ask even for read-only tools");
    assert!(hub.list().is_empty(), "nothing saved");
}

#[tokio::test]
async fn secrets_are_redacted_in_status_and_export_and_a_redacted_update_keeps_them() {
    let token = "very-secret-token-9876";
    let fixture = http_fixture(token).await;
    let (hub, _dir) = hub().await;
    let url = format!("{}?api_key=abcdefghijklmnop", fixture.url);
    let mut config = http_config("remote", &url, token);
    config.trust_read_only_hints = false;
    hub.upsert(config).await.expect("saved");
    wait_connected(&hub, "remote").await;

    let shown = hub.get("remote").expect("listed").config;
    let Transport::Http { url: shown_url, headers } = &shown.transport else { panic!("http") };
    let shown_auth = &headers["Authorization"];
    assert_eq!(shown_auth, &format!("{MASK}9876"));
    assert!(
        !shown_url.contains("abcdefghijklmnop") && shown_url.contains(&format!("api_key={MASK}mnop")),
        "{shown_url}"
    );
    let exported = hub.export_json();
    assert!(!exported.contains(token) && !exported.contains("abcdefghijklmnop"), "{exported}");
    let listed = serde_json::to_string(&hub.list()).expect("serialises");
    assert!(!listed.contains(token), "{listed}");

    // The UI edits another field and sends the redacted copy back: the secret must survive,
    // which the reconnection (the transport is unchanged, so none) and a fresh probe prove.
    let mut edited = shown.clone();
    edited.trust_read_only_hints = true;
    hub.upsert(edited.clone()).await.expect("redacted update accepted");
    assert!(!tool(&hub, "remote__echo").needs_approval(&json!({ "text": "x" })));
    let probe = hub.test_connection(edited).await.expect("stored token and URL are used");
    assert!(!probe.tools.is_empty());

    // A masked value with nothing stored under its key is refused, never saved as the secret.
    let mut invented = shown;
    if let Transport::Http { headers, .. } = &mut invented.transport {
        headers.insert("X-Api-Key".into(), format!("{MASK}1234"));
    }
    assert!(matches!(hub.upsert(invented).await, Err(Error::RedactedWithoutStoredValue(_))));
    hub.shutdown().await;
}

/// A server that answers every request with a redirect to `to`, and one that records the headers of
/// whatever reaches it: a real listener each, on 127.0.0.1.
async fn listener(app: axum::Router) -> String {
    let socket = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", socket.local_addr().expect("address"));
    tokio::spawn(async move { axum::serve(socket, app).await });
    url
}

#[tokio::test]
async fn a_redirect_to_another_host_does_not_carry_the_configured_headers_there() {
    use std::sync::{Arc, Mutex};
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let record = seen.clone();
    let thief = listener(axum::Router::new().fallback(move |headers: axum::http::HeaderMap| {
        let record = record.clone();
        async move {
            let names = headers.iter().map(|(k, v)| format!("{k}: {}", v.to_str().unwrap_or(""))).collect::<Vec<_>>();
            record.lock().expect("lock").push(names.join("\n"));
            axum::http::StatusCode::NOT_FOUND
        }
    }))
    .await;
    // localhost vs 127.0.0.1: another origin that reaches the same machine.
    let target = thief.replacen("127.0.0.1", "localhost", 1);
    let redirector = listener(axum::Router::new().fallback(move || {
        let target = target.clone();
        async move { (axum::http::StatusCode::TEMPORARY_REDIRECT, [(axum::http::header::LOCATION, target)]) }
    }))
    .await;

    let (hub, _dir) = hub().await;
    let config = warden_mcp::McpServerConfig::new(
        "moved",
        Transport::Http {
            url: redirector,
            headers: [("X-Api-Key".to_owned(), "key-that-must-stay-home-9911".to_owned())].into_iter().collect(),
        },
    );
    let probe = hub.test_connection(config).await;
    let Err(Error::Connect(message)) = probe else { panic!("expected a refusal, got {probe:?}") };
    assert!(message.contains("307"), "the redirect is named: {message}");
    let seen = seen.lock().expect("lock").clone();
    assert!(seen.iter().all(|h| !h.contains("key-that-must-stay-home")), "the key reached another host: {seen:?}");
    hub.shutdown().await;
}

/// A server that redirects to another origin (a real second server on another port) never gets the
/// configured headers: the redirect is not followed, and the error says where it pointed.
#[tokio::test]
async fn a_redirect_to_another_origin_is_not_followed_with_the_configured_headers() {
    let elsewhere = warden_testkit::HeaderRecorder::start().await.unwrap();
    let redirector = warden_testkit::Redirector::start(&elsewhere.url("/mcp")).await.unwrap();
    let (hub, _dir) = hub().await;
    let mut config = http_config("remote", &redirector.url("/mcp"), "redirected-token-4321");
    let Transport::Http { headers, .. } = &mut config.transport else { unreachable!() };
    headers.insert("x-api-key".to_owned(), "custom-header-secret-8765".to_owned());

    let probe = hub.test_connection(config).await;
    let Err(Error::Connect(message)) = probe else { panic!("expected a refusal, got {probe:?}") };
    assert!(message.contains(&format!("redirect to {}", elsewhere.url(""))), "{message}");
    assert!(message.contains("does not follow"), "{message}");
    assert!(redirector.hits() >= 1);
    assert!(elsewhere.requests().is_empty(), "the second server heard nothing: {:?}", elsewhere.requests());
    hub.shutdown().await;
}
