//! The HTTP edge over real HTTP and real TCP: body limits and rejections answer the documented JSON
//! error, a huge Last-Event-ID is refused instead of replaying everything, a client that never
//! finishes its headers is disconnected, every answer carries the security headers, and an internal
//! error reaches the client as an id that is in the log.

use crate::common;

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use eventsource_stream::Eventsource;
use futures::StreamExt;
use leptos::prelude::LeptosOptions;
use leptos::server_fn::ServerFn;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use warden_engine::config::{Config, ModelConfig};
use warden_server::serve::ServeOptions;
use warden_testkit::{FixtureModel, Scenario, Script, Turn};

use crate::common::{anonymous, client};

fn config(dir: &tempfile::TempDir) -> Config {
    Config::with_data_dir(dir.path())
}

async fn app(dir: &tempfile::TempDir) -> common::Served {
    common::serve_app(config(dir), LeptosOptions::builder().output_name("warden").build()).await
}

async fn json_error(res: reqwest::Response) -> (StatusCode, String, String) {
    let status = res.status();
    let content_type = res.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
    let text = res.text().await.expect("body");
    let body: Value =
        serde_json::from_str(&text).unwrap_or_else(|_| panic!("{status} is not JSON ({content_type}): {text}"));
    let code = body["error"]["code"].as_str().expect("error.code").to_string();
    let message = body["error"]["message"].as_str().expect("error.message").to_string();
    (status, code, message)
}

