//! The fixture model's HTTP side: an axum router answering `POST /v1/chat/completions` from a script
//! and recording every request body, plus `/_fixture/*` endpoints for browser tests. `FixtureModel`
//! runs it on 127.0.0.1 and stops it on drop.

use axum::serve::ListenerExt;
use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tokio_util::sync::CancellationToken;

use crate::script::{Script, Turn};
use crate::wire::{self, ResponseIds, StreamPlan};

pub(crate) struct Shared {
    pub(crate) script: Script,
    api_key: Option<String>,
    recorded: Mutex<Recorded>,
    pub(crate) serial: AtomicU64,
    pub(crate) shutdown: CancellationToken,
    /// While true, title (non-streamed) answers wait: a test sees what happens before a title comes.
    titles_held: tokio::sync::watch::Sender<bool>,
    /// While true, a streamed answer with `hold_after_events` stops there until released.
    streams_held: tokio::sync::watch::Sender<bool>,
}

#[derive(Default)]
struct Recorded {
    requests: Vec<Value>,
    /// Method, path and query of the requests to routes whose address carries meaning (Gemini's
    /// model and method), in order.
    targets: Vec<String>,
    /// How many requests each (scenario, turn) has failed so far, for `fail_first`.
    failures: HashMap<(usize, usize), u32>,
}

impl Shared {
    fn recorded(&self) -> MutexGuard<'_, Recorded> {
        self.recorded.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records a request body as it came.
    pub(crate) fn record(&self, request: &Value) {
        self.recorded().requests.push(request.clone());
    }

    /// The 401 to answer with, unless the request carries the key as a bearer token (or none is required).
    fn denied(&self, headers: &HeaderMap) -> Option<Response> {
        let given = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok());
        self.key_refused(given.and_then(|v| v.strip_prefix("Bearer "))).map(|message| error(401, message))
    }

    /// Records a request's method, path and query as they came.
    pub(crate) fn record_target(&self, target: String) {
        self.recorded().targets.push(target);
    }

    /// Why the key presented (however an API carries it) is refused, if a key is required.
    pub(crate) fn key_refused(&self, given: Option<&str>) -> Option<&'static str> {
        let key = self.api_key.as_ref()?;
        match given {
            Some(token) if token == key => None,
            Some(_) => Some("Incorrect API key provided."),
            None => Some("You didn't provide an API key."),
        }
    }

    /// Holds title answers back (`true`) or lets them go (`false`).
    fn hold_titles(&self, held: bool) {
        self.titles_held.send_replace(held);
    }

    /// Holds streams at their turn's `hold_after_events` (`true`) or lets them go (`false`).
    fn hold_streams(&self, held: bool) {
        self.streams_held.send_replace(held);
    }

    /// Forgets recorded requests and `fail_first` counters, and releases held titles and streams.
    fn reset(&self) {
        self.hold_titles(false);
        self.hold_streams(false);
        let mut recorded = self.recorded();
        recorded.requests.clear();
        recorded.targets.clear();
        recorded.failures.clear();
    }

    /// Waits while titles are held ([`FixtureModel::hold_titles`]); at once otherwise.
    pub(crate) async fn title_released(&self) {
        let mut held = self.titles_held.subscribe();
        let _ = held.wait_for(|held| !held).await;
    }

    /// Whether this request must fail instead of being answered, per the turn's `error`/`fail_first`.
    fn scripted_failure(&self, key: Option<(usize, usize)>, turn: &Turn) -> Option<Response> {
        self.scripted_failure_as(key, turn, error)
    }

    /// `scripted_failure` with the error body of another API.
    pub(crate) fn scripted_failure_as(
        &self,
        key: Option<(usize, usize)>,
        turn: &Turn,
        error: impl Fn(u16, &str) -> Response,
    ) -> Option<Response> {
        let failure = || match &turn.error {
            Some(e) => error(e.status, &e.message),
            None => error(500, "The fixture model was scripted to fail."),
        };
        if turn.fail_first == 0 {
            return turn.error.as_ref().map(|_| failure());
        }
        let key = key?;
        let mut recorded = self.recorded();
        let count = recorded.failures.entry(key).or_insert(0);
        if *count < turn.fail_first {
            *count += 1;
            return Some(failure());
        }
        None
    }
}

fn error(status: u16, message: &str) -> Response {
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (code, Json(wire::error_body(status, message))).into_response()
}

fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/v1/chat/completions", post(chat_completions))
        .route("/v1/messages", post(crate::anthropic::messages))
        .route("/v1/models", get(models))
        .route("/v1beta/models", get(crate::gemini::list_models))
        .route("/v1beta/models/{model_action}", post(crate::gemini::generate_content))
        .route("/_fixture/requests", get(recorded_requests))
        .route("/_fixture/reset", post(reset))
        .route("/_fixture/titles/hold", post(hold_titles))
        .route("/_fixture/titles/release", post(release_titles))
        .route("/_fixture/streams/hold", post(hold_streams))
        .route("/_fixture/streams/release", post(release_streams))
        .with_state(shared)
}

