//! The event hub: numbers each run event, hands it to live subscribers and to a background writer
//! that appends it to SQLite in batches. Subscribing replays the log, then follows live events; the
//! events the writer has not stored yet are kept here until it has, so a reader replays them from
//! memory instead of waiting for the writer (a new run's stream starts at once).
//! Approvals requested or settled in any run are also told to [`EventHub::watch_approvals`]
//! listeners (the inbox), connection checks to [`EventHub::watch_connection_checks`], and the calls
//! that ended to [`EventHub::watch_ended_calls`], since every change of these passes through here as a
//! run event. A thread the model named after its run ended is told to [`EventHub::watch_titles`].

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use warden_types::id::RunId;
use warden_types::id::ToolCallId;

use futures::stream::BoxStream;
use futures::StreamExt;
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::error::Result;
use crate::store::{Store, StoredEvent};
use warden_types::approval::Approval;
use warden_types::connection::ConnectionCheck;
use warden_types::event::{EventKind, RunEvent};
use warden_types::inbox::{RunBegan, Titled};

/// An event with its place in the run's stream (the SSE `id:`), already serialised: `data` is the
/// event's JSON (with its `type`), sent as the SSE `data:` line as it is.
#[derive(Debug, Clone, PartialEq)]
pub struct RunEventRecord {
    pub seq: u64,
    pub kind: EventKind,
    pub data: std::sync::Arc<str>,
}

impl RunEventRecord {
    pub fn event(&self) -> Option<RunEvent> {
        serde_json::from_str(&self.data).ok()
    }
    pub fn is_terminal(&self) -> bool {
        self.kind.is_terminal()
    }
}

/// Live events buffered per run for slow readers; a reader that falls further behind catches up
/// from the log. Small, because every run someone watches holds one: tokio allocates every slot up
/// front, 64 bytes each, and 64 slots were a quarter of what an open SSE listener cost (`warden-bench
/// listeners`: 18.5 KiB per listener with 64, 16.2 with 16, 15.2-15.8 with 8). Eight is 130 ms of
/// text frames; 1,000 streams at once (`warden-bench streams`) still run with 0 errors, token gap p99 64 ms.
const LIVE_BUFFER: usize = 8;
/// Approval changes buffered for a slow inbox listener; one that lags is told so and reads the store.
const APPROVALS_BUFFER: usize = 256;

/// The runs' live channels and the events numbered but not stored yet, per run, in order.
#[derive(Default)]
struct Streams {
    live: HashMap<RunId, broadcast::Sender<RunEventRecord>>,
    unstored: HashMap<RunId, VecDeque<RunEventRecord>>,
    /// Runs whose every event is among `unstored`: their log began in this process (`RunStarted`)
    /// and none of it is stored yet. A replay of one is taken from memory alone, without reading the
    /// log: what the stream of a run just started (the answer to a message) does first.
    whole: HashSet<RunId>,
}

impl Streams {
    /// A panic elsewhere while it was held leaves nothing half-done here: the maps are used as they are.
    fn lock(streams: &Mutex<Streams>) -> std::sync::MutexGuard<'_, Streams> {
        streams.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn unstored_after(&self, run_id: &RunId, after: u64) -> Unstored {
        let events = self
            .unstored
            .get(run_id)
            .map_or_else(Vec::new, |events| events.iter().filter(|r| r.seq > after).cloned().collect());
        Unstored { events, whole: self.whole.contains(run_id) }
    }

    /// Drops the events of `batch`, which the writer has handled, from the unstored ones.
    fn forget(&mut self, batch: &[StoredEvent]) {
        for event in batch {
            if let Some(events) = self.unstored.get_mut(&event.run_id) {
                while events.front().is_some_and(|r| r.seq <= event.seq) {
                    events.pop_front();
                }
                self.whole.remove(&event.run_id);
                if events.is_empty() {
                    self.unstored.remove(&event.run_id);
                }
            }
        }
    }
}

/// A run's events after some point that are not stored yet, copied under the lock.
struct Unstored {
    events: Vec<RunEventRecord>,
    /// No event of the run is stored: these are all its events after that point.
    whole: bool,
}

