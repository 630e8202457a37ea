//! `GET /api/inbox/events`: the inbox's live feed as server-sent events, for the sidebar's badges,
//! the page title and notifications. `count` (how many approvals and connection checks wait, chat
//! and outside; an outside request on the card of one of Warden's own calls counts as chat) comes
//! first and again after every change, and `threads` (how many wait in each thread, such requests
//! included) after it whenever that changed; `arrived` tells of each new pending item; `titled` of
//! each thread the model named (after its run ended, so not on the run's stream), for the sidebar and
//! the open thread's heading; `run` of each run as it starts, so a page open on its thread (another
//! tab) follows it. It follows the engine's approvals, connection checks and titles and
//! the outside hub's requests as they happen (chat approvals only those routed to the person asking, and
//! `voted` when someone votes on a card they see); a listener that falls behind just counts again (a
//! title it missed shows when the list is next read). Titles and counts per thread are told only of
//! threads the listener may read. Behind the access gate like every `/api` route; ends at shutdown.

use std::collections::VecDeque;

use axum::extract::State;
use axum::response::sse::Event;
use axum::Extension;
use futures::StreamExt;
use tokio::sync::broadcast::{self, error::RecvError};
use warden_app::wording::kind_label;
use warden_engine::Engine;
use warden_outside::{InboxEvent, OutsideHub};
use warden_people::Asker;
use warden_policies::{may_decide, route_of, shown_to};
use warden_types::approval::{Approval, ApprovalStatus};
use warden_types::connection::{CheckStatus, ConnectionCheck};
use warden_types::inbox::{ApprovalSource, Arrived, PendingByThread, PendingCount, RunBegan, Titled};
use warden_types::person::ActingPerson;

use super::sse::{event_stream, EventStream};
use warden_types::id::ThreadId;
use warden_types::person::Reader;

/// Longest `arrived` summary, in characters (a notification shows a line or two).
const MAX_SUMMARY_CHARS: usize = 200;

