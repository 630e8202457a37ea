//! Outside approvals through the real server: how long a person's decision takes to reach an outside
//! client (over its WebSocket, and over an HTTP long-poll), what a waiting outside request costs in
//! memory, and how soon after a crash a reconnecting client gets a decision made after it. Every
//! frame is checked (each request acknowledged once, each decision delivered once, nothing else);
//! what went wrong is printed, never asserted.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use futures::{SinkExt, StreamExt};
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use warden_testkit::FixtureModel;

use crate::error::{ensure, text_at, BenchError, Result};
use crate::{client, client_with, data_dir, percentile, rss_kib, shell_script, spawn_server, wait_healthy};

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// How long the bench waits for a frame it expects before calling it missing.
const FRAME_WAIT: Duration = Duration::from_secs(30);
/// How long it listens for frames it does not expect (a doubled decision) once a part is done.
const QUIET_WAIT: Duration = Duration::from_millis(300);
const WARM_UP_ROUNDS: usize = 20;
const MEASURED_ROUNDS: usize = 200;
/// The sockets (one client each) the waiting requests are spread over.
const WAITING_SOCKETS: usize = 50;

/// What went wrong in one part of the bench, printed at its end.
#[derive(Default)]
struct Errors(Vec<String>);

impl Errors {
    fn push(&mut self, error: impl Into<String>) {
        self.0.push(error.into());
    }

    fn report(&self, part: &str) {
        if self.0.is_empty() {
            println!("{part}: no errors (every request acknowledged once, every decision received once)");
            return;
        }
        println!("{part}: {} ERRORS; the first ones:", self.0.len());
        for error in self.0.iter().take(10) {
            println!("  {error}");
        }
    }
}

pub async fn outside() -> Result<()> {
    latency().await?;
    waiting().await
}

/// A person's decision, from just before its POST to the decision frame at the client: on a socket,
/// then on a long-poll.
async fn latency() -> Result<()> {
    let model = FixtureModel::start(shell_script()).await?;
    let dir = data_dir()?;
    let server = spawn_server(dir.path(), &model, &[])?;
    let person = client()?;
    wait_healthy(&person, &server.base).await;
    let mut errors = Errors::default();

    let (_, token) = register(&person, &server.base, "bench").await?;
    let mut socket = connect(&server.base, &token).await.map_err(|e| opening("the bench client's socket", e))?;
    let mut times = Vec::new();
    for round in 0..WARM_UP_ROUNDS + MEASURED_ROUNDS {
        match socket_round(&person, &server.base, &mut socket, round).await {
            Ok(ms) if round >= WARM_UP_ROUNDS => times.push(ms),
            Ok(_) => {}
            Err(error) => errors.push(format!("socket round {round}: {error}")),
        }
    }
    expect_quiet(&mut socket, &mut errors).await;
    print_latency("socket (/ws/approvals)", &mut times);

    let (_, token) = register(&person, &server.base, "bench-http").await?;
    let polling = client_with(&token)?;
    let mut times = Vec::new();
    for round in 0..WARM_UP_ROUNDS + MEASURED_ROUNDS {
        match long_poll_round(&person, &polling, &server.base, round).await {
            Ok(ms) if round >= WARM_UP_ROUNDS => times.push(ms),
            Ok(_) => {}
            Err(error) => errors.push(format!("long-poll round {round}: {error}")),
        }
    }
    print_latency("long-poll (GET …/decision?wait=30)", &mut times);
    errors.report("outside latency");
    Ok(())
}

fn print_latency(how: &str, times: &mut [f64]) {
    if times.is_empty() {
        println!("outside: person's decision POST -> decision at a {how} client: no round succeeded");
        return;
    }
    times.sort_by(f64::total_cmp);
    println!(
        "outside: person's decision POST -> decision at a {how} client: p50 {:.2} ms p95 {:.2} ms ({} rounds after {WARM_UP_ROUNDS} warm-up)",
        percentile(times, 0.5),
        percentile(times, 0.95),
        times.len()
    );
}