/// How long the writer gathers events after the first of a burst before it stores them in one write.
/// A turn, a decision or a run's start emits several events within a few milliseconds, and every
/// write waits for the one writer connection (`Database`): storing each as it came queued the run's
/// own writes behind them, on the way from a message to its card and from a decision to its result.
/// Readers lose nothing meanwhile (they replay unstored events from memory); a process killed in
/// that window loses those events from the log, as it could lose a batch before, and the next boot
/// numbers above them and tells a reconnecting client to drop the partial turn. From shutdown on
/// ([`EventHub::store_at_once`]) nothing is gathered.
const GATHER: std::time::Duration = std::time::Duration::from_millis(10);

/// The most events stored in one write.
const MAX_BATCH: usize = 1024;

enum WriterMsg {
    Event(StoredEvent),
    /// Tests wait on it to read the log; readers take what is not stored yet from `Streams`.
    #[cfg(test)]
    Flush(oneshot::Sender<()>),
}

pub struct EventHub {
    store: Store,
    /// Global, monotonic across runs and restarts, never given twice (each boot starts above every id
    /// an earlier process could have sent: see `Store::first_event_seq_of_this_boot`).
    next_seq: AtomicU64,
    /// Live channels and unstored events, under one lock: numbering, sending and keeping an event is one
    /// step, and so is subscribing and copying what is not stored yet.
    streams: Arc<Mutex<Streams>>,
    writer: mpsc::UnboundedSender<WriterMsg>,
    /// Cancelled at shutdown: from then on the writer stores each burst at once, not after `GATHER`.
    gathering: CancellationToken,
    /// Every approval as it is requested and as it is settled, across runs.
    approvals: broadcast::Sender<Approval>,
    /// Every connection check as it is asked, as a Connect fails, and as it is settled, across runs.
    checks: broadcast::Sender<ConnectionCheck>,
    /// The id of every tool call as its result is settled (done, failed, cancelled, interrupted).
    ended_calls: broadcast::Sender<ToolCallId>,
    /// Every thread the model named, after the run it named it by ended.
    titles: broadcast::Sender<Titled>,
    /// Every run as it starts, with its thread.
    runs: broadcast::Sender<RunBegan>,
}

impl EventHub {
    pub async fn start(store: Store) -> Result<Arc<Self>> {
        let next = store.first_event_seq_of_this_boot().await?;
        let (tx, rx) = mpsc::unbounded_channel();
        let streams = Arc::new(Mutex::new(Streams::default()));
        let gathering = CancellationToken::new();
        tokio::spawn(write_batches(store.clone(), rx, streams.clone(), gathering.clone()));
        Ok(Arc::new(Self {
            store,
            next_seq: AtomicU64::new(next),
            streams,
            writer: tx,
            gathering,
            approvals: broadcast::channel(APPROVALS_BUFFER).0,
            checks: broadcast::channel(APPROVALS_BUFFER).0,
            ended_calls: broadcast::channel(APPROVALS_BUFFER).0,
            titles: broadcast::channel(APPROVALS_BUFFER).0,
            runs: broadcast::channel(APPROVALS_BUFFER).0,
        }))
    }

    /// At shutdown: the events emitted from now on (and those gathered now) are stored at once, so
    /// the process does not end with a burst still waiting to be written.
    pub fn store_at_once(&self) {
        self.gathering.cancel();
    }

    /// Every approval of any run as it is requested (pending) and as it is settled, from now on.
    pub fn watch_approvals(&self) -> broadcast::Receiver<Approval> {
        self.approvals.subscribe()
    }

    /// Every connection check of any run as it is asked (pending), as a Connect fails (still
    /// pending, with the error) and as it is settled, from now on.
    pub fn watch_connection_checks(&self) -> broadcast::Receiver<ConnectionCheck> {
        self.checks.subscribe()
    }

    /// The id of every tool call of any run as its result is settled, from now on.
    pub fn watch_ended_calls(&self) -> broadcast::Receiver<ToolCallId> {
        self.ended_calls.subscribe()
    }

    /// Every thread the model names from now on (`run::title`), after the run it was named by ended.
    pub fn watch_titles(&self) -> broadcast::Receiver<Titled> {
        self.titles.subscribe()
    }

