//! The run event log on a real SQLite file: one bad row (a late event of a deleted run) never costs
//! the other events of its batch, and a client's event id past i64 replays nothing.

use warden_engine::events::EventHub;
use warden_engine::run::RunEvent;
use warden_engine::store::Store;

async fn store(dir: &tempfile::TempDir) -> Store {
    Store::open(&format!("sqlite://{}?mode=rwc", dir.path().join("warden.db").display())).await.unwrap()
}

fn delta(text: &str) -> RunEvent {
    RunEvent::TextDelta { text: text.into() }
}

#[tokio::test]
async fn a_late_event_of_a_deleted_run_does_not_lose_the_other_runs_events() {
    let dir = tempfile::tempdir().unwrap();
    let store = store(&dir).await;
    let kept = store.create_thread(Some("kept")).await.unwrap();
    let deleted = store.create_thread(Some("deleted")).await.unwrap();
    let run_a = store.start_run(&kept.id, 5, Some("hi"), None).await.unwrap().run_id;
    let run_b = store.start_run(&deleted.id, 5, Some("hi"), None).await.unwrap().run_id;
    store.delete_thread(&deleted.id).await.unwrap();

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

#[tokio::test]
async fn an_event_id_beyond_i64_replays_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = store(&dir).await;
    let thread = store.create_thread(None).await.unwrap();
    let run = store.start_run(&thread.id, 5, Some("hi"), None).await.unwrap().run_id;
    let hub = EventHub::start(store.clone()).await.unwrap();
    hub.emit(&run, &delta("x"));
    hub.flush().await;
    assert_eq!(store.events_after(&run, 0).await.unwrap().len(), 1);
    for after in [1u64 << 63, u64::MAX] {
        assert!(store.events_after(&run, after).await.unwrap().is_empty(), "after {after}");
    }
}