/// One request on the socket, acknowledged, then approved by the person: the ms from the POST to the
/// decision frame.
async fn socket_round(person: &Client, base: &str, socket: &mut Socket, round: usize) -> Result<f64, String> {
    let id = format!("b-{round}");
    send(socket, &evaluation(&id)).await?;
    let request_id = expect_ack(&read_frame(socket).await?, &id)?;
    let started = Instant::now();
    let (decided, frame) = tokio::join!(approve(person, base, &request_id), async {
        let frame = read_frame(socket).await;
        (frame, Instant::now())
    });
    decided?;
    let (frame, arrived) = frame;
    expect_decision(&frame?, &id, &request_id)?;
    Ok((arrived - started).as_secs_f64() * 1000.0)
}

/// One request over HTTP, its long-poll parked, then approved by the person: the ms from the POST to
/// the long-poll's answer.
async fn long_poll_round(person: &Client, polling: &Client, base: &str, round: usize) -> Result<f64, String> {
    let id = format!("h-{round}");
    let (status, ack) = send_json(polling.post(format!("{base}/api/outside/requests")).json(&evaluation(&id))).await?;
    if status != StatusCode::ACCEPTED {
        return Err(format!("request answered {status}: {ack}"));
    }
    let request_id = expect_ack(&ack, &id)?;
    let poll = {
        let (polling, url) = (polling.clone(), format!("{base}/api/outside/requests/{request_id}/decision?wait=30"));
        tokio::spawn(async move {
            let answer = send_json(polling.get(url)).await;
            (answer, Instant::now())
        })
    };
    // Time for the long-poll to reach the server and wait; one that arrives after the decision is
    // answered at once, so the figure is still the time until the client has the decision.
    tokio::time::sleep(Duration::from_millis(20)).await;
    let started = Instant::now();
    approve(person, base, &request_id).await?;
    let (answer, arrived) = poll.await.map_err(|e| format!("long-poll task: {e}"))?;
    let (status, decision) = answer?;
    if status != StatusCode::OK {
        return Err(format!("long-poll answered {status}: {decision}"));
    }
    expect_decision(&decision, &id, &request_id)?;
    Ok((arrived - started).as_secs_f64() * 1000.0)
}