    /// Every run of any thread as it starts, from now on (pages open on its thread follow it).
    pub fn watch_runs(&self) -> broadcast::Receiver<RunBegan> {
        self.runs.subscribe()
    }

    /// Tells the title listeners (the pages' live feed) that the model named a thread.
    pub fn tell_titled(&self, titled: Titled) {
        let _ = self.titles.send(titled);
    }

    /// Numbers the event, sends it to live subscribers and queues it for the log.
    pub fn emit(&self, run_id: &RunId, event: &RunEvent) -> u64 {
        let data: Arc<str> = match serde_json::to_string(event) {
            Ok(s) => s.into(),
            Err(e) => {
                tracing::error!(%run_id, error = %e, "could not serialise a run event");
                return 0;
            }
        };
        let kind = event.kind();
        // The lock makes numbering and sending one step, so subscribers see numbers in order.
        let mut streams = self.lock();
        let seq = self.next_seq.fetch_add(1, Ordering::Relaxed);
        let _ =
            self.writer.send(WriterMsg::Event(StoredEvent { run_id: run_id.clone(), seq, kind, data: data.clone() }));
        let record = RunEventRecord { seq, kind, data };
        let Streams { live, unstored, whole } = &mut *streams;
        if matches!(event, RunEvent::RunStarted { .. }) {
            whole.insert(run_id.clone());
        }
        if let Some(tx) = live.get(run_id) {
            if tx.send(record.clone()).is_err() || event.is_terminal() {
                live.remove(run_id);
            }
        }
        unstored.entry(run_id.clone()).or_default().push_back(record);
        drop(streams);
        if let RunEvent::ApprovalRequest { approval } | RunEvent::ApprovalResolved { approval, .. } = event {
            // Nobody listening is fine: no inbox is open.
            let _ = self.approvals.send(approval.clone());
        }
        if let RunEvent::ConnectionCheck { check } = event {
            let _ = self.checks.send(check.clone());
        }
        if let RunEvent::ToolResult { tool_call_id, .. } = event {
            let _ = self.ended_calls.send(tool_call_id.clone());
        }
        if let RunEvent::RunStarted { run_id, thread_id, .. } = event {
            let _ = self.runs.send(RunBegan { thread_id: thread_id.clone(), run_id: run_id.clone() });
        }
        seq
    }