#[tokio::test]
async fn an_oversized_body_is_a_413_json_error_on_every_kind_of_route() {
    let dir = tempfile::tempdir().expect("temp dir");
    let served = app(&dir).await;
    let (s, thread) =
        common::send_json(&client(), Method::POST, format!("{}/api/threads", served.base), Some(json!({}))).await;
    assert_eq!(s, StatusCode::CREATED);
    let big = "x".repeat(3 * 1024 * 1024);
    let id = thread["id"].as_str().expect("id");
    let json_body = json!({ "content": big }).to_string();
    for path in [
        format!("/api/threads/{id}/messages"),
        "/api/mcp/import".to_string(),
        "/api/threads".to_string(),
        warden_app::server_fns::ListThreads::PATH.to_string(),
    ] {
        let res = client()
            .post(format!("{}{path}", served.base))
            .header("content-type", "application/json")
            .body(json_body.clone())
            .send()
            .await
            .expect("request");
        let (status, code, _) = json_error(res).await;
        assert_eq!((status, code.as_str()), (StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large"), "{path}");
    }
    // Without a Content-Length (chunked), the limit still holds and still answers JSON.
    let chunks = futures::stream::iter((0..48).map(|_| Ok::<_, std::io::Error>(vec![b' '; 64 * 1024])));
    let res = client()
        .post(format!("{}/api/mcp/import", served.base))
        .body(reqwest::Body::wrap_stream(chunks))
        .send()
        .await
        .expect("request");
    let (status, code, _) = json_error(res).await;
    assert_eq!((status, code.as_str()), (StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large"));
    let (_, detail) =
        common::send_json(&client(), Method::GET, format!("{}/api/threads/{id}", served.base), None).await;
    assert_eq!(detail["messages"].as_array().map(Vec::len), Some(0), "nothing was posted: {detail}");
}

#[tokio::test]
async fn plain_text_rejections_of_the_api_are_json_errors() {
    let dir = tempfile::tempdir().expect("temp dir");
    let served = app(&dir).await;
    let res = client().get(format!("{}/api/threads?bogus=1", served.base)).send().await.expect("request");
    assert_eq!(json_error(res).await.0, StatusCode::BAD_REQUEST);
    let res = client().put(format!("{}/api/threads", served.base)).send().await.expect("request");
    assert_eq!(json_error(res).await.1, "method_not_allowed");
    let res = client().post(format!("{}/api/threads", served.base)).body("{not json").send().await.expect("request");
    assert_eq!(json_error(res).await.0, StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn a_last_event_id_beyond_what_the_store_holds_is_a_400_not_a_replay() {
    let dir = tempfile::tempdir().expect("temp dir");
    let model = FixtureModel::start(Script {
        scenarios: vec![Scenario::new("hi", vec![Turn::text("Hello there.")])],
        default_title: None,
    })
    .await
    .expect("fixture model");
    let mut config = Config::with_data_dir(dir.path());
    config.model = Some(ModelConfig { base_url: model.base_url(), api_key: None, model: "fixture".into() });
    let served = common::serve_api(config).await;
    let http = client();
    let (_, thread) =
        common::send_json(&http, Method::POST, format!("{}/api/threads", served.base), Some(json!({}))).await;
    let res = http
        .post(format!("{}/api/threads/{}/messages", served.base, thread["id"].as_str().expect("id")))
        .json(&json!({"content": "hi"}))
        .send()
        .await
        .expect("request");
    let mut events = res.bytes_stream().eventsource();
    let mut run_id = None;
    let read = async {
        while let Some(Ok(e)) = events.next().await {
            if e.event == "run_started" {
                run_id =
                    serde_json::from_str::<Value>(&e.data).ok().and_then(|d| d["run_id"].as_str().map(String::from));
            }
            if e.event == "run_finished" || e.event == "run_failed" {
                break;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(30), read).await.expect("run ended");
    let run_id = run_id.expect("run_started seen");
    for huge in ["9223372036854775808", "18446744073709551615", "99999999999999999999999", "-1", "+3", "1e3"] {
        let res = http
            .get(format!("{}/api/runs/{run_id}/events", served.base))
            .header("last-event-id", huge)
            .send()
            .await
            .expect("request");
        let (status, code, _) = json_error(res).await;
        assert_eq!((status, code.as_str()), (StatusCode::BAD_REQUEST, "invalid_last_event_id"), "{huge}");
    }
    // The largest id the store can hold is valid: nothing after it.
    let res = http
        .get(format!("{}/api/runs/{run_id}/events", served.base))
        .header("last-event-id", i64::MAX.to_string())
        .send()
        .await
        .expect("request");
    assert_eq!(res.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_client_that_never_finishes_its_headers_is_disconnected() {
    let dir = tempfile::tempdir().expect("temp dir");
    let options = ServeOptions { header_read_timeout: Duration::from_secs(1) };
    let served =
        common::serve_app_with(config(&dir), LeptosOptions::builder().output_name("warden").build(), options).await;
    for opening in [&b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "[..], &b""[..]] {
        let mut tcp = tokio::net::TcpStream::connect(served.addr).await.expect("connect");
        tcp.write_all(opening).await.expect("write");
        let mut buf = [0u8; 1024];
        // A generous bound: the server closes the connection long before it.
        let closed = tokio::time::timeout(Duration::from_secs(30), async {
            loop {
                match tcp.read(&mut buf).await {
                    Ok(0) | Err(_) => return,
                    Ok(_) => continue,
                }
            }
        })
        .await;
        assert!(closed.is_ok(), "the connection was still open after 30 s ({} bytes sent)", opening.len());
    }
    // The server still serves others.
    assert_eq!(
        anonymous().get(format!("{}/api/health", served.base)).send().await.expect("request").status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn pages_api_answers_and_refusals_carry_the_security_headers() {
    let dir = tempfile::tempdir().expect("temp dir");
    let served = app(&dir).await;
    let common_headers = |res: &reqwest::Response, what: &str| {
        let h = res.headers();
        assert_eq!(h["x-frame-options"], "DENY", "{what}");
        assert_eq!(h["x-content-type-options"], "nosniff", "{what}");
        assert_eq!(h["referrer-policy"], "no-referrer", "{what}");
        let csp = h["content-security-policy"].to_str().expect("ascii").to_string();
        assert!(
            csp.contains("frame-ancestors 'none'")
                && csp.contains("default-src 'none'")
                && csp.contains("base-uri 'none'"),
            "{what}: {csp}"
        );
        assert!(!csp.contains("unsafe-inline"), "{what}: {csp}");
        csp
    };

    let page = client().get(format!("{}/", served.base)).send().await.expect("request");
    assert_eq!(page.status(), StatusCode::OK);
    let csp = common_headers(&page, "page");
    for part in [
        "script-src 'self' 'nonce-",
        "'wasm-unsafe-eval'",
        "img-src 'self' data:;",
        "connect-src 'self'",
        "form-action 'self'",
    ] {
        assert!(csp.contains(part), "{part} in {csp}");
    }
    let nonce = csp.split("'nonce-").nth(1).and_then(|r| r.split('\'').next()).expect("nonce").to_string();
    let html = page.text().await.expect("body");
    assert!(html.contains(&format!("nonce=\"{nonce}\"")), "the hydration script carries the header's nonce: {html}");
    // A new nonce per response.
    let again = client().get(format!("{}/", served.base)).send().await.expect("request");
    assert!(!common_headers(&again, "page again").contains(&nonce));

    let api = client().get(format!("{}/api/threads", served.base)).send().await.expect("request");
    common_headers(&api, "api");
    let refused = anonymous().get(format!("{}/", served.base)).send().await.expect("request");
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    common_headers(&refused, "sign-in page");
    let missing = client().get(format!("{}/no/such/page", served.base)).send().await.expect("request");
    common_headers(&missing, "404 page");
}

/// Collects what the server logs, for the test running on this thread.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<u8>>>);

impl Write for Log {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().map_err(|_| std::io::Error::other("poisoned"))?.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn an_internal_error_reaches_the_client_as_an_id_that_is_in_the_log() {
    let log = Log::default();
    let writer = log.clone();
    let subscriber = tracing_subscriber::fmt().with_writer(move || writer.clone()).with_ansi(false).finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let dir = tempfile::tempdir().expect("temp dir");
    let served = common::serve_app(config(&dir), LeptosOptions::builder().output_name("warden").build()).await;
    // Break the store underneath the engine: every thread query now fails inside the database.
    let pool = served.engine().store().pool();
    sqlx::query("DROP TABLE threads").execute(pool).await.ok();
    sqlx::query("ALTER TABLE threads RENAME TO threads_gone").execute(pool).await.ok();

    let res = client().get(format!("{}/api/threads", served.base)).send().await.expect("request");
    let (status, code, message) = json_error(res).await;
    assert_eq!((status, code.as_str()), (StatusCode::INTERNAL_SERVER_ERROR, "internal"));
    assert!(
        !message.contains("threads") && !message.to_lowercase().contains("sql"),
        "nothing internal in the body: {message}"
    );
    let id =
        message.split("id ").nth(1).and_then(|r| r.split(')').next()).expect("an error id in the message").to_string();

    let res = client()
        .post(format!("{}{}", served.base, warden_app::server_fns::ListThreads::PATH))
        .json(&json!({"archived": false}))
        .send()
        .await
        .expect("request");
    assert_eq!(res.status(), StatusCode::INTERNAL_SERVER_ERROR);
    // The server function's error crosses as `AppError` JSON; the page shows it with the id.
    let body = res.text().await.expect("body");
    assert!(!body.to_lowercase().contains("sql"), "server function body: {body}");
    let error: warden_app::error::AppError = serde_json::from_str(&body).expect("AppError JSON");
    let warden_app::error::AppError::Internal(fn_id) = &error else { panic!("not Internal: {error:?}") };
    assert!(error.to_string().contains(fn_id.as_str()), "{error}");
    let fn_id = fn_id.clone();

    let logged = String::from_utf8_lossy(&log.0.lock().expect("log")).to_string();
    for id in [&id, &fn_id] {
        let line = logged
            .lines()
            .find(|l| l.contains(id.as_str()))
            .unwrap_or_else(|| panic!("{id} not in the log:\n{logged}"));
        assert!(line.contains("threads"), "the log line has the cause: {line}");
    }
}