/// Outside requests left waiting on 50 sockets: memory per request, then a SIGKILL and restart on the
/// same data dir, until a reconnecting client has a decision made after it.
async fn waiting() -> Result<()> {
    let n: usize = std::env::var("WARDEN_BENCH_OUTSIDE_WAITING").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000);
    let model = FixtureModel::start(shell_script()).await?;
    let dir = data_dir()?;
    let mut server = spawn_server(dir.path(), &model, &[])?;
    let person = client()?;
    wait_healthy(&person, &server.base).await;
    let mut errors = Errors::default();
    let (status, policy) = send_json(
        person.put(format!("{}/api/outside/policy", server.base)).json(&json!({"timeouts": {"default_secs": 86_400}})),
    )
    .await
    .map_err(BenchError::Unexpected)?;
    ensure(status == StatusCode::OK, || format!("setting the policy answered {status}: {policy}"))?;

    let sockets = WAITING_SOCKETS.min(n.max(1));
    let mut clients = Vec::new();
    for k in 0..sockets {
        let (_, token) = register(&person, &server.base, &format!("bench-{k}")).await?;
        let socket = connect(&server.base, &token).await.map_err(|e| opening("a bench client's socket", e))?;
        clients.push((token, socket));
    }
    // Warm-up, so pools and the allocator have grown before the baseline: a request on each socket.
    for (k, (_, socket)) in clients.iter_mut().enumerate() {
        let id = format!("warm-{k}");
        let acked = async {
            send(socket, &evaluation(&id)).await?;
            expect_ack(&read_frame(socket).await?, &id)
        };
        if let Err(error) = acked.await {
            errors.push(format!("warm-up on socket {k}: {error}"));
        }
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let rss0 = rss_kib(server.child.id());

    let started = Instant::now();
    let shares = clients.iter_mut().enumerate().map(|(k, (_, socket))| {
        let ids: Vec<String> = (k..n).step_by(sockets).map(|i| format!("w-{i}")).collect();
        ask_all(socket, ids)
    });
    let answered: Vec<AskedAll> = futures::future::join_all(shares).await;
    let took = started.elapsed().as_secs_f64();
    let mut acked = 0;
    let mut waiting_ids = Vec::new();
    for (k, share) in answered.into_iter().enumerate() {
        acked += share.acked.len();
        errors.0.extend(share.errors.into_iter().map(|e| format!("socket {k}: {e}")));
        waiting_ids.push(share.acked);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let rss1 = rss_kib(server.child.id());
    println!(
        "outside: {acked} of {n} requests acknowledged and held over {sockets} sockets in {took:.2} s ({:.0} requests/s); server RSS {rss0} KiB -> {rss1} KiB = {:.2} KiB per waiting request",
        acked as f64 / took,
        rss1.saturating_sub(rss0) as f64 / acked.max(1) as f64
    );

    // Crash with all of them waiting, then come back on the same data dir.
    let (token, _) = clients.swap_remove(0);
    drop(clients);
    let _ = server.child.kill();
    let _ = server.child.wait();
    let started = Instant::now();
    let restarted = spawn_server(dir.path(), &model, &[])?;
    let mut socket = loop {
        match connect(&restarted.base, &token).await {
            Ok(socket) => break socket,
            Err(_) => tokio::time::sleep(Duration::from_millis(1)).await,
        }
    };
    let reconnected = started.elapsed().as_secs_f64() * 1000.0;
    let mut first_share = waiting_ids.swap_remove(0).into_iter();
    match first_share.next() {
        Some((id, request_id)) => {
            let decided = approve(&person, &restarted.base, &request_id).await;
            let frame = read_frame(&mut socket).await;
            let received = started.elapsed().as_secs_f64() * 1000.0;
            match decided.and(frame.and_then(|f| expect_decision(&f, &id, &request_id))) {
                Ok(()) => println!(
                    "outside restart: SIGKILL with {acked} waiting, started again: client reconnected after {reconnected:.1} ms, a decision made after the restart received after {received:.1} ms"
                ),
                Err(error) => errors.push(format!("after the restart: {error}")),
            }
        }
        None => errors.push("no request of the reconnected client was acknowledged"),
    }
    // The rest of its requests, decided at once: each decision arrives once, and nothing else.
    let rest: Vec<(String, String)> = first_share.collect();
    let decided: Vec<Result<(), String>> = futures::stream::iter(&rest)
        .map(|(_, request_id)| approve(&person, &restarted.base, request_id))
        .buffer_unordered(16)
        .collect()
        .await;
    errors.0.extend(decided.into_iter().filter_map(Result::err).map(|e| format!("after the restart: {e}")));
    let mut expected: HashMap<String, String> = rest.into_iter().collect();
    while !expected.is_empty() {
        match read_frame(&mut socket).await {
            Ok(frame) => {
                let id = frame["id"].as_str().unwrap_or_default().to_string();
                match expected.remove(&id) {
                    Some(request_id) => {
                        if let Err(error) = expect_decision(&frame, &id, &request_id) {
                            errors.push(format!("after the restart: {error}"));
                        }
                    }
                    None => errors.push(format!("after the restart, a frame not expected (doubled?): {frame}")),
                }
            }
            Err(error) => {
                errors.push(format!("after the restart, {} decisions missing: {error}", expected.len()));
                break;
            }
        }
    }
    expect_quiet(&mut socket, &mut errors).await;
    errors.report("outside waiting and restart");
    Ok(())
}

/// What one socket's share of the waiting requests got back: (id, Warden's request id) of each
/// acknowledged one, and what went wrong.
struct AskedAll {
    acked: Vec<(String, String)>,
    errors: Vec<String>,
}

/// Sends every request and reads the answers at the same time (so neither side's buffers fill), each
/// expected to be one ack for a request sent, in order.
async fn ask_all(socket: &mut Socket, ids: Vec<String>) -> AskedAll {
    let (mut sink, mut stream) = socket.split();
    let sending = async {
        for id in &ids {
            if let Err(error) = sink.send(Message::text(evaluation(id).to_string())).await {
                return Err(format!("send {id}: {error}"));
            }
        }
        Ok(())
    };
    let reading = async {
        let mut asked = AskedAll { acked: Vec::with_capacity(ids.len()), errors: Vec::new() };
        for id in &ids {
            match read_frame(&mut stream).await.and_then(|frame| expect_ack(&frame, id)) {
                Ok(request_id) => asked.acked.push((id.clone(), request_id)),
                Err(error) => {
                    asked.errors.push(error);
                    break;
                }
            }
        }
        asked
    };
    let (sent, mut asked) = tokio::join!(sending, reading);
    if let Err(error) = sent {
        asked.errors.push(error);
    }
    asked
}

async fn register(person: &Client, base: &str, name: &str) -> Result<(String, String)> {
    let (status, created) = send_json(person.post(format!("{base}/api/outside/clients")).json(&json!({"name": name})))
        .await
        .map_err(BenchError::Unexpected)?;
    ensure(status == StatusCode::CREATED, || format!("registering a client answered {status}: {created}"))?;
    Ok((text_at(&created, "/client/id")?, text_at(&created, "/token")?))
}

/// A socket the bench cannot go on without did not open.
fn opening(which: &str, error: String) -> BenchError {
    BenchError::Unexpected(format!("{which} did not open: {error}"))
}

async fn connect(base: &str, token: &str) -> Result<Socket, String> {
    let url = format!("{}/ws/approvals", base.replacen("http://", "ws://", 1));
    let mut request = url.into_client_request().map_err(|e| e.to_string())?;
    let bearer = HeaderValue::from_str(&format!("Bearer {token}")).map_err(|e| e.to_string())?;
    request.headers_mut().insert("authorization", bearer);
    tokio_tungstenite::connect_async(request).await.map(|(socket, _)| socket).map_err(|e| e.to_string())
}

/// The person approves `request_id`, as the inbox's Approve does.
async fn approve(person: &Client, base: &str, request_id: &str) -> Result<(), String> {
    let url = format!("{base}/api/outside/requests/{request_id}/decision");
    let (status, body) = send_json(person.post(url).json(&json!({"decision": "approved"}))).await?;
    if status != StatusCode::OK {
        return Err(format!("decision on {request_id} answered {status}: {body}"));
    }
    Ok(())
}

async fn send_json(request: reqwest::RequestBuilder) -> Result<(StatusCode, Value), String> {
    let response = request.send().await.map_err(|e| e.to_string())?;
    let status = response.status();
    let body = response.json().await.unwrap_or(Value::Null);
    Ok((status, body))
}

fn evaluation(id: &str) -> Value {
    json!({"type": "security_evaluation", "id": id, "code": "echo ok", "language": "bash",
           "explanation": "Prints ok, for the bench.", "risk_level": "low"})
}

async fn send(socket: &mut Socket, frame: &Value) -> Result<(), String> {
    socket.send(Message::text(frame.to_string())).await.map_err(|e| format!("send: {e}"))
}

/// The next text frame (pings skipped), within [`FRAME_WAIT`].
async fn read_frame<S>(stream: &mut S) -> Result<Value, String>
where
    S: futures::Stream<Item = Result<Message, tokio_tungstenite::tungstenite::Error>> + Unpin,
{
    loop {
        let message = tokio::time::timeout(FRAME_WAIT, stream.next())
            .await
            .map_err(|_| "no frame within 30 s".to_string())?
            .ok_or("the socket closed")?
            .map_err(|e| format!("socket: {e}"))?;
        match message {
            Message::Text(text) => return serde_json::from_str(&text).map_err(|e| format!("not JSON ({e}): {text}")),
            Message::Ping(_) | Message::Pong(_) => continue,
            other => return Err(format!("not a text frame: {other:?}")),
        }
    }
}

/// Warden's request id from the ack of `id`.
fn expect_ack(frame: &Value, id: &str) -> Result<String, String> {
    match (frame["type"].as_str(), frame["id"].as_str(), frame["request_id"].as_str()) {
        (Some("ack"), Some(acked), Some(request_id)) if acked == id => Ok(request_id.to_string()),
        _ => Err(format!("expected the ack of {id}, got {frame}")),
    }
}

fn expect_decision(frame: &Value, id: &str, request_id: &str) -> Result<(), String> {
    let fields = (&frame["type"], &frame["id"], &frame["request_id"], &frame["decision"]);
    if fields == (&json!("decision"), &json!(id), &json!(request_id), &json!("approved")) {
        Ok(())
    } else {
        Err(format!("expected the approval of {id} ({request_id}), got {frame}"))
    }
}

/// Nothing more arrives on the socket for a while: no decision was sent twice.
async fn expect_quiet(socket: &mut Socket, errors: &mut Errors) {
    while let Ok(Some(message)) = tokio::time::timeout(QUIET_WAIT, socket.next()).await {
        match message {
            Ok(Message::Ping(_) | Message::Pong(_)) => continue,
            Ok(other) => errors.push(format!("a frame not expected (doubled?): {other:?}")),
            Err(error) => {
                errors.push(format!("the socket failed: {error}"));
                return;
            }
        }
    }
}
