//! Helpers for the outside-approval tests: registering a client through the person's API, and a
//! real WebSocket client (tokio-tungstenite) that speaks the frames.

use std::time::Duration;

use futures::{SinkExt, StreamExt};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use super::{client, send_json};

pub type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// How long a test waits for a frame it expects.
const FRAME_WAIT: Duration = Duration::from_secs(30);

/// Registers a client (with `policy`, if not null) and returns its id and token.
pub async fn register(base: &str, name: &str, policy: Value) -> (String, String) {
    let mut body = json!({ "name": name });
    if !policy.is_null() {
        body["policy"] = policy;
    }
    let (status, created) = send_json(&client(), Method::POST, format!("{base}/api/outside/clients"), Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    (created["client"]["id"].as_str().expect("id").to_string(), created["token"].as_str().expect("token").to_string())
}

/// Sets the global policy.
pub async fn set_policy(base: &str, policy: Value) {
    let (status, body) = send_json(&client(), Method::PUT, format!("{base}/api/outside/policy"), Some(policy)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

/// A person's decision through the API; returns the status and the answer.
pub async fn decide(base: &str, request_id: &str, decision: Value) -> (StatusCode, Value) {
    send_json(&client(), Method::POST, format!("{base}/api/outside/requests/{request_id}/decision"), Some(decision))
        .await
}

/// Opens the socket at `base` (`http://…`) with `headers` (name, value) added.
pub async fn connect_with(
    base: &str,
    headers: &[(&str, &str)],
) -> Result<Socket, tokio_tungstenite::tungstenite::Error> {
    let url = format!("{}/ws/approvals", base.replacen("http://", "ws://", 1));
    let mut request = url.into_client_request()?;
    for (name, value) in headers {
        let name: tokio_tungstenite::tungstenite::http::HeaderName = name.parse().expect("header name");
        request.headers_mut().insert(name, HeaderValue::from_str(value).expect("header value"));
    }
    tokio_tungstenite::connect_async(request).await.map(|(socket, _)| socket)
}

/// Opens the socket with the client's token.
pub async fn connect(base: &str, token: &str) -> Socket {
    connect_with(base, &[("authorization", &format!("Bearer {token}"))]).await.expect("socket opens")
}

/// The HTTP status a refused upgrade got.
pub fn refused_status(result: Result<Socket, tokio_tungstenite::tungstenite::Error>) -> u16 {
    match result {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => response.status().as_u16(),
        Err(other) => panic!("expected an HTTP refusal, got {other}"),
        Ok(_) => panic!("expected the upgrade to be refused"),
    }
}

pub async fn send(socket: &mut Socket, frame: &Value) {
    socket.send(Message::text(frame.to_string())).await.expect("frame sent");
}

pub async fn send_text(socket: &mut Socket, text: String) {
    socket.send(Message::text(text)).await.expect("frame sent");
}

/// The next frame from Warden (pings skipped).
pub async fn next_frame(socket: &mut Socket) -> Value {
    loop {
        let message = tokio::time::timeout(FRAME_WAIT, socket.next())
            .await
            .expect("a frame in time")
            .expect("the socket is open")
            .expect("a readable message");
        match message {
            Message::Text(text) => return serde_json::from_str(&text).expect("a JSON frame"),
            Message::Ping(_) | Message::Pong(_) => continue,
            other => panic!("expected a text frame, got {other:?}"),
        }
    }
}

/// Sends a request frame and returns the answer.
pub async fn ask(socket: &mut Socket, frame: &Value) -> Value {
    send(socket, frame).await;
    next_frame(socket).await
}

pub fn evaluation(id: &str, code: &str, risk: &str) -> Value {
    json!({"type": "security_evaluation", "id": id, "code": code, "language": "bash",
           "explanation": format!("runs {code}"), "risk_level": risk})
}

pub fn code_response(id: &str, follows: Option<&str>, exit_code: i64) -> Value {
    let mut frame = json!({"type": "code_response", "id": id, "stdout": "ok\n", "stderr": "", "exit_code": exit_code});
    if let Some(follows) = follows {
        frame["follows"] = json!(follows);
    }
    frame
}

/// Closes the socket and waits until Warden has let go of it, so a decision made afterwards is
/// one the client missed (not one written to a socket that is going away).
pub async fn disconnect(mut socket: Socket) {
    let _ = socket.close(None).await;
    let drained = tokio::time::timeout(FRAME_WAIT, async { while let Some(Ok(_)) = socket.next().await {} }).await;
    assert!(drained.is_ok(), "the socket closed");
}

/// Reads until the socket closes; the close code, if one was sent.
pub async fn closed_with(socket: &mut Socket) -> Option<u16> {
    use futures::StreamExt;
    use tokio_tungstenite::tungstenite::Message;
    loop {
        let next =
            tokio::time::timeout(std::time::Duration::from_secs(30), socket.next()).await.expect("closed in time");
        match next {
            Some(Ok(Message::Close(frame))) => return frame.map(|f| u16::from(f.code)),
            Some(Ok(_)) => continue,
            Some(Err(_)) | None => return None,
        }
    }
}