async fn chat_completions(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    let Ok(request) = serde_json::from_slice::<Value>(&body) else {
        return error(400, "The request body is not valid JSON.");
    };
    shared.record(&request);
    if let Some(denied) = shared.denied(&headers) {
        return denied;
    }
    let Some(messages) = request.get("messages").and_then(Value::as_array) else {
        return error(400, "'messages' is a required property.");
    };
    let ids = ResponseIds {
        serial: shared.serial.fetch_add(1, Ordering::Relaxed),
        model: request.get("model").and_then(Value::as_str).unwrap_or("fixture-model").to_string(),
    };
    let streamed = request.get("stream").and_then(Value::as_bool).unwrap_or(false);
    if !streamed {
        if let Some(title) = shared.script.title_for(messages) {
            shared.title_released().await;
            return Json(wire::completion(&ids, &title, &[])).into_response();
        }
    }
    let tools = request.get("tools").and_then(Value::as_array).map_or(0, Vec::len);
    let selected = shared.script.select(messages).for_request(&ids.model, tools);
    if let Some(failure) = shared.scripted_failure(selected.key, &selected.turn) {
        return failure;
    }
    if !streamed {
        let text = wire::tokenize(selected.turn.text.as_deref().unwrap_or_default()).concat();
        return Json(wire::completion(&ids, &text, &selected.turn.tool_calls)).into_response();
    }
    let include_usage = request.pointer("/stream_options/include_usage").and_then(Value::as_bool) == Some(true);
    let plan = wire::stream_plan(&ids, &selected.turn, include_usage);
    event_stream(&shared, plan, &selected.turn)
}

/// An SSE response sending the plan's events (with the turn's delay), ended when the fixture stops.
pub(crate) fn event_stream(shared: &Shared, plan: StreamPlan, turn: &Turn) -> Response {
    let delay = Duration::from_millis(turn.chunk_delay_ms);
    let (tx, rx) = mpsc::channel::<Result<Bytes, Infallible>>(16);
    let hold = turn.hold_after_events.map(|at| (at, shared.streams_held.subscribe()));
    tokio::spawn(send_plan(plan, delay, turn.close_after_events, hold, tx, shared.shutdown.clone()));
    (
        [(header::CONTENT_TYPE, "text/event-stream"), (header::CACHE_CONTROL, "no-cache")],
        Body::from_stream(ReceiverStream::new(rx)),
    )
        .into_response()
}

/// Writes the planned events. With a delay, each event is sent in two halves with the pause between
/// them, so clients must reassemble events split across reads. With `close_after`, the body ends after
/// that many events (the sender dropped), the rest of the plan unsent. With `hold`, it waits after that
/// many events while streams are held.
async fn send_plan(
    plan: StreamPlan,
    delay: Duration,
    close_after: Option<usize>,
    mut hold: Option<(usize, tokio::sync::watch::Receiver<bool>)>,
    tx: mpsc::Sender<Result<Bytes, Infallible>>,
    shutdown: CancellationToken,
) {
    for (i, event) in plan.events.iter().enumerate() {
        if close_after == Some(i) {
            return;
        }
        if let Some((_, held)) = hold.as_mut().filter(|(at, _)| *at == i) {
            tokio::select! {
                _ = held.wait_for(|held| !held) => {}
                _ = tx.closed() => return,
                _ = shutdown.cancelled() => return,
            }
        }
        if plan.endless_after == Some(i) {
            send_endless_line(&tx, &shutdown).await;
            return;
        }
        if plan.stall_after == Some(i) {
            tokio::select! {
                _ = tx.closed() => {}
                _ = shutdown.cancelled() => {}
            }
            return;
        }
        let frame = match plan.event_names.get(i).copied().flatten() {
            Some(name) => format!("event: {name}\ndata: {event}\n\n"),
            None => format!("data: {event}\n\n"),
        };
        let mut mid = if delay.is_zero() { frame.len() } else { frame.len() / 2 };
        while !frame.is_char_boundary(mid) {
            mid -= 1;
        }
        let (first, rest) = frame.split_at(mid);
        if tx.send(Ok(Bytes::from(first.to_string()))).await.is_err() {
            return;
        }
        if rest.is_empty() {
            continue;
        }
        tokio::select! {
            _ = tokio::time::sleep(delay) => {}
            _ = shutdown.cancelled() => return,
        }
        if tx.send(Ok(Bytes::from(rest.to_string()))).await.is_err() {
            return;
        }
    }
}

