//! Warden connects out: an executor configured through the API is dialled on its WebSocket (a
//! fixture executor here, a real tokio-tungstenite server), with its bearer token; requests arrive
//! from it and decisions go back on the same socket; a lost socket is dialled again and gets the
//! decision it missed; a refused dial is retried and the state says why; switching it off closes
//! the socket, revoking its client stops it for good. The token never comes back from the API.

use std::time::Duration;

use futures::{SinkExt, StreamExt};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use tempfile::TempDir;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;
use warden_engine::config::Config;

use crate::common::outside::{decide, evaluation};
use crate::common::process::ServerProcess;
use crate::common::{self, send_json, Served};

/// Upper bound for anything a test waits for; a failure guard, not a timing assertion.
const PATIENCE: Duration = Duration::from_secs(30);
const SECRET: &str = "exec-secret-7f3a";

type Socket = WebSocketStream<TcpStream>;

/// A fixture executor: accepts WebSocket connections that carry `Authorization: Bearer <token>`
/// (others get 401) and hands each to the test with the headers it came with.
struct Executor {
    url: String,
    accepted: mpsc::UnboundedReceiver<(Option<String>, Socket)>,
}

impl Executor {
    async fn start(token: &'static str) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!("ws://{}/approver", listener.local_addr().expect("address"));
        let (sender, accepted) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let sender = sender.clone();
                tokio::spawn(async move {
                    let mut authorization = None;
                    // tungstenite's callback type: its error is a whole HTTP response.
                    #[allow(clippy::result_large_err)]
                    let check = |request: &Request, response: Response| -> Result<Response, ErrorResponse> {
                        let given = request.headers().get("authorization").and_then(|v| v.to_str().ok());
                        authorization = given.map(str::to_string);
                        if given == Some(format!("Bearer {token}").as_str()) {
                            Ok(response)
                        } else {
                            let mut refusal = ErrorResponse::new(Some("wrong token".into()));
                            *refusal.status_mut() = StatusCode::UNAUTHORIZED.as_u16().try_into().expect("status");
                            Err(refusal)
                        }
                    };
                    if let Ok(socket) = tokio_tungstenite::accept_hdr_async(stream, check).await {
                        let _ = sender.send((authorization, socket));
                    }
                });
            }
        });
        Self { url, accepted }
    }

    /// The next connection Warden opens.
    async fn next(&mut self) -> (Option<String>, Socket) {
        tokio::time::timeout(PATIENCE, self.accepted.recv()).await.expect("Warden dials in time").expect("a socket")
    }
}

async fn send(socket: &mut Socket, frame: &Value) {
    socket.send(Message::text(frame.to_string())).await.expect("frame sent");
}

/// The next message from Warden: a JSON frame, or the close code.
async fn next_frame(socket: &mut Socket) -> Result<Value, Option<u16>> {
    loop {
        let message = tokio::time::timeout(PATIENCE, socket.next()).await.expect("a message in time");
        match message {
            Some(Ok(Message::Text(text))) => return Ok(serde_json::from_str(&text).expect("a JSON frame")),
            Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
            Some(Ok(Message::Close(frame))) => return Err(frame.map(|f| u16::from(f.code))),
            None | Some(Err(_)) => return Err(None),
            Some(Ok(other)) => panic!("unexpected message {other:?}"),
        }
    }
}

async fn start() -> (TempDir, Served) {
    let dir = tempfile::tempdir().expect("temp dir");
    let served = common::serve_api(Config::with_data_dir(dir.path())).await;
    (dir, served)
}

