//! `GET /api/inbox/events`: the inbox's live feed as server-sent events, for the sidebar badge, the
//! page title and notifications. `count` (how many approvals wait, chat and outside; an outside request
//! on the card of one of Warden's own calls counts as chat) comes first
//! and again after every change; `arrived` tells of each new pending approval. It follows the
//! engine's approvals and the outside hub's requests as they happen; a listener that falls behind
//! just counts again. Behind the access gate like every `/api` route; ends at shutdown.

use std::collections::VecDeque;
use std::convert::Infallible;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures::{Stream, StreamExt};
use tokio::sync::broadcast::{self, error::RecvError};
use warden_app::inbox::kind_label;
use warden_engine::Engine;
use warden_outside::{InboxEvent, OutsideHub, RequestStatus};
use warden_types::approval::{Approval, ApprovalStatus};
use warden_types::inbox::{ApprovalSource, Arrived, PendingCount};

/// Longest `arrived` summary, in characters (a notification shows a line or two).
const MAX_SUMMARY_CHARS: usize = 200;

pub async fn events(
    State(engine): State<Engine>,
    State(hub): State<OutsideHub>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    // Subscribed before the first count, so nothing that happens in between is missed.
    let feed = Feed {
        chat: engine.watch_approvals(),
        outside: hub.subscribe(),
        engine: engine.clone(),
        hub,
        queued: VecDeque::new(),
        last: None,
    };
    let stream = futures::stream::unfold((feed, true), |(mut feed, first)| async move {
        if first {
            feed.count().await;
        }
        loop {
            if let Some(event) = feed.queued.pop_front() {
                return Some((Ok(event), (feed, false)));
            }
            if !feed.next().await {
                return None;
            }
        }
    })
    .take_until(engine.shutdown_token().cancelled_owned());
    Sse::new(stream).keep_alive(KeepAlive::default())
}

struct Feed {
    chat: broadcast::Receiver<Approval>,
    outside: broadcast::Receiver<InboxEvent>,
    engine: Engine,
    hub: OutsideHub,
    queued: VecDeque<Event>,
    /// The count last sent: a change that leaves it as it was sends nothing.
    last: Option<PendingCount>,
}

impl Feed {
    /// Waits for the next change and queues what it means; false once both sources are gone.
    async fn next(&mut self) -> bool {
        let arrived = tokio::select! {
            approval = self.chat.recv() => match approval {
                Ok(a) if a.status == ApprovalStatus::Pending => {
                    Some(Arrived { source: ApprovalSource::Chat, id: a.id, summary: a.summary })
                }
                Ok(_) | Err(RecvError::Lagged(_)) => None,
                Err(RecvError::Closed) => return false,
            },
            event = self.outside.recv() => match event {
                // One on a call's card belongs to that chat.
                Ok(InboxEvent::Pending { request }) => Some(Arrived {
                    source: if request.linked_call.is_some() { ApprovalSource::Chat } else { ApprovalSource::Outside },
                    summary: format!("{} from {}", kind_label(request.kind), request.client_name),
                    id: request.id,
                }),
                Ok(InboxEvent::Decided { .. }) | Err(RecvError::Lagged(_)) => None,
                Err(RecvError::Closed) => return false,
            },
        };
        if let Some(mut arrived) = arrived {
            if arrived.summary.chars().count() > MAX_SUMMARY_CHARS {
                arrived.summary = arrived.summary.chars().take(MAX_SUMMARY_CHARS).chain(['…']).collect();
            }
            self.queue("arrived", &arrived);
        }
        self.count().await;
        true
    }

    /// Counts what waits now and queues the count if it changed.
    async fn count(&mut self) {
        let chat = self.engine.count_approvals(ApprovalStatus::Pending).await;
        let outside = self.hub.count_by_link(RequestStatus::Pending).await;
        let count = match (chat, outside) {
            // A request on a call's card counts once, with the chats.
            (Ok(chat), Ok(outside)) => {
                PendingCount { chat: saturate(chat.saturating_add(outside.linked)), outside: saturate(outside.apart) }
            }
            (Err(error), _) => {
                tracing::error!(%error, "could not count the pending approvals");
                return;
            }
            (_, Err(error)) => {
                tracing::error!(%error, "could not count the pending outside requests");
                return;
            }
        };
        if self.last != Some(count) {
            self.last = Some(count);
            self.queue("count", &count);
        }
    }

    fn queue(&mut self, name: &str, data: &impl serde::Serialize) {
        match serde_json::to_string(data) {
            Ok(json) => self.queued.push_back(Event::default().event(name).data(json)),
            Err(error) => tracing::error!(%error, "could not encode an inbox event"),
        }
    }
}

fn saturate(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
