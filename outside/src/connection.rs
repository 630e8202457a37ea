//! One live connection of an authenticated client, whatever carries it (the server's WebSocket):
//! frames in, answers out, decisions pushed when they are made, the missed ones first. Nothing in
//! here fails the connection: a bad frame is answered with an error frame and the next one is read.

use tokio::sync::watch;

use crate::hub::{ClientSignal, OutsideHub};
use crate::protocol::{parse_client_frame, ServerFrame};

/// Why a connection should look at its client's decisions again, or end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wake {
    /// A decision for the client was made: send [`Connection::missed`].
    Decided,
    /// The client's token was revoked: close.
    Revoked,
    /// Warden is shutting down: close.
    ShuttingDown,
}

pub struct Connection {
    hub: OutsideHub,
    client_id: String,
    signal: watch::Receiver<ClientSignal>,
}

impl Connection {
    pub(crate) fn new(hub: OutsideHub, client_id: String, signal: watch::Receiver<ClientSignal>) -> Self {
        Self { hub, client_id, signal }
    }

    pub fn client_id(&self) -> &str {
        &self.client_id
    }

    /// The decisions not sent to the client yet, as frames. Follow each one sent with
    /// [`Connection::delivered`].
    pub async fn missed(&self) -> Vec<ServerFrame> {
        match self.hub.missed(&self.client_id).await {
            Ok(frames) => frames.into_iter().map(ServerFrame::Decision).collect(),
            Err(error) => vec![error.into_frame_error(None).into_frame()],
        }
    }

    /// Answers one frame from the client: an ack, a decision, or an error frame.
    pub async fn handle(&self, bytes: &[u8]) -> ServerFrame {
        let frame = match parse_client_frame(bytes) {
            Ok(frame) => frame,
            Err(error) => return error.into_frame(),
        };
        let id = frame.id().to_string();
        match self.hub.submit(&self.client_id, frame).await {
            Ok(answer) => answer.into_frame(),
            Err(error) => error.into_frame_error(Some(id)).into_frame(),
        }
    }

    /// Records that `frame` went out: a decision is not sent again on the next connection.
    pub async fn delivered(&self, frame: &ServerFrame) {
        if let ServerFrame::Decision(decision) = frame {
            if let Err(error) = self.hub.mark_delivered(&decision.request_id).await {
                // It goes out again on the next connection: the client sees it twice, never not at all.
                tracing::warn!(%error, request_id = %decision.request_id, "could not mark a decision delivered");
            }
        }
    }

    /// Waits until there is something to do. Cancel-safe: use it in `select!`.
    pub async fn wake(&mut self) -> Wake {
        if self.signal.borrow().revoked {
            return Wake::Revoked;
        }
        let shutdown = self.hub.shutdown_token();
        tokio::select! {
            changed = self.signal.changed() => match changed {
                Ok(()) if self.signal.borrow_and_update().revoked => Wake::Revoked,
                Ok(()) => Wake::Decided,
                Err(_) => Wake::ShuttingDown,
            },
            () = shutdown.cancelled() => Wake::ShuttingDown,
        }
    }
}