/// `data: xxxx…` without a line end, 64 KiB at a time, until the client or the server goes away.
async fn send_endless_line(tx: &mpsc::Sender<Result<Bytes, Infallible>>, shutdown: &CancellationToken) {
    if tx.send(Ok(Bytes::from_static(b"data: "))).await.is_err() {
        return;
    }
    let chunk = Bytes::from(vec![b'x'; 64 * 1024]);
    loop {
        tokio::select! {
            sent = tx.send(Ok(chunk.clone())) => if sent.is_err() { return },
            _ = shutdown.cancelled() => return,
        }
    }
}

/// The model list, as OpenAI and Anthropic shape it; either API's way of sending the key is accepted.
async fn models(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    let anthropic_key = headers.get("x-api-key").and_then(|v| v.to_str().ok());
    let refused = match anthropic_key {
        Some(key) => shared.key_refused(Some(key)).map(|message| error(401, message)),
        None => shared.denied(&headers),
    };
    if let Some(denied) = refused {
        return denied;
    }
    Json(json!({"object": "list", "data": [{"id": "fixture-model", "object": "model", "owned_by": "warden-testkit"}]}))
        .into_response()
}

async fn recorded_requests(State(shared): State<Arc<Shared>>) -> Json<Vec<Value>> {
    Json(shared.recorded().requests.clone())
}

/// Title answers wait from now on, until `/_fixture/titles/release` (or a reset).
async fn hold_titles(State(shared): State<Arc<Shared>>) -> StatusCode {
    shared.hold_titles(true);
    StatusCode::NO_CONTENT
}

async fn release_titles(State(shared): State<Arc<Shared>>) -> StatusCode {
    shared.hold_titles(false);
    StatusCode::NO_CONTENT
}

/// Streams with `hold_after_events` stop there from now on, until `/_fixture/streams/release`.
async fn hold_streams(State(shared): State<Arc<Shared>>) -> StatusCode {
    shared.hold_streams(true);
    StatusCode::NO_CONTENT
}

async fn release_streams(State(shared): State<Arc<Shared>>) -> StatusCode {
    shared.hold_streams(false);
    StatusCode::NO_CONTENT
}

async fn reset(State(shared): State<Arc<Shared>>) -> StatusCode {
    shared.reset();
    StatusCode::NO_CONTENT
}

/// A running fixture model server. Stops accepting and ends open streams when dropped.
pub struct FixtureModel {
    addr: SocketAddr,
    shared: Arc<Shared>,
}

impl FixtureModel {
    /// Starts on 127.0.0.1 on a free port, without authentication.
    pub async fn start(script: Script) -> std::io::Result<Self> {
        Self::start_on(script, None, 0).await
    }

    /// Starts on a free port; requests must carry `Authorization: Bearer <key>`.
    pub async fn start_with_key(script: Script, key: impl Into<String>) -> std::io::Result<Self> {
        Self::start_on(script, Some(key.into()), 0).await
    }

    /// Starts on 127.0.0.1:`port` (0 picks a free one).
    pub async fn start_on(script: Script, api_key: Option<String>, port: u16) -> std::io::Result<Self> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            script,
            api_key,
            recorded: Mutex::new(Recorded::default()),
            serial: AtomicU64::new(0),
            shutdown: CancellationToken::new(),
            titles_held: tokio::sync::watch::channel(false).0,
            streams_held: tokio::sync::watch::channel(false).0,
        });
        let server = axum::serve(
            listener.tap_io(|tcp| {
                // Small SSE writes go out at once instead of waiting on delayed ACKs.
                let _ = tcp.set_nodelay(true);
            }),
            router(shared.clone()),
        )
        .with_graceful_shutdown(shared.shutdown.clone().cancelled_owned());
        tokio::spawn(async move {
            // Nothing to report to: the tests see failures as refused connections.
            let _ = server.await;
        });
        Ok(Self { addr, shared })
    }

    /// The OpenAI-style base URL, `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every request body received so far, in order.
    pub fn requests(&self) -> Vec<Value> {
        self.shared.recorded().requests.clone()
    }

    /// Method, path and query of each request to the Gemini route so far, e.g.
    /// `POST /v1beta/models/m:streamGenerateContent?alt=sse`.
    pub fn request_targets(&self) -> Vec<String> {
        self.shared.recorded().targets.clone()
    }

    /// Title (non-streamed) answers wait from now on, until [`FixtureModel::release_titles`].
    pub fn hold_titles(&self) {
        self.shared.hold_titles(true);
    }

    /// Title answers held back go out, and new ones are answered at once.
    pub fn release_titles(&self) {
        self.shared.hold_titles(false);
    }

    /// Forgets recorded requests and `fail_first` counters, and releases held titles.
    pub fn reset(&self) {
        self.shared.reset();
    }
}

impl Drop for FixtureModel {
    fn drop(&mut self) {
        self.shared.shutdown.cancel();
    }
}
