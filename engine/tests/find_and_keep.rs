//! Finding and keeping threads: full-text search over titles and messages (kept in step by the
//! database's triggers through renames and deletes), pinned threads, and the count of a thread's
//! waiting approvals the sidebar shows.

use crate::common::*;
use serde_json::json;
use warden_engine::Error;
use warden_testkit::{Scenario, Script, ScriptedCall, Turn};
use warden_types::approval::DecisionInput;
use warden_types::thread::{SearchHit, ThreadPatch, ThreadQuery};

fn scenario(when: &str, turns: Vec<Turn>) -> Scenario {
    Scenario::new(when, turns)
}

fn hit_words(hit: &SearchHit) -> Vec<String> {
    hit.snippet.iter().filter(|p| p.hit).map(|p| p.text.to_lowercase()).collect()
}

fn shown(hit: &SearchHit) -> String {
    hit.snippet.iter().map(|p| p.text.as_str()).collect()
}

#[tokio::test]
async fn search_finds_titles_and_messages_by_word_prefix_and_follows_renames_and_deletes() {
    let script = Script {
        scenarios: vec![
            scenario("fruit", vec![Turn::text("Bananas ripen faster next to apples.")]),
            scenario("weather", vec![Turn::text("Expect rain over the harbour tomorrow.")]),
        ],
        default_title: Some("".into()),
    };
    let h = Harness::start(script).await;
    let (fruit, run) = h.send("Tell me about fruit storage").await;
    run_to_end(&h.engine, &run).await;
    let (weather, run) = h.send("What weather is coming?").await;
    run_to_end(&h.engine, &run).await;

    // The model's words, by the start of a word, with the matching word marked.
    let hits = h.engine.search("banan").await.unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].thread.id, fruit);
    assert!(hits[0].message_id.is_some(), "a message matched, not the title");
    assert_eq!(hit_words(&hits[0]), ["bananas"]);
    assert!(shown(&hits[0]).contains("ripen faster"), "{}", shown(&hits[0]));

    // The person's words, every word required.
    assert_eq!(h.engine.search("weather coming").await.unwrap()[0].thread.id, weather);
    assert!(h.engine.search("weather bananas").await.unwrap().is_empty());

    // A title, renamed: the old one is gone from the index, the new one is found.
    h.engine
        .update_thread(&weather, ThreadPatch { title: Some("Harbour forecast".into()), ..Default::default() })
        .await
        .unwrap();
    let by_title = h.engine.search("forecast").await.unwrap();
    assert_eq!(by_title.len(), 1);
    assert_eq!((by_title[0].thread.id.as_str(), by_title[0].message_id.as_deref()), (weather.as_str(), None));
    // A thread that matches in its title and a message is listed once.
    assert_eq!(h.engine.search("harbour").await.unwrap().len(), 1);

    // What a person types is never query syntax, and an empty search finds nothing.
    for odd in ["\"unbalanced", "rain OR", "NEAR(rain harbour)", "*", "bananas AND -x", ""] {
        assert!(h.engine.search(odd).await.is_ok(), "{odd}");
    }
    assert!(h.engine.search("   ").await.unwrap().is_empty());
    assert!(matches!(h.engine.search(&"x".repeat(501)).await, Err(Error::Invalid(_))));

    // Deleted: neither its title nor its messages are found.
    h.engine.delete_thread(&fruit).await.unwrap();
    assert!(h.engine.search("bananas").await.unwrap().is_empty());
    assert!(h.engine.search("fruit").await.unwrap().is_empty());
}

#[tokio::test]
async fn search_survives_a_restart_and_finds_archived_threads() {
    let script = Script {
        scenarios: vec![scenario("zebra", vec![Turn::text("Zebras are striped.")])],
        default_title: Some("".into()),
    };
    let mut h = Harness::start(script).await;
    let (thread, run) = h.send("zebra facts").await;
    run_to_end(&h.engine, &run).await;
    h.engine.update_thread(&thread, ThreadPatch { archived: Some(true), ..Default::default() }).await.unwrap();
    h.restart(|_| {}).await;
    let hits = h.engine.search("striped").await.unwrap();
    assert_eq!(hits.len(), 1);
    assert!(hits[0].thread.archived);
}

#[tokio::test]
async fn pinned_threads_list_on_their_own_and_pinning_does_not_reorder() {
    let h = Harness::start(Script::default()).await;
    let mut ids = Vec::new();
    for title in ["first", "second", "third"] {
        ids.push(h.engine.create_thread(Some(title.into())).await.unwrap().id);
    }
    let before = h.engine.thread(&ids[0]).await.unwrap().thread;
    let pinned =
        h.engine.update_thread(&ids[0], ThreadPatch { pinned: Some(true), ..Default::default() }).await.unwrap();
    assert!(pinned.pinned);
    assert_eq!(pinned.updated_at, before.updated_at, "pinning is not an edit");

    let only_pinned = |pinned| ThreadQuery { pinned: Some(pinned), ..Default::default() };
    let titles = |threads: Vec<warden_types::thread::Thread>| threads.into_iter().map(|t| t.title).collect::<Vec<_>>();
    assert_eq!(titles(h.engine.list_threads(only_pinned(true)).await.unwrap()), ["first"]);
    assert_eq!(titles(h.engine.list_threads(only_pinned(false)).await.unwrap()), ["third", "second"]);
    assert_eq!(titles(h.engine.list_threads(ThreadQuery::default()).await.unwrap()), ["third", "second", "first"]);

    h.engine.update_thread(&ids[0], ThreadPatch { pinned: Some(false), ..Default::default() }).await.unwrap();
    assert!(h.engine.list_threads(only_pinned(true)).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_thread_counts_its_waiting_approvals_until_they_are_decided() {
    let write = |path: &str| ScriptedCall::new("write_file", json!({"path": path, "content": "x"}));
    let script = Script {
        scenarios: vec![scenario(
            "two writes",
            vec![Turn::calls(vec![write("a.txt"), write("b.txt")]), Turn::text("done")],
        )],
        default_title: None,
    };
    let h = Harness::start(script).await;
    let quiet = h.engine.create_thread(Some("quiet".into())).await.unwrap();
    let (thread, run) = h.send("two writes please").await;
    let ids = pending_approvals(&h.engine, &run, 2).await;

    let count = |id: String| {
        let engine = h.engine.clone();
        async move {
            let threads = engine.list_threads(ThreadQuery::default()).await.unwrap();
            threads.into_iter().find(|t| t.id == id).map(|t| t.pending_approvals)
        }
    };
    assert_eq!(count(thread.clone()).await, Some(2));
    assert_eq!(count(quiet.id.clone()).await, Some(0));
    h.engine.decide(&ids[0], DecisionInput::approve()).await.unwrap();
    assert_eq!(count(thread.clone()).await, Some(1));
    h.engine.decide(&ids[1], DecisionInput::deny(None)).await.unwrap();
    run_to_end(&h.engine, &run).await;
    assert_eq!(count(thread).await, Some(0));
}
