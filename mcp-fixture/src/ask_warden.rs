//! `run_code`'s side of Warden's outside approvals: an executor that Warden's own chat called asks
//! Warden, as an outside client, whether the code may run, naming Warden's call (the `tools/call`
//! request's `_meta["warden/call_id"]`), and waits for the decision. Warden's address and the
//! client's token come from the environment (`WARDEN_URL`, `WARDEN_CLIENT_TOKEN`), which the MCP
//! server's config sets.

use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::Message;

/// Warden's base address, e.g. `http://127.0.0.1:3000`.
pub const URL_ENV: &str = "WARDEN_URL";
/// The outside client's token (`wo_…`).
pub const TOKEN_ENV: &str = "WARDEN_CLIENT_TOKEN";

/// What Warden decided.
pub enum Verdict {
    /// Run this (the code as sent, or as the person edited it).
    Run(String),
    Refused(String),
}

/// Sends one `security_evaluation` for `code` naming `call_id` (if Warden gave one) and waits for its
/// decision on the same socket.
pub async fn ask(code: &str, call_id: Option<&str>) -> Result<Verdict, String> {
    let base = std::env::var(URL_ENV).map_err(|_| format!("{URL_ENV} is not set"))?;
    let token = std::env::var(TOKEN_ENV).map_err(|_| format!("{TOKEN_ENV} is not set"))?;
    let url = format!("{}/ws/approvals", base.trim_end_matches('/').replacen("http", "ws", 1));
    let mut request = url.into_client_request().map_err(|e| e.to_string())?;
    let bearer = HeaderValue::from_str(&format!("Bearer {token}")).map_err(|e| e.to_string())?;
    request.headers_mut().insert("authorization", bearer);
    let (mut socket, _) = tokio_tungstenite::connect_async(request).await.map_err(|e| format!("connect: {e}"))?;

    let id = match call_id {
        Some(call_id) => format!("run-{call_id}"),
        None => format!("run-{}", std::time::UNIX_EPOCH.elapsed().map(|d| d.as_nanos()).unwrap_or(0)),
    };
    let mut frame = json!({"type": "security_evaluation", "id": id, "code": code, "language": "sh",
        "explanation": "The model asked the fixture to run this code.", "risk_level": "medium"});
    if let Some(call_id) = call_id {
        frame["warden_call_id"] = Value::from(call_id);
    }
    socket.send(Message::text(frame.to_string())).await.map_err(|e| format!("send: {e}"))?;
    while let Some(message) = socket.next().await {
        let text = match message.map_err(|e| format!("socket: {e}"))? {
            Message::Text(text) => text,
            Message::Close(_) => break,
            _ => continue,
        };
        let answer: Value = serde_json::from_str(&text).map_err(|e| format!("not JSON ({e}): {text}"))?;
        if answer["id"] != id.as_str() {
            continue;
        }
        match answer["type"].as_str() {
            Some("ack") => continue,
            Some("decision") => {
                let _ = socket.close(None).await;
                return Ok(match answer["decision"].as_str() {
                    Some("approved") => Verdict::Run(answer["edited_code"].as_str().unwrap_or(code).to_owned()),
                    _ => Verdict::Refused(answer["reason"].as_str().unwrap_or("no reason given").to_owned()),
                });
            }
            _ => return Err(format!("Warden refused the request: {answer}")),
        }
    }
    Err("the socket closed before the decision".to_owned())
}