    /// Waits until every event emitted so far is in SQLite.
    #[cfg(test)]
    pub async fn flush(&self) {
        let (tx, rx) = oneshot::channel();
        if self.writer.send(WriterMsg::Flush(tx)).is_ok() {
            let _ = rx.await;
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Streams> {
        Streams::lock(&self.streams)
    }

    /// The run's stored events after `after`, then those of `unstored` (copied before the log was read)
    /// that the log did not hold yet. The writer stores events in the order they were numbered and
    /// forgets them only once stored, so the two together miss none and the second half only repeats
    /// what was stored in between (skipped by id).
    async fn replay(&self, run_id: &RunId, after: u64, unstored: Unstored) -> Result<Vec<RunEventRecord>> {
        let Unstored { events: unstored, whole } = unstored;
        if whole {
            return Ok(unstored);
        }
        let mut replay: Vec<RunEventRecord> = self
            .store
            .events_after(run_id, after)
            .await?
            .into_iter()
            .map(|(seq, kind, data)| RunEventRecord { seq, kind, data: data.into() })
            .collect();
        let stored_up_to = replay.last().map_or(after, |r| r.seq);
        replay.extend(unstored.into_iter().filter(|r| r.seq > stored_up_to));
        Ok(replay)
    }

    /// The run's events after `after`: first the log, then live ones, ending after the terminal event.
    /// `run_done` says whether the run has already ended (then the log is all there is).
    pub async fn subscribe(
        self: &Arc<Self>,
        run_id: &RunId,
        after: u64,
        run_done: bool,
    ) -> Result<BoxStream<'static, RunEventRecord>> {
        let (rx, unstored) = {
            let mut streams = self.lock();
            let rx = (!run_done).then(|| {
                streams.live.entry(run_id.clone()).or_insert_with(|| broadcast::channel(LIVE_BUFFER).0).subscribe()
            });
            (rx, streams.unstored_after(run_id, after))
        };
        // Made at once, so that however this ends, a channel nobody reads is dropped with it.
        let rx = rx.map(|rx| Subscription { rx: Some(rx), hub: self.clone(), run_id: run_id.clone() });
        let replay = self.replay(run_id, after, unstored).await?;
        let last = replay.last().map(|r| r.seq).unwrap_or(after);
        let ended = replay.iter().any(RunEventRecord::is_terminal);
        let replay = futures::stream::iter(replay);
        let (Some(rx), false) = (rx, ended) else {
            return Ok(replay.boxed());
        };
        let live = futures::stream::unfold((rx, last, false), |(mut sub, mut last, done)| async move {
            if done {
                return None;
            }
            let (hub, run_id) = (sub.hub.clone(), sub.run_id.clone());
            let rx = sub.rx.as_mut()?;
            loop {
                match rx.recv().await {
                    Ok(r) if r.seq <= last => continue,
                    Ok(r) => {
                        last = r.seq;
                        let end = r.is_terminal();
                        return Some((vec![r], (sub, last, end)));
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        // Too slow a reader: catch up from the log.
                        let unstored = hub.lock().unstored_after(&run_id, last);
                        let missed = hub.replay(&run_id, last, unstored).await.unwrap_or_default();
                        if let Some(l) = missed.last() {
                            last = l.seq;
                        }
                        let end = missed.iter().any(RunEventRecord::is_terminal);
                        return Some((missed, (sub, last, end)));
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                }
            }
        })
        .flat_map(futures::stream::iter);
        Ok(replay.chain(live).boxed())
    }
}

/// A live reader of one run; when the last one goes away, the run's channel is dropped too.
struct Subscription {
    rx: Option<broadcast::Receiver<RunEventRecord>>,
    hub: Arc<EventHub>,
    run_id: RunId,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        drop(self.rx.take());
        let mut streams = self.hub.lock();
        if streams.live.get(&self.run_id).is_some_and(|tx| tx.receiver_count() == 0) {
            streams.live.remove(&self.run_id);
        }
    }
}

async fn write_batches(
    store: Store,
    mut rx: mpsc::UnboundedReceiver<WriterMsg>,
    streams: Arc<Mutex<Streams>>,
    gathering: CancellationToken,
) {
    let mut batch = Vec::new();
    let mut waiters: Vec<oneshot::Sender<()>> = Vec::new();
    while let Some(first) = rx.recv().await {
        let until = tokio::time::Instant::now() + GATHER;
        let mut next = Some(first);
        loop {
            while let Some(msg) = next.take().or_else(|| rx.try_recv().ok()) {
                match msg {
                    WriterMsg::Event(e) => batch.push(e),
                    #[cfg(test)]
                    WriterMsg::Flush(w) => waiters.push(w),
                }
                if batch.len() >= MAX_BATCH {
                    break;
                }
            }
            if batch.len() >= MAX_BATCH || !waiters.is_empty() {
                break;
            }
            tokio::select! {
                came = tokio::time::timeout_at(until, rx.recv()) => match came {
                    Ok(Some(msg)) => next = Some(msg),
                    // Closed, or time is up: store what came.
                    Ok(None) | Err(_) => break,
                },
                _ = gathering.cancelled() => break,
            }
        }
        if !batch.is_empty() {
            match store.append_events(&batch).await {
                Ok(0) => {}
                Ok(dropped) => tracing::warn!(dropped, of = batch.len(), "some run events could not be stored"),
                Err(e) => tracing::error!(error = %e, lost = batch.len(), "could not write run events"),
            }
            // Stored, or failed and logged as lost: either way the log is all a reader gets of them now.
            Streams::lock(&streams).forget(&batch);
            batch.clear();
        }
        for w in waiters.drain(..) {
            let _ = w.send(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Events of a run with no row are never stored (the insert skips them): the same as a batch
    /// that a kill lost. The next start must not hand those ids out again.
    #[tokio::test]
    async fn ids_handed_out_but_never_stored_are_not_reused_after_a_restart() {
        let dir = tempfile::tempdir().expect("temp dir");
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("events.db").display());
        let store = Store::open(&url).await.expect("store");
        let first = EventHub::start(store.clone()).await.expect("first boot");
        let lost: Vec<u64> = (0..3).map(|_| first.emit(&"lost-run".into(), &RunEvent::TurnRestarted {})).collect();
        first.flush().await;
        assert_eq!(store.max_event_seq().await.expect("max"), 0, "nothing of the lost run was stored");

        let second = EventHub::start(store.clone()).await.expect("second boot");
        let next = second.emit(&"lost-run".into(), &RunEvent::TurnRestarted {});
        let seen = lost.iter().max().copied().unwrap_or(0);
        assert!(next > seen, "after a restart the ids start above every id handed out before: {next} after {seen}");
        assert!(next < 1 << 53, "ids stay exact in JavaScript: {next}");
    }
}

/// The run event log on a real SQLite file: one bad row (a late event of a deleted run) never costs
/// the other events of its batch, and a client's event id past i64 replays nothing.
#[cfg(test)]
mod log_tests {
    use super::*;

    async fn store(dir: &tempfile::TempDir) -> Store {
        Store::open(&format!("sqlite://{}?mode=rwc", dir.path().join("warden.db").display())).await.unwrap()
    }

    /// A store with one thread and a run started in it.
    async fn store_with_a_run(dir: &tempfile::TempDir) -> (Store, RunId) {
        let store = store(dir).await;
        let thread = store.create_thread(None).await.unwrap();
        let run = store.start_run(&thread.id, 5, Some("hi"), None, None, None, None).await.unwrap().run.id;
        (store, run)
    }

    fn delta(text: &str) -> RunEvent {
        RunEvent::TextDelta { text: text.into() }
    }

    /// A run started in this process, none of whose events is stored yet, is replayed from memory
    /// without reading the log: here the log cannot be read (the readers' pool is closed). A run whose
    /// log began elsewhere (resumed after a restart), or once part of its log is stored, is read.
    #[tokio::test]
    async fn a_run_just_started_is_replayed_from_memory_alone() {
        let dir = tempfile::tempdir().unwrap();
        let (store, run) = store_with_a_run(&dir).await;
        let thread = store.create_thread(None).await.unwrap();
        let resumed = store.start_run(&thread.id, 5, Some("hi"), None, None, None, None).await.unwrap().run.id;
        let hub = EventHub::start(store.clone()).await.unwrap();
        let started = RunEvent::RunStarted { run_id: run.clone(), thread_id: "t".into(), model: None };
        let seqs = [hub.emit(&run, &started), hub.emit(&run, &delta("a"))];
        hub.emit(&resumed, &delta("after a restart"));
        store.pool().close().await;

        let replayed: Vec<u64> = hub.subscribe(&run, 0, false).await.unwrap().take(2).map(|r| r.seq).collect().await;
        assert_eq!(replayed, seqs);
        let after_first: Vec<u64> =
            hub.subscribe(&run, seqs[0], false).await.unwrap().take(1).map(|r| r.seq).collect().await;
        assert_eq!(after_first, seqs[1..]);
        assert!(hub.subscribe(&resumed, 0, false).await.is_err(), "a run resumed here reads its log");

        hub.flush().await;
        assert!(hub.subscribe(&run, 0, false).await.is_err(), "once stored, the log is read");
    }

    /// Two runs, the second of a thread deleted since: its late events have no run row to point to.
    async fn kept_and_deleted_runs(store: &Store) -> (RunId, RunId) {
        let kept = store.create_thread(Some("kept")).await.unwrap();
        let deleted = store.create_thread(Some("deleted")).await.unwrap();
        let run_a = store.start_run(&kept.id, 5, Some("hi"), None, None, None, None).await.unwrap().run.id;
        let run_b = store.start_run(&deleted.id, 5, Some("hi"), None, None, None, None).await.unwrap().run.id;
        store.delete_thread(&deleted.id).await.unwrap();
        (run_a, run_b)
    }

    #[tokio::test]
    async fn a_late_event_of_a_deleted_run_does_not_lose_the_other_runs_events() {
        let dir = tempfile::tempdir().unwrap();
        let store = store(&dir).await;
        let (run_a, run_b) = kept_and_deleted_runs(&store).await;

        let hub = EventHub::start(store.clone()).await.unwrap();
        // Emitted back to back on this (current-thread) runtime: the writer sees them as one batch.
        hub.emit(&run_a, &delta("one"));
        hub.emit(&run_b, &delta("late, for a deleted run"));
        hub.emit(&run_a, &delta("two"));
        hub.emit(&run_a, &RunEvent::RunFinished { message_id: None, stopped: false });
        hub.flush().await;

        let stored = store.events_after(&run_a, 0).await.unwrap();
        let kinds: Vec<&str> = stored.iter().map(|(_, kind, _)| kind.as_str()).collect();
        assert_eq!(kinds, ["text_delta", "text_delta", "run_finished"], "every event of run A is stored");
        assert!(stored[1].2.contains("two"));
        assert!(store.events_after(&run_b, 0).await.unwrap().is_empty());
    }

    /// A batch bigger than one INSERT statement holds (as under load) is stored whole and in order,
    /// with the late events of a deleted run in it skipped.
    #[tokio::test]
    async fn a_batch_of_many_statements_keeps_every_event_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let store = store(&dir).await;
        let (run_a, run_b) = kept_and_deleted_runs(&store).await;

        let hub = EventHub::start(store.clone()).await.unwrap();
        for i in 0..1200 {
            hub.emit(if i % 7 == 3 { &run_b } else { &run_a }, &delta(&format!("t{i} ")));
        }
        hub.flush().await;

        let stored = store.events_after(&run_a, 0).await.unwrap();
        let want: Vec<String> = (0..1200).filter(|i| i % 7 != 3).map(|i| format!("t{i} ")).collect();
        let got: Vec<String> = stored
            .iter()
            .map(|(_, _, data)| match serde_json::from_str(data).unwrap() {
                RunEvent::TextDelta { text } => text,
                other => panic!("unexpected event {other:?}"),
            })
            .collect();
        assert_eq!(got, want);
        assert!(stored.windows(2).all(|w| w[0].0 < w[1].0), "ids increase");
        assert!(store.events_after(&run_b, 0).await.unwrap().is_empty());
    }

    /// A reader that falls more than the live buffer behind is caught up from the log: it sees every
    /// event once, in order, through to the end of the run.
    #[tokio::test]
    async fn a_reader_that_falls_behind_the_live_buffer_catches_up_from_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let (store, run) = store_with_a_run(&dir).await;
        let hub = EventHub::start(store.clone()).await.unwrap();
        hub.emit(&run, &delta("before "));
        let mut events = hub.subscribe(&run, 0, false).await.unwrap();
        let first = events.next().await.unwrap();
        let count = LIVE_BUFFER * 4;
        for i in 0..count {
            hub.emit(&run, &delta(&format!("t{i} ")));
        }
        hub.emit(&run, &RunEvent::RunFinished { message_id: None, stopped: false });
        let rest: Vec<RunEventRecord> = events.collect().await;
        let all: Vec<&RunEventRecord> = std::iter::once(&first).chain(&rest).collect();

        let text: Vec<String> = all
            .iter()
            .filter_map(|r| match r.event() {
                Some(RunEvent::TextDelta { text }) => Some(text),
                _ => None,
            })
            .collect();
        let want: Vec<String> =
            std::iter::once("before ".to_string()).chain((0..count).map(|i| format!("t{i} "))).collect();
        assert_eq!(text, want, "every delta once, in order");
        assert!(all.windows(2).all(|w| w[0].seq < w[1].seq), "ids increase");
        assert!(all.last().is_some_and(|r| r.is_terminal()), "the stream ends with the run");
    }

    fn texts(records: &[RunEventRecord]) -> Vec<String> {
        records
            .iter()
            .filter_map(|r| match r.event() {
                Some(RunEvent::TextDelta { text }) => Some(text),
                _ => None,
            })
            .collect()
    }

    /// A reader that comes while the writer has stored none or only part of a run's events (more than
    /// one batch, on this current-thread runtime the writer has not run yet) gets them from memory:
    /// every event once, in order, through to the end, with no wait for the writer. Once they are
    /// stored, the hub keeps none of them.
    #[tokio::test]
    async fn a_reader_gets_the_events_not_stored_yet_once_and_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let (store, run) = store_with_a_run(&dir).await;
        let hub = EventHub::start(store.clone()).await.unwrap();
        let count = 1500;
        let first = (0..count).map(|i| hub.emit(&run, &delta(&format!("t{i} ")))).min().unwrap_or_default();
        // Nothing was awaited since: the writer has not run, and every event is held here.
        assert_eq!(hub.lock().unstored.get(&run).map(VecDeque::len), Some(count), "none is stored yet");
        // A reader of a run still going, then more events and the end of the run.
        let following = hub.subscribe(&run, 0, false).await.unwrap();
        hub.emit(&run, &delta("last "));
        hub.emit(&run, &RunEvent::RunFinished { message_id: None, stopped: false });
        // A reader of the ended run, before its end is stored: the replay is all it gets.
        let ended = hub.subscribe(&run, 0, true).await.unwrap();
        // A reader that resumes after some id.
        let resumed = hub.subscribe(&run, first + 1000, true).await.unwrap();

        let want: Vec<String> = (0..count).map(|i| format!("t{i} ")).chain(["last ".to_string()]).collect();
        for (name, stream) in [("following", following), ("ended", ended)] {
            let all: Vec<RunEventRecord> = stream.collect().await;
            assert_eq!(texts(&all), want, "{name}: every delta once, in order");
            assert!(all.windows(2).all(|w| w[0].seq < w[1].seq), "{name}: ids increase");
            assert!(all.last().is_some_and(|r| r.is_terminal()), "{name}: ends with the run");
        }
        let all: Vec<RunEventRecord> = resumed.collect().await;
        assert_eq!(texts(&all), want[1001..], "a resumed reader gets what follows the id it gave");

        hub.flush().await;
        assert!(hub.lock().unstored.is_empty(), "nothing is kept once stored");
        assert_eq!(texts(&hub.subscribe(&run, 0, true).await.unwrap().collect::<Vec<_>>().await), want);
    }

