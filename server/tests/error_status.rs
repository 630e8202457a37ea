//! Errors map to HTTP statuses once, from their kind (`ErrorKind::status`): the JSON API and the
//! server functions answer the same failure with the same status. Each case makes the same failure
//! happen through both, over real HTTP against the whole app.

use crate::common;

use leptos::prelude::LeptosOptions;
use leptos::server_fn::ServerFn;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use warden_app::error::AppError;
use warden_app::server_fns::{self, mcp as mcp_fns};
use warden_engine::config::Config;
use warden_types::ErrorKind;

use crate::common::{client, send_json, Served};

/// How a server function is called: a JSON body (the only kind they take).
enum Body {
    Json(Value),
}

struct App {
    _dir: tempfile::TempDir,
    served: Served,
}

impl App {
    async fn start() -> App {
        let dir = tempfile::tempdir().expect("temp dir");
        let served = common::serve_app(
            Config::with_data_dir(dir.path()),
            LeptosOptions::builder().output_name("warden").build(),
        )
        .await;
        App { _dir: dir, served }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{}", self.served.base, path)
    }

    async fn api(&self, method: Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        send_json(&client(), method, self.url(path), body).await
    }

    /// Calls a server function; returns its status and the `AppError` it answered with.
    async fn server_fn(&self, path: &str, body: Body) -> (StatusCode, AppError) {
        let req = client().post(self.url(path));
        let Body::Json(value) = body;
        let req = req.json(&value);
        let res = req.send().await.expect("request");
        let status = res.status();
        let text = res.text().await.expect("body");
        let error = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{path} answered {status} with no AppError ({e}): {text}"));
        (status, error)
    }

    /// The same failure through the API and through a server function: both answer `kind`'s status,
    /// the server function's error is of that kind, and the API's body carries `code`.
    async fn same_failure(
        &self,
        api: (Method, &str, Option<Value>),
        code: &str,
        server_fn: (&str, Body),
        kind: ErrorKind,
    ) {
        let (method, path, body) = api;
        let (api_status, api_body) = self.api(method.clone(), path, body).await;
        let (fn_path, fn_body) = server_fn;
        let (fn_status, fn_error) = self.server_fn(fn_path, fn_body).await;
        assert_eq!(api_status, kind.status(), "API {method} {path}: {api_body}");
        assert_eq!(api_body["error"]["code"], code, "API {method} {path}: {api_body}");
        assert_eq!(
            fn_status, api_status,
            "server function {fn_path} ({fn_error:?}) vs API {method} {path} ({api_body})"
        );
        assert_eq!(fn_error.kind(), kind, "server function {fn_path}: {fn_error:?}");
    }
}

fn stdio(name: &str, command: &str, env: Value) -> Value {
    json!({
        "name": name,
        "enabled": false,
        "transport": {"type": "stdio", "command": command, "args": [], "env": env},
        "call_timeout_secs": 30,
    })
}

#[tokio::test]
async fn engine_errors_get_the_same_status_from_the_api_and_from_server_functions() {
    let app = App::start().await;
    let (_, thread) = app.api(Method::POST, "/api/threads", Some(json!({}))).await;
    let id = thread["id"].as_str().expect("thread id").to_string();

    // Not found.
    app.same_failure(
        (Method::GET, "/api/threads/no-such-thread", None),
        "not_found",
        (server_fns::GetThread::PATH, Body::Json(json!({"id": "no-such-thread"}))),
        ErrorKind::NotFound,
    )
    .await;
    // Invalid: checked once, in the engine (an empty message, a blank or too long title).
    app.same_failure(
        (Method::POST, &format!("/api/threads/{id}/messages"), Some(json!({"content": "  \n "}))),
        "invalid_request",
        (server_fns::SendMessage::PATH, Body::Json(json!({"thread_id": &id, "content": "  \n "}))),
        ErrorKind::Invalid,
    )
    .await;
    let long = "t".repeat(201);
    for title in ["   ", long.as_str()] {
        app.same_failure(
            (Method::PATCH, &format!("/api/threads/{id}"), Some(json!({"title": title}))),
            "invalid_request",
            (server_fns::RenameThread::PATH, Body::Json(json!({"id": &id, "title": title}))),
            ErrorKind::Invalid,
        )
        .await;
    }
    // Unavailable: no model is configured.
    app.same_failure(
        (Method::POST, &format!("/api/threads/{id}/messages"), Some(json!({"content": "hi"}))),
        "no_model",
        (server_fns::SendMessage::PATH, Body::Json(json!({"thread_id": &id, "content": "hi"}))),
        ErrorKind::Unavailable,
    )
    .await;
    // A refused first prompt leaves no thread behind (the check runs before the thread is made).
    let (status, error) = app.server_fn(server_fns::StartChat::PATH, Body::Json(json!({"prompt": " "}))).await;
    assert_eq!((status, error.kind()), (StatusCode::UNPROCESSABLE_ENTITY, ErrorKind::Invalid), "{error:?}");
    let (_, threads) = app.api(Method::GET, "/api/threads", None).await;
    assert_eq!(threads.as_array().map(Vec::len), Some(1), "{threads}");
}

#[tokio::test]
async fn mcp_errors_get_the_same_status_from_the_api_and_from_server_functions() {
    let app = App::start().await;
    // Not found.
    app.same_failure(
        (Method::DELETE, "/api/mcp/servers/ghost", None),
        "not_found",
        (mcp_fns::RemoveMcpServer::PATH, Body::Json(json!({"name": "ghost"}))),
        ErrorKind::NotFound,
    )
    .await;
    // Invalid: a config the hub refuses, and a document that is not JSON.
    let bad_name = stdio("bad__name", "/bin/true", json!({}));
    app.same_failure(
        (Method::POST, "/api/mcp/servers", Some(bad_name.clone())),
        "invalid_request",
        (mcp_fns::SaveMcpServer::PATH, Body::Json(json!({"config": bad_name}))),
        ErrorKind::Invalid,
    )
    .await;
    app.same_failure(
        (Method::POST, "/api/mcp/import", Some(json!("not json"))),
        "invalid_request",
        (mcp_fns::ImportMcpServers::PATH, Body::Json(json!({"json": "not json"}))),
        ErrorKind::Invalid,
    )
    .await;
    // A stored secret is not handed to a changed command: a person's mistake to fix, not a 500
    // (the server function answered 500 before its errors were mapped by kind).
    let (status, body) = app
        .api(
            Method::POST,
            "/api/mcp/servers",
            Some(stdio("keeper", "/bin/true", json!({"API_KEY": "secret-value-1234"}))),
        )
        .await;
    assert!(status.is_success(), "{status} {body}");
    let moved = stdio("keeper", "/bin/false", json!({"API_KEY": "••••1234"}));
    app.same_failure(
        (Method::POST, "/api/mcp/servers", Some(moved.clone())),
        "invalid_request",
        (mcp_fns::SaveMcpServer::PATH, Body::Json(json!({"config": moved}))),
        ErrorKind::Invalid,
    )
    .await;
    // Upstream: the server cannot be started (the server function answered 422 before, the API 502).
    let missing = stdio("ghost", "/nonexistent/warden-no-such-server", json!({}));
    app.same_failure(
        (Method::POST, "/api/mcp/test", Some(missing.clone())),
        "connect_failed",
        (mcp_fns::TestMcpConnection::PATH, Body::Json(json!({"config": missing}))),
        ErrorKind::Upstream,
    )
    .await;
    app.served.mcp().shutdown().await;
}
