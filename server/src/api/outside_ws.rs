//! `GET /ws/approvals`: an outside client's WebSocket. The gate has checked `Host` and `Origin`;
//! the client's token is checked before the upgrade. The missed decisions go out first, then every
//! text (or binary) message is one frame answered by one frame, and decisions are pushed as they are
//! made. A bad frame gets an error frame and the socket stays open; the socket closes when the
//! client goes, its token is revoked (1008), a message is over 1 MiB (1009) or Warden shuts down (1001).

use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::response::Response;
use warden_outside::protocol::{ServerFrame, MAX_FRAME_BYTES};
use warden_outside::{Client, Connection, Held, OutsideHub, Permit, Wake};

use super::error::ApiResult;
use super::outside::OutsideClient;

/// The largest message the socket reads at all: frames up to this size are answered (over
/// [`MAX_FRAME_BYTES`] with `too_large`); a bigger message cannot be read and closes the socket (1009).
const MAX_MESSAGE_BYTES: usize = 4 * MAX_FRAME_BYTES;
/// How often an idle socket is pinged, so a client that vanished is noticed.
const PING_EVERY: Duration = Duration::from_secs(30);

/// A client over its bound of sockets is answered 429 `too_many_connections` before the upgrade.
/// Otherwise the answer is the upgrade's `101 Switching Protocols`, a plain [`Response`] as axum's
/// [`WebSocketUpgrade::on_upgrade`] builds it.
pub async fn connect(
    OutsideClient(client): OutsideClient,
    State(hub): State<OutsideHub>,
    upgrade: WebSocketUpgrade,
) -> ApiResult<Response> {
    let permit = hub.hold(&client.id, Held::Socket)?;
    Ok(upgrade
        .max_message_size(MAX_MESSAGE_BYTES)
        .max_frame_size(MAX_MESSAGE_BYTES)
        .on_upgrade(move |socket| serve(socket, hub, client, permit)))
}

/// `_permit` counts the socket against the client's bound until it closes.
async fn serve(mut socket: WebSocket, hub: OutsideHub, client: Client, _permit: Permit) {
    let mut connection = hub.connect(&client);
    tracing::debug!(client_id = %client.id, "outside client connected");
    if !send_missed(&mut socket, &connection).await {
        return;
    }
    let mut ping = tokio::time::interval(PING_EVERY);
    ping.reset();
    loop {
        tokio::select! {
            message = socket.recv() => {
                let answer = match message {
                    Some(Ok(Message::Text(text))) => connection.handle(text.as_bytes()).await,
                    Some(Ok(Message::Binary(bytes))) => connection.handle(&bytes).await,
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                    Some(Ok(Message::Close(_))) | None => break,
                    Some(Err(error)) => {
                        tracing::debug!(client_id = %client.id, %error, "outside client socket failed");
                        if is_over_size_cap(&error) {
                            close(&mut socket, 1009, "a message over 1 MiB cannot be read").await;
                        }
                        break;
                    }
                };
                if !send_all(&mut socket, &connection, vec![answer]).await {
                    break;
                }
            }
            wake = connection.wake() => match wake {
                Wake::Decided => {
                    if !send_missed(&mut socket, &connection).await {
                        break;
                    }
                }
                Wake::Revoked => {
                    close(&mut socket, 1008, "the client token was revoked").await;
                    break;
                }
                Wake::ShuttingDown => {
                    close(&mut socket, 1001, "Warden is shutting down").await;
                    break;
                }
            },
            _ = ping.tick() => {
                if socket.send(Message::Ping(Default::default())).await.is_err() {
                    break;
                }
            }
        }
    }
    tracing::debug!(client_id = %client.id, "outside client disconnected");
}

/// Sends the decisions not sent yet, a page at a time; false when the socket is gone.
async fn send_missed(socket: &mut WebSocket, connection: &Connection) -> bool {
    let mut missed = connection.missed_pages();
    while let Some(page) = missed.next_page().await {
        if !send_all(socket, connection, page).await {
            return false;
        }
    }
    true
}

/// Sends the frames in order, each decision marked delivered once written; false when the socket is gone.
async fn send_all(socket: &mut WebSocket, connection: &Connection, frames: Vec<ServerFrame>) -> bool {
    for frame in frames {
        if socket.send(Message::Text(frame.to_json().into())).await.is_err() {
            return false;
        }
        connection.delivered(&frame).await;
    }
    true
}

/// Whether a read failed because the message was over [`MAX_MESSAGE_BYTES`].
fn is_over_size_cap(error: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(error) = source {
        if let Some(tungstenite::Error::Capacity(_)) = error.downcast_ref::<tungstenite::Error>() {
            return true;
        }
        source = error.source();
    }
    false
}

async fn close(socket: &mut WebSocket, code: u16, reason: &'static str) {
    let _ = socket.send(Message::Close(Some(CloseFrame { code, reason: reason.into() }))).await;
}
