//! `fixture-executor [--port N] [--token T]`: an outside executor that listens for Warden to dial it,
//! for browser tests. It accepts WebSocket connections on 127.0.0.1 (with `--token`, only those that
//! carry `Authorization: Bearer T`; others get 401) and relays between the newest one and stdio: each
//! line on stdin is a frame sent to Warden, and each event is one JSON line on stdout:
//! `{"event":"listening","url"}`, `{"event":"connected","authorized"}`, `{"event":"refused"}`,
//! `{"event":"frame","frame"}` (what Warden sent), `{"event":"closed","code"}`, `{"event":"error","message"}`.
//! It exits when stdin closes, so it never outlives the test that started it.

use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::Message;

const USAGE: &str = "usage: fixture-executor [--port N] [--token T]";

struct Args {
    port: u16,
    token: Option<String>,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let (mut port, mut token) = (0u16, None);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--port" => port = value()?.parse().map_err(|_| "--port needs a number from 0 to 65535".to_string())?,
            "--token" => token = Some(value()?),
            "-h" | "--help" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    Ok(Args { port, token })
}

/// The open connection frames from stdin go to (the newest one), with its number.
type Current = Arc<Mutex<Option<(u64, mpsc::UnboundedSender<Message>)>>>;

/// One event as a line on stdout (`println!` flushes at the newline).
fn report(event: Value) {
    println!("{event}");
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let listener = match TcpListener::bind(("127.0.0.1", args.port)).await {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("cannot listen on 127.0.0.1:{}: {e}", args.port);
            return ExitCode::FAILURE;
        }
    };
    let url = match listener.local_addr() {
        Ok(address) => format!("ws://{address}/approver"),
        Err(e) => {
            eprintln!("no local address: {e}");
            return ExitCode::FAILURE;
        }
    };
    report(json!({"event": "listening", "url": url}));
    let current: Current = Arc::default();
    tokio::spawn(accept_forever(listener, args.token.map(Arc::from), current.clone()));

    // Stdin is read on a thread of its own (blocking reads); its lines come here.
    let (lines_in, mut lines) = mpsc::unbounded_channel::<String>();
    std::thread::spawn(move || {
        for line in std::io::stdin().lines() {
            let Ok(line) = line else { break };
            if lines_in.send(line).is_err() {
                break;
            }
        }
    });
    while let Some(line) = lines.recv().await {
        if line.trim().is_empty() {
            continue;
        }
        let sender = current.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map(|(_, s)| s.clone());
        match sender {
            Some(sender) if sender.send(Message::text(line)).is_ok() => {}
            _ => report(json!({"event": "error", "message": "no socket is open to send the frame on"})),
        }
    }
    ExitCode::SUCCESS
}

async fn accept_forever(listener: TcpListener, token: Option<Arc<str>>, current: Current) {
    let mut number = 0u64;
    while let Ok((stream, _)) = listener.accept().await {
        number += 1;
        tokio::spawn(serve(stream, number, token.clone(), current.clone()));
    }
}

/// Checks the upgrade's bearer token, then relays: frames queued for this connection go out, frames
/// from Warden are reported, until the socket closes.
async fn serve(stream: TcpStream, number: u64, token: Option<Arc<str>>, current: Current) {
    let mut authorized = false;
    // tungstenite's callback type: its error is a whole HTTP response.
    #[allow(clippy::result_large_err)]
    let check = |request: &Request, response: Response| -> Result<Response, ErrorResponse> {
        let given = request.headers().get("authorization").and_then(|v| v.to_str().ok());
        authorized = given.is_some();
        match &token {
            Some(token) if given != Some(format!("Bearer {token}").as_str()) => {
                let mut refusal = ErrorResponse::new(Some("wrong or missing bearer token".into()));
                *refusal.status_mut() = tokio_tungstenite::tungstenite::http::StatusCode::UNAUTHORIZED;
                Err(refusal)
            }
            _ => Ok(response),
        }
    };
    let socket = match tokio_tungstenite::accept_hdr_async(stream, check).await {
        Ok(socket) => socket,
        Err(_) => {
            report(json!({"event": "refused"}));
            return;
        }
    };
    report(json!({"event": "connected", "authorized": authorized}));
    let (outgoing, mut queued) = mpsc::unbounded_channel();
    *current.lock().unwrap_or_else(|e| e.into_inner()) = Some((number, outgoing));
    let (mut sink, mut stream) = socket.split();
    let mut code = None;
    loop {
        tokio::select! {
            message = stream.next() => match message {
                Some(Ok(Message::Text(text))) => {
                    let frame = serde_json::from_str::<Value>(&text).unwrap_or_else(|_| Value::String(text.to_string()));
                    report(json!({"event": "frame", "frame": frame}));
                }
                Some(Ok(Message::Close(frame))) => {
                    code = frame.map(|f| u16::from(f.code));
                    break;
                }
                Some(Ok(_)) => {}
                Some(Err(_)) | None => break,
            },
            Some(message) = queued.recv() => {
                if sink.send(message).await.is_err() {
                    break;
                }
            }
        }
    }
    let mut current = current.lock().unwrap_or_else(|e| e.into_inner());
    if current.as_ref().is_some_and(|(n, _)| *n == number) {
        *current = None;
    }
    report(json!({"event": "closed", "code": code}));
}
