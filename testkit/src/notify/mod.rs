//! Notification receivers on loopback, real servers the notification tests send to and read back from: an SMTP
//! server that keeps the mails it gets, a webhook receiver that checks Warden's HMAC signature and its
//! timestamp (401 when wrong), endpoints shaped as Slack's, Discord's and ntfy's (answering as those services
//! do), and a Web Push endpoint that checks the VAPID JWT against its `k=` key and decrypts the payload with
//! the subscription keys it made. `GET /received` lists everything received, decoded.
//!
//! Used as a library by Rust tests ([`NotifyFixture::start`]) and as the `fixture-notify` binary by Playwright.

mod push;
mod smtp;
mod webhook;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Serialize;
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio_util::sync::{CancellationToken, DropGuard};

pub use push::Subscription;

/// The webhook secret the fixture checks signatures with unless told another.
pub const WEBHOOK_SECRET: &str = "whsec_fixture_0123456789abcdef";

/// One thing the fixture received, decoded.
#[derive(Debug, Clone, Serialize)]
pub struct Received {
    /// In order of arrival, from 1.
    pub n: u64,
    /// `email`, `webhook`, `slack`, `discord`, `ntfy` or `web_push`.
    pub channel: String,
    /// RFC 3339 UTC.
    pub at: String,
    /// The decoded content: a mail's parts, a JSON body, a decrypted push payload, and what was checked.
    pub body: Value,
    #[serde(skip)]
    pub arrived: Option<Instant>,
}

#[derive(Clone)]
pub(crate) struct Shared {
    received: Arc<Mutex<Vec<Received>>>,
    changed: Arc<tokio::sync::Notify>,
    pub(crate) webhook_secret: String,
    pub(crate) push: push::Subscriptions,
    /// The HTTP origin (`http://127.0.0.1:<port>`), the audience VAPID tokens must name.
    pub(crate) origin: String,
}

impl Shared {
    pub(crate) fn keep(&self, channel: &str, body: Value) -> u64 {
        let mut received = self.received.lock().unwrap_or_else(PoisonError::into_inner);
        let n = received.len() as u64 + 1;
        received.push(Received {
            n,
            channel: channel.to_string(),
            at: humantime::format_rfc3339_millis(SystemTime::now()).to_string(),
            body,
            arrived: Some(Instant::now()),
        });
        drop(received);
        self.changed.notify_waiters();
        n
    }
}

/// The running receivers. Dropping it stops them.
pub struct NotifyFixture {
    http: SocketAddr,
    smtp: SocketAddr,
    shared: Shared,
    _stop: DropGuard,
}

impl NotifyFixture {
    /// Starts every receiver on 127.0.0.1, on ports of their own.
    pub async fn start() -> std::io::Result<Self> {
        Self::start_on(0, 0, WEBHOOK_SECRET).await
    }

    /// On the given ports (0: any free one), checking webhooks with `webhook_secret`.
    pub async fn start_on(http_port: u16, smtp_port: u16, webhook_secret: &str) -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", http_port)).await?;
        let http = listener.local_addr()?;
        let smtp_listener = TcpListener::bind(("127.0.0.1", smtp_port)).await?;
        let smtp = smtp_listener.local_addr()?;
        let shared = Shared {
            received: Arc::default(),
            changed: Arc::default(),
            webhook_secret: webhook_secret.to_string(),
            push: push::Subscriptions::default(),
            origin: format!("http://{http}"),
        };
        let stop = CancellationToken::new();
        let app = Router::new()
            .route("/received", get(list))
            .route("/webhook", post(webhook::receive))
            .route("/slack/{*path}", post(slack))
            .route("/discord/{*path}", post(discord))
            .route("/ntfy", post(ntfy))
            .route("/push/subscription", get(push::subscribe))
            .route("/push/send/{id}", post(push::receive))
            .route("/redirect-away", post(redirect_away))
            .with_state(shared.clone());
        let until = stop.clone();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).with_graceful_shutdown(until.cancelled_owned()).await;
        });
        tokio::spawn(smtp::serve(smtp_listener, shared.clone(), stop.clone()));
        Ok(Self { http, smtp, shared, _stop: stop.drop_guard() })
    }

    /// `http://127.0.0.1:<port>` with `path` after it.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.http)
    }

    /// The SMTP server's address as `WARDEN_SMTP_URL` takes it (`smtp://127.0.0.1:<port>`).
    pub fn smtp_url(&self) -> String {
        format!("smtp://{}", self.smtp)
    }

    pub fn smtp_port(&self) -> u16 {
        self.smtp.port()
    }

    pub fn webhook_secret(&self) -> &str {
        &self.shared.webhook_secret
    }

    /// A new push subscription (as a browser's `PushManager.subscribe()` gives one); `gone`: its endpoint
    /// answers 410, as a push service does for an expired subscription.
    pub fn subscription(&self, gone: bool) -> Subscription {
        self.shared.push.make(&self.shared.origin, gone)
    }

    /// Everything received so far.
    pub fn received(&self) -> Vec<Received> {
        self.shared.received.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// The first thing on `channel` received after the first `after` ones there, waiting up to `within`.
    pub async fn next(&self, channel: &str, after: usize, within: Duration) -> Option<Received> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let changed = self.shared.changed.notified();
            let found = self.received().into_iter().filter(|r| r.channel == channel).nth(after);
            if found.is_some() {
                return found;
            }
            if tokio::time::timeout_at(deadline, changed).await.is_err() {
                return None;
            }
        }
    }

    /// How many things arrived on `channel` so far.
    pub fn count(&self, channel: &str) -> usize {
        self.received().iter().filter(|r| r.channel == channel).count()
    }
}