    /// A reader that asks for a run as still going (a run just started, whose row is not read again)
    /// after it has ended gets the whole run, and leaves no live channel behind; a reader still
    /// following keeps its channel until it goes.
    #[tokio::test]
    async fn a_reader_of_a_run_that_ended_meanwhile_leaves_no_channel_behind() {
        let dir = tempfile::tempdir().unwrap();
        let (store, run) = store_with_a_run(&dir).await;
        let hub = EventHub::start(store.clone()).await.unwrap();
        hub.emit(&run, &delta("all "));
        hub.emit(&run, &RunEvent::RunFinished { message_id: None, stopped: false });
        let late = hub.subscribe(&run, 0, false).await.unwrap();
        assert!(!hub.lock().live.contains_key(&run), "no channel is kept for an ended run");
        let all: Vec<RunEventRecord> = late.collect().await;
        assert_eq!(texts(&all), ["all "]);
        assert!(all.last().is_some_and(|r| r.is_terminal()));

        let (_, other) = store_with_a_run(&tempfile::tempdir().unwrap()).await;
        let following = hub.subscribe(&other, 0, false).await.unwrap();
        assert!(hub.lock().live.contains_key(&other), "a reader of a run going on has its channel");
        drop(following);
        assert!(!hub.lock().live.contains_key(&other), "and it goes with the reader");
    }

    #[tokio::test]
    async fn an_event_id_beyond_i64_replays_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (store, run) = store_with_a_run(&dir).await;
        let hub = EventHub::start(store.clone()).await.unwrap();
        hub.emit(&run, &delta("x"));
        hub.flush().await;
        assert_eq!(store.events_after(&run, 0).await.unwrap().len(), 1);
        for after in [1u64 << 63, u64::MAX] {
            assert!(store.events_after(&run, after).await.unwrap().is_empty(), "after {after}");
        }
    }
}