pub async fn events(
    State(engine): State<Engine>,
    State(hub): State<OutsideHub>,
    Extension(asker): Extension<Asker>,
) -> EventStream {
    // Subscribed before the first count, so nothing that happens in between is missed.
    let feed = Feed {
        chat: engine.watch_approvals(),
        checks: engine.watch_connection_checks(),
        titles: engine.watch_titles(),
        runs: engine.watch_runs(),
        outside: hub.subscribe(),
        engine: engine.clone(),
        reader: asker.reader(),
        person: asker.acting(),
        hub,
        queued: VecDeque::new(),
        last: None,
        last_threads: None,
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
    event_stream(stream.boxed())
}

struct Feed {
    chat: broadcast::Receiver<Approval>,
    checks: broadcast::Receiver<ConnectionCheck>,
    titles: broadcast::Receiver<Titled>,
    runs: broadcast::Receiver<RunBegan>,
    outside: broadcast::Receiver<InboxEvent>,
    engine: Engine,
    /// Who listens: only the threads they may read are told of (titles, counts per thread).
    reader: Reader,
    /// Whose inbox this is: only what is routed to them counts and arrives.
    person: ActingPerson,
    hub: OutsideHub,
    queued: VecDeque<Event>,
    /// The count last sent: a change that leaves it as it was sends nothing.
    last: Option<PendingCount>,
    /// The per-thread counts last sent.
    last_threads: Option<PendingByThread>,
}

impl Feed {
    /// Waits for the next change and queues what it means; false once the sources are gone.
    async fn next(&mut self) -> bool {
        let arrived = tokio::select! {
            approval = self.chat.recv() => match approval {
                // A vote on a card this person sees: told, so their inbox shows it at once.
                Ok(a) if a.status == ApprovalStatus::Pending && !a.votes.is_empty() => {
                    if shown_to(&route_of(&a), &self.person) {
                        self.queue("voted", &serde_json::json!({ "id": a.id }));
                    }
                    None
                }
                Ok(a) if a.status == ApprovalStatus::Pending && may_decide(&route_of(&a), &self.person).is_ok() => {
                    Some(Arrived { source: ApprovalSource::Chat, id: a.id.into(), summary: a.summary })
                }
                Ok(_) | Err(RecvError::Lagged(_)) => None,
                Err(RecvError::Closed) => return false,
            },
            check = self.checks.recv() => match check {
                // Asked now (a failed Connect sends it again, still pending, with its error).
                Ok(c) if c.status == CheckStatus::Pending && c.error.is_none() => Some(Arrived {
                    source: ApprovalSource::Check,
                    summary: format!("{} is {}", c.server, c.down.label()),
                    id: c.id.into(),
                }),
                Ok(_) | Err(RecvError::Lagged(_)) => None,
                Err(RecvError::Closed) => return false,
            },
            titled = self.titles.recv() => match titled {
                // Counts nothing: told as it is.
                Ok(titled) => {
                    if self.may_read(&titled.thread_id).await {
                        self.queue("titled", &titled);
                    }
                    return true;
                }
                Err(RecvError::Lagged(_)) => None,
                Err(RecvError::Closed) => return false,
            },
            began = self.runs.recv() => match began {
                // Counts nothing: a page open on the thread follows the run.
                Ok(began) => {
                    if self.may_read(&began.thread_id).await {
                        self.queue("run", &began);
                    }
                    return true;
                }
                Err(RecvError::Lagged(_)) => None,
                Err(RecvError::Closed) => return false,
            },
            event = self.outside.recv() => match event {
                // One on a call's card belongs to that chat. Only what this person may decide arrives.
                Ok(InboxEvent::Pending { request }) if may_decide(&request.route(), &self.person).is_ok() => {
                    Some(Arrived {
                        source: if request.linked_call.is_some() {
                            ApprovalSource::Chat
                        } else {
                            ApprovalSource::Outside
                        },
                        summary: format!("{} from {}", kind_label(request.kind), request.client_name),
                        id: request.id.into(),
                    })
                }
                // A vote on a request this person sees: told, so their inbox shows it at once.
                Ok(InboxEvent::Voted { request }) => {
                    if shown_to(&request.route(), &self.person) {
                        self.queue("voted", &serde_json::json!({ "id": request.id }));
                    }
                    None
                }
                Ok(InboxEvent::Pending { .. } | InboxEvent::Decided { .. }) | Err(RecvError::Lagged(_)) => None,
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

    /// Counts what waits now and queues the count, and the counts per thread, if they changed.
    async fn count(&mut self) {
        let chat = self.engine.pending_by_thread_for(&self.person).await;
        let outside = self.hub.pending_for(&self.person).await;
        let (count, threads) = match (chat, outside) {
            (Ok(threads), Ok(outside)) => {
                // A request on a call's card counts once, with the chats, and on its thread's row.
                let on_cards: u64 = outside.on_cards.values().sum();
                let mut count = PendingCount {
                    chat: saturate(on_cards),
                    outside: saturate(outside.apart),
                    ..PendingCount::default()
                };
                let mut by_thread: PendingByThread =
                    outside.on_cards.into_iter().map(|(id, n)| (id, saturate(n))).collect();
                for t in threads {
                    count.chat = count.chat.saturating_add(t.approvals);
                    count.checks = count.checks.saturating_add(t.checks);
                    let waiting = by_thread.entry(t.thread_id).or_default();
                    *waiting = waiting.saturating_add(t.approvals).saturating_add(t.checks);
                }
                (count, by_thread)
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
        let mut readable = PendingByThread::new();
        for (thread, waiting) in threads {
            if self.may_read(&thread).await {
                readable.insert(thread, waiting);
            }
        }
        let threads = readable;
        if self.last != Some(count) {
            self.last = Some(count);
            self.queue("count", &count);
        }
        if self.last_threads.as_ref() != Some(&threads) {
            self.queue("threads", &threads);
            self.last_threads = Some(threads);
        }
    }

    /// Whether the listener may read `thread` (an error, logged, counts as no).
    async fn may_read(&self, thread: &ThreadId) -> bool {
        match self.engine.as_reader(&self.reader).may_read(thread).await {
            Ok(may) => may,
            Err(error) => {
                tracing::error!(%error, "could not check who may read a thread");
                false
            }
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