async fn list(State(shared): State<Shared>) -> Json<Vec<Received>> {
    Json(shared.received.lock().unwrap_or_else(PoisonError::into_inner).clone())
}

fn json_body(bytes: &[u8]) -> Option<Value> {
    serde_json::from_slice(bytes).ok()
}

/// As Slack answers an incoming webhook: `ok`, or `400 invalid_payload` / `no_text`.
async fn slack(State(shared): State<Shared>, body: axum::body::Bytes) -> Response {
    let Some(body) = json_body(&body) else {
        return (StatusCode::BAD_REQUEST, "invalid_payload").into_response();
    };
    if body["text"].as_str().is_none_or(str::is_empty) {
        return (StatusCode::BAD_REQUEST, "no_text").into_response();
    }
    shared.keep("slack", body);
    (StatusCode::OK, [(header::CONTENT_TYPE, "text/plain")], "ok").into_response()
}

/// As Discord answers a webhook without `?wait=true`: 204, or 400 with its JSON error.
async fn discord(State(shared): State<Shared>, body: axum::body::Bytes) -> Response {
    let Some(body) = json_body(&body) else {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({ "message": "The request body contains invalid JSON.", "code": 50109 })),
        )
            .into_response();
    };
    let empty =
        body["content"].as_str().is_none_or(str::is_empty) && body["embeds"].as_array().is_none_or(Vec::is_empty);
    if empty {
        return (StatusCode::BAD_REQUEST, Json(json!({ "message": "Cannot send an empty message", "code": 50006 })))
            .into_response();
    }
    shared.keep("discord", body);
    StatusCode::NO_CONTENT.into_response()
}

/// As ntfy answers a JSON publish: the message with its id.
async fn ntfy(State(shared): State<Shared>, headers: HeaderMap, body: axum::body::Bytes) -> Response {
    let Some(mut body) = json_body(&body) else {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({ "code": 40024, "http": 400, "error": "invalid request: invalid JSON" })),
        )
            .into_response();
    };
    if body["topic"].as_str().is_none_or(str::is_empty) {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({ "code": 40009, "http": 400, "error": "invalid request: topic invalid" })),
        )
            .into_response();
    }
    let authorization = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).map(str::to_string);
    body["authorization"] = json!(authorization);
    let n = shared.keep("ntfy", body.clone());
    let id = format!("fixture{n:05}");
    let time = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or_default();
    Json(json!({ "id": id, "time": time, "event": "message", "topic": body["topic"], "title": body["title"],
                 "message": body["message"] }))
    .into_response()
}

/// A redirect to another host, which a channel must not follow.
async fn redirect_away() -> Response {
    (StatusCode::TEMPORARY_REDIRECT, [(header::LOCATION, "http://example.invalid/elsewhere")]).into_response()
}

/// For [`push::subscribe`]'s `?gone=1`.
#[derive(serde::Deserialize)]
pub(crate) struct GoneQuery {
    #[serde(default)]
    gone: Option<u8>,
}

pub(crate) type IdPath = Path<String>;
pub(crate) type Gone = Query<GoneQuery>;
