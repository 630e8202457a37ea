//! One live connection of an authenticated client, whatever carries it (the server's WebSocket):
//! frames in, answers out, decisions pushed when they are made, the missed ones first. Nothing in
//! here fails the connection: a bad frame is answered with an error frame and the next one is read.

use tokio::sync::watch;
use warden_types::id::ClientId;
use warden_types::id::OutsideRequestId;

use crate::hub::{ClientSignal, OutsideHub};
use crate::protocol::{parse_client_frame, ServerFrame};
use crate::store::UNDELIVERED_PAGE;

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
    client_id: ClientId,
    signal: watch::Receiver<ClientSignal>,
}

/// The decisions a connection has not sent, read a page at a time; see [`Connection::missed_pages`].
/// Each page continues after the last decision of the one before (sent or not), so it ends even when
/// marking one delivered fails. Read them all again after the next [`Wake::Decided`].
pub struct MissedPages<'a> {
    connection: &'a Connection,
    after: Option<OutsideRequestId>,
    done: bool,
}

impl MissedPages<'_> {
    /// The next page to send (an error frame if they cannot be read), or `None` after the last.
    pub async fn next_page(&mut self) -> Option<Vec<ServerFrame>> {
        if self.done {
            return None;
        }
        let page = self.connection.missed_after(self.after.as_ref()).await;
        let last = page.iter().rev().find_map(|frame| match frame {
            ServerFrame::Decision(decision) => Some(decision.request_id.clone()),
            _ => None,
        });
        match last {
            Some(last) if page.len() >= UNDELIVERED_PAGE as usize => self.after = Some(last),
            _ => self.done = true,
        }
        (!page.is_empty()).then_some(page)
    }
}

impl Connection {
    pub(crate) fn new(hub: OutsideHub, client_id: ClientId, signal: watch::Receiver<ClientSignal>) -> Self {
        Self { hub, client_id, signal }
    }

    /// The decisions not sent to the client yet, as frames: the first page of at most 500 (see
    /// [`Connection::missed_pages`] for all of them). Follow each one sent with
    /// [`Connection::delivered`].
    pub async fn missed(&self) -> Vec<ServerFrame> {
        self.missed_after(None).await
    }

    /// All the decisions not sent to the client yet, page by page (at most 500 each), oldest first.
    pub fn missed_pages(&self) -> MissedPages<'_> {
        MissedPages { connection: self, after: None, done: false }
    }

    async fn missed_after(&self, after: Option<&OutsideRequestId>) -> Vec<ServerFrame> {
        match self.hub.missed_after(&self.client_id, after).await {
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
