//! One open socket to an executor Warden dialled: the same protocol as a client's socket, with the
//! roles of dialling reversed. The decisions the executor missed go out first; then each message is
//! a request frame answered by one frame, and decisions are pushed as they are made. A bad frame gets
//! an error frame and the socket stays open. Ends when the executor goes, the client is revoked
//! (1008), the executor is switched off (1000) or Warden shuts down (1001).

use std::time::Duration;

use futures::{SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use tokio_util::sync::CancellationToken;

use crate::connection::{Connection, Wake};
use crate::protocol::ServerFrame;

pub type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// How often an idle socket is pinged, so an executor that vanished is noticed.
const PING_EVERY: Duration = Duration::from_secs(30);

/// Why a socket ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// The executor closed it or it failed: dial again.
    Lost(String),
    /// The executor's client was revoked: do not dial again.
    Revoked,
    /// Switched off or shutting down.
    Stopped,
}

/// Serves the socket until it ends.
pub async fn serve(mut socket: Socket, connection: &mut Connection, stop: &CancellationToken) -> End {
    if let Err(end) = send_missed(&mut socket, connection).await {
        return end;
    }
    let mut ping = tokio::time::interval(PING_EVERY);
    ping.reset();
    loop {
        tokio::select! {
            message = socket.next() => {
                let answer = match message {
                    Some(Ok(Message::Text(text))) => connection.handle(text.as_bytes()).await,
                    Some(Ok(Message::Binary(bytes))) => connection.handle(&bytes).await,
                    // tungstenite queues the pong; flushing sends it.
                    Some(Ok(Message::Ping(_))) => {
                        if let Err(error) = socket.flush().await {
                            return End::Lost(format!("the socket failed: {error}"));
                        }
                        continue;
                    }
                    Some(Ok(Message::Pong(_) | Message::Frame(_))) => continue,
                    Some(Ok(Message::Close(frame))) => {
                        let why = frame.map(|f| format!(" ({} {})", u16::from(f.code), f.reason)).unwrap_or_default();
                        return End::Lost(format!("the executor closed the socket{why}"));
                    }
                    None => return End::Lost("the executor closed the connection".into()),
                    Some(Err(error)) => return End::Lost(format!("the socket failed: {error}")),
                };
                if let Err(end) = send_all(&mut socket, connection, vec![answer]).await {
                    return end;
                }
            }
            wake = connection.wake() => match wake {
                Wake::Decided => {
                    if let Err(end) = send_missed(&mut socket, connection).await {
                        return end;
                    }
                }
                Wake::Revoked => {
                    close(&mut socket, CloseCode::Policy, "the client was revoked in Warden").await;
                    return End::Revoked;
                }
                Wake::ShuttingDown => {
                    close(&mut socket, CloseCode::Away, "Warden is shutting down").await;
                    return End::Stopped;
                }
            },
            () = stop.cancelled() => {
                close(&mut socket, CloseCode::Normal, "switched off in Warden").await;
                return End::Stopped;
            }
            _ = ping.tick() => {
                if let Err(error) = socket.send(Message::Ping(Default::default())).await {
                    return End::Lost(format!("the socket failed: {error}"));
                }
            }
        }
    }
}

/// Sends the decisions not sent yet, a page at a time.
async fn send_missed(socket: &mut Socket, connection: &Connection) -> Result<(), End> {
    let mut missed = connection.missed_pages();
    while let Some(page) = missed.next_page().await {
        send_all(socket, connection, page).await?;
    }
    Ok(())
}

/// Sends the frames in order, each decision marked delivered once written.
async fn send_all(socket: &mut Socket, connection: &Connection, frames: Vec<ServerFrame>) -> Result<(), End> {
    for frame in frames {
        if let Err(error) = socket.send(Message::text(frame.to_json())).await {
            return Err(End::Lost(format!("the socket failed: {error}")));
        }
        connection.delivered(&frame).await;
    }
    Ok(())
}

async fn close(socket: &mut Socket, code: CloseCode, reason: &'static str) {
    let _ = socket.close(Some(CloseFrame { code, reason: reason.into() })).await;
}