/// Adds an executor through the API and returns its record.
async fn add(served: &Served, body: Value) -> Value {
    let url = format!("{}/api/outside/executors", served.base);
    let (status, created) = send_json(&common::client(), Method::POST, url, Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    created
}

/// Waits until the executor's state satisfies `want`, and returns the executor.
async fn state_until(served: &Served, id: &str, want: impl Fn(&Value) -> bool) -> Value {
    let url = format!("{}/api/outside/executors/{id}", served.base);
    tokio::time::timeout(PATIENCE, async {
        loop {
            let (status, executor) = send_json(&common::client(), Method::GET, url.clone(), None).await;
            assert_eq!(status, StatusCode::OK, "{executor}");
            if want(&executor["state"]) {
                return executor;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the state in time")
}

fn connected(state: &Value) -> bool {
    state["status"] == "connected"
}

#[tokio::test]
async fn warden_dials_the_executor_takes_its_requests_and_sends_the_decisions_back() {
    let (_dir, served) = start().await;
    let mut fixture = Executor::start(SECRET).await;
    let created = add(&served, json!({"name": "runner", "url": fixture.url, "bearer_token": SECRET})).await;
    assert!(!created.to_string().contains(SECRET), "the token is never sent back: {created}");
    assert_eq!(created["has_bearer_token"], true);
    let id = created["id"].as_str().expect("id");

    let (authorization, mut socket) = fixture.next().await;
    assert_eq!(authorization.as_deref(), Some(format!("Bearer {SECRET}").as_str()));
    let executor = state_until(&served, id, connected).await;
    assert!(executor["state"]["connected_at"].is_string(), "{executor}");
    let (_, list) =
        send_json(&common::client(), Method::GET, format!("{}/api/outside/executors", served.base), None).await;
    assert!(!list.to_string().contains(SECRET), "{list}");

    send(&mut socket, &evaluation("run-1", "make build", "medium")).await;
    let ack = next_frame(&mut socket).await.expect("an ack");
    assert_eq!((ack["type"].as_str(), ack["id"].as_str()), (Some("ack"), Some("run-1")), "{ack}");
    // The request is the executor's client's, in the person's inbox.
    let request_id = ack["request_id"].as_str().expect("request id");
    let (_, request) =
        send_json(&common::client(), Method::GET, format!("{}/api/outside/requests/{request_id}", served.base), None)
            .await;
    assert_eq!(
        (request["client_id"].as_str(), request["client_name"].as_str()),
        (created["client_id"].as_str(), Some("runner"))
    );
    // Asked by the owner who added the executor (routing and no-self-approval go by them).
    let owner = served.state.access.founding_owner().expect("people are on").clone();
    assert_eq!(request["asked_by"].as_str(), Some(owner.as_str()), "{request}");
    assert_eq!(request["route"]["requester"]["id"].as_str(), Some(owner.as_str()), "{request}");

    let (status, _) = decide(&served.base, request_id, json!({"decision": "rejected", "reason": "not today"})).await;
    assert_eq!(status, StatusCode::OK);
    let decision = next_frame(&mut socket).await.expect("the decision");
    assert_eq!(decision["type"], "decision");
    assert_eq!((decision["id"].as_str(), decision["decision"].as_str()), (Some("run-1"), Some("rejected")));
    assert_eq!(
        (decision["reason"].as_str(), decision["decided_by"]["kind"].as_str()),
        (Some("not today"), Some("person"))
    );

    // A bad frame gets an error frame; the socket stays open.
    socket.send(Message::text("{not json")).await.expect("sent");
    assert_eq!(next_frame(&mut socket).await.expect("an error frame")["code"], "malformed");
    send(&mut socket, &evaluation("run-2", "ls", "low")).await;
    assert_eq!(next_frame(&mut socket).await.expect("an ack")["type"], "ack");
}

#[tokio::test]
async fn a_lost_executor_is_dialled_again_and_gets_the_decision_it_missed() {
    let (_dir, served) = start().await;
    let mut fixture = Executor::start(SECRET).await;
    let created = add(&served, json!({"name": "runner", "url": fixture.url, "bearer_token": SECRET})).await;
    let id = created["id"].as_str().expect("id");
    let (_, mut socket) = fixture.next().await;
    send(&mut socket, &evaluation("run-1", "make deploy", "high")).await;
    let ack = next_frame(&mut socket).await.expect("an ack");
    let request_id = ack["request_id"].as_str().expect("request id").to_string();

    // The executor goes away; the person decides meanwhile.
    socket.close(None).await.expect("closed");
    drop(socket);
    let state = state_until(&served, id, |s| s["status"] != "connected").await;
    assert!(state["state"]["last_error"].as_str().unwrap_or_default().contains("closed"), "{state}");
    let (status, _) = decide(&served.base, &request_id, json!({"decision": "approved"})).await;
    assert_eq!(status, StatusCode::OK);

    let (_, mut socket) = fixture.next().await;
    let decision = next_frame(&mut socket).await.expect("the missed decision first");
    assert_eq!((decision["type"].as_str(), decision["id"].as_str()), (Some("decision"), Some("run-1")), "{decision}");
    assert_eq!(decision["decision"], "approved");
    state_until(&served, id, connected).await;
}

#[tokio::test]
async fn a_refused_dial_is_retried_and_the_state_says_why_without_the_token() {
    let (_dir, served) = start().await;
    let mut fixture = Executor::start(SECRET).await;
    let created = add(&served, json!({"name": "runner", "url": fixture.url, "bearer_token": "wrong-token"})).await;
    let id = created["id"].as_str().expect("id");
    let executor = state_until(&served, id, |s| s["failed_attempts"].as_u64() >= Some(2)).await;
    let error = executor["state"]["last_error"].as_str().expect("an error").to_string();
    assert!(error.contains("401"), "{error}");
    assert!(!executor.to_string().contains("wrong-token"), "{executor}");
    assert!(fixture.accepted.try_recv().is_err(), "no socket was opened");

    // Nobody listening at all: the error says the connection failed.
    let nobody = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("ws://{}/", nobody.local_addr().expect("address"));
    drop(nobody);
    let created = add(&served, json!({"name": "gone", "url": url})).await;
    let executor = state_until(&served, created["id"].as_str().expect("id"), |s| s["status"] == "retrying").await;
    assert!(executor["state"]["retry_at"].is_string(), "{executor}");
    assert!(executor["state"]["last_error"].as_str().unwrap_or_default().contains("could not connect"), "{executor}");
}

#[tokio::test]
async fn switching_an_executor_off_closes_its_socket_and_revoking_its_client_stops_it() {
    let (_dir, served) = start().await;
    let mut fixture = Executor::start(SECRET).await;
    let created = add(&served, json!({"name": "runner", "url": fixture.url, "bearer_token": SECRET})).await;
    let id = created["id"].as_str().expect("id");
    let (_, mut socket) = fixture.next().await;
    state_until(&served, id, connected).await;

    let enabled = |on: bool| {
        let url = format!("{}/api/outside/executors/{id}/enabled", served.base);
        async move { send_json(&common::client(), Method::PUT, url, Some(json!({"enabled": on}))).await }
    };
    let (status, executor) = enabled(false).await;
    assert_eq!((status, executor["enabled"].as_bool()), (StatusCode::OK, Some(false)), "{executor}");
    assert_eq!(next_frame(&mut socket).await, Err(Some(1000)), "closed normally");
    state_until(&served, id, |s| s["status"] == "disabled").await;

    let (status, _) = enabled(true).await;
    assert_eq!(status, StatusCode::OK);
    let (_, mut socket) = fixture.next().await;
    state_until(&served, id, connected).await;

    let client_id = created["client_id"].as_str().expect("client id");
    let res = common::client().delete(format!("{}/api/outside/clients/{client_id}", served.base)).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(next_frame(&mut socket).await, Err(Some(1008)), "closed as revoked");
    let executor = state_until(&served, id, |s| s["status"] == "stopped").await;
    assert_eq!(executor["state"]["last_error"], "the client was revoked");

    let res = common::client().delete(format!("{}/api/outside/executors/{id}", served.base)).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    let (status, _) =
        send_json(&common::client(), Method::GET, format!("{}/api/outside/executors/{id}", served.base), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn an_executor_address_that_is_no_websocket_address_is_refused() {
    let (_dir, served) = start().await;
    let url = format!("{}/api/outside/executors", served.base);
    for body in [
        json!({"name": "x", "url": "http://127.0.0.1:4002"}),
        json!({"name": "x", "url": "ws://h", "bearer_token": "a\r\nb"}),
        json!({"name": "", "url": "ws://h"}),
        json!({"name": "x", "url": "ws://h", "colour": "red"}),
    ] {
        let (status, answer) = send_json(&common::client(), Method::POST, url.clone(), Some(body.clone())).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body} -> {answer}");
    }
}

#[tokio::test]
async fn an_executor_address_with_user_info_is_refused_and_never_listed() {
    let (_dir, served) = start().await;
    let url = format!("{}/api/outside/executors", served.base);
    for address in ["ws://user:s3cret-pw@127.0.0.1:4002/approver", "wss://s3cret-pw@runner.example"] {
        let body = json!({"name": "x", "url": address});
        let (status, answer) = send_json(&common::client(), Method::POST, url.clone(), Some(body)).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{address} -> {answer}");
        assert!(answer.to_string().contains("bearer_token"), "the refusal says where a secret goes: {answer}");
        assert!(!answer.to_string().contains("s3cret-pw"), "the refusal does not echo the secret: {answer}");
    }
    let (status, listed) = send_json(&common::client(), Method::GET, url, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(listed, json!([]), "nothing was stored");
}

#[tokio::test]
async fn a_restarted_warden_dials_the_stored_executor_again_with_its_token() {
    let data = tempfile::tempdir().expect("data dir");
    let mut fixture = Executor::start(SECRET).await;
    let first = ServerProcess::start(data.path(), &[]).await;
    let url = format!("{}/api/outside/executors", first.base);
    let body = json!({"name": "runner", "url": fixture.url, "bearer_token": SECRET});
    let (status, created) = send_json(&common::client(), Method::POST, url, Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let (_, mut socket) = fixture.next().await;
    send(&mut socket, &evaluation("run-1", "make", "high")).await;
    let request_id = next_frame(&mut socket).await.expect("an ack")["request_id"].as_str().expect("id").to_string();
    first.kill();
    assert!(next_frame(&mut socket).await.is_err(), "the killed server's socket is gone");

    let second = ServerProcess::start(data.path(), &[]).await;
    let (authorization, mut socket) = fixture.next().await;
    assert_eq!(authorization.as_deref(), Some(format!("Bearer {SECRET}").as_str()));
    let (status, _) = decide(&second.base, &request_id, json!({"decision": "approved"})).await;
    assert_eq!(status, StatusCode::OK);
    let decision = next_frame(&mut socket).await.expect("the decision");
    assert_eq!((decision["id"].as_str(), decision["decision"].as_str()), (Some("run-1"), Some("approved")));
}
