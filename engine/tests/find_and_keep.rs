//! Finding and keeping threads: full-text search over titles and messages (kept in step by the
//! database's triggers through renames and deletes; messages indexed in batches by the engine, and
//! before each search), pinned threads, and the count of a thread's waiting approvals the sidebar shows.

use crate::common::*;
use serde_json::{json, Value};
use warden_engine::Error;
use warden_testkit::{Scenario, Script, ScriptedCall, Turn};
use warden_types::approval::DecisionInput;
use warden_types::id::ThreadId;
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
    assert_eq!(
        (by_title[0].thread.id.as_str(), by_title[0].message_id.as_ref().map(|m| m.as_str())),
        (weather.as_str(), None)
    );
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

/// Without any search, the engine indexes the messages stored meanwhile by itself (every second): the
/// queue empties and the index holds their words.
#[tokio::test]
async fn the_engine_indexes_stored_messages_without_a_search() {
    let script = Script {
        scenarios: vec![scenario("ocelot", vec![Turn::text("Ocelots hunt at night.")])],
        default_title: Some("Wildlife".into()),
    };
    let h = Harness::start(script).await;
    let (_thread, run) = h.send("ocelot habits").await;
    run_to_end(&h.engine, &run).await;
    let pool = h.engine.store().pool();
    let count = |sql: &'static str| async move { sqlx::query_scalar::<_, i64>(sql).fetch_one(pool).await.unwrap() };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while count("SELECT COUNT(*) FROM search_pending").await > 0 {
        assert!(std::time::Instant::now() < deadline, "the messages were not indexed within 10 s");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    // The model's answer (its words are nowhere else).
    assert_eq!(count("SELECT COUNT(*) FROM search_text WHERE search_text MATCH 'night'").await, 1);
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

    let count = |id: ThreadId| {
        let engine = h.engine.clone();
        async move {
            let threads = engine.list_threads(ThreadQuery::default()).await.unwrap();
            threads.into_iter().find(|t| t.id == id).map(|t| t.pending_approvals)
        }
    };
    assert_eq!(count(thread.clone()).await, Some(2));
    assert_eq!(count(quiet.id.clone()).await, Some(0));
    h.engine.decide(&ids[0], DecisionInput::approve(), &crate::common::owner()).await.unwrap();
    assert_eq!(count(thread.clone()).await, Some(1));
    h.engine.decide(&ids[1], DecisionInput::deny(None), &crate::common::owner()).await.unwrap();
    run_to_end(&h.engine, &run).await;
    assert_eq!(count(thread).await, Some(0));
}

/// What a thread holds, without ids and times: what an export and its import must agree on.
fn substance(detail: &warden_types::thread::ThreadDetail) -> Value {
    json!({
        "messages": detail.messages.iter().map(|m| json!([m.role, m.content, m.html])).collect::<Vec<_>>(),
        "calls": detail.tool_calls.iter().map(|c| json!([c.name, c.arguments, c.status, c.output, c.is_error])).collect::<Vec<_>>(),
        "approvals": detail.approvals.iter().map(|a| json!([a.tool, a.status, a.arguments, a.decision.as_ref().map(|d| &d.by)])).collect::<Vec<_>>(),
    })
}

fn transfer_script() -> Script {
    let write = ScriptedCall::new("write_file", json!({"path": "kept.txt", "content": "kept\n"}));
    let shell = ScriptedCall::new("shell", json!({"command": "rm -rf build"}));
    Script {
        scenarios: vec![
            scenario(
                "keep this",
                vec![
                    Turn::calls(vec![write, shell]),
                    Turn { echo_tool_results: true, ..Turn::text("Kept **one**, left the other.") },
                ],
            ),
            scenario(
                "still waiting",
                vec![Turn::calls(vec![ScriptedCall::new("write_file", json!({"path": "w.txt", "content": "w"}))])],
            ),
        ],
        default_title: Some("Transfer test".into()),
    }
}

#[tokio::test]
async fn an_export_imports_back_as_the_same_conversation_under_new_ids_outside_the_audit_log() {
    let h = Harness::start(transfer_script()).await;
    let mut titles = h.engine.watch_titles();
    let (thread, run) = h.send("keep this file").await;
    let ids = pending_approvals(&h.engine, &run, 2).await;
    h.engine.decide(&ids[0], DecisionInput::approve(), &crate::common::owner()).await.unwrap();
    h.engine
        .decide(&ids[1], DecisionInput::deny(Some("not the build dir".into())), &crate::common::owner())
        .await
        .unwrap();
    run_to_end(&h.engine, &run).await;
    assert_eq!(named(&mut titles, &thread).await, "Transfer test");
    let audit_before = h.engine.decided_approvals(None, None, None, 100).await.unwrap().len();

    // Through JSON text, as a file would carry it.
    let export = h.engine.export_thread(&thread).await.unwrap();
    let file = serde_json::to_string(&export).unwrap();
    assert!(!file.contains("<strong>"), "no rendered HTML in the file");
    let imported = h.engine.import_thread(serde_json::from_str(&file).unwrap()).await.unwrap();
    assert_ne!(imported.id, thread);
    assert!(imported.imported_at.is_some());

    let (original, copy) = (h.engine.thread(&thread).await.unwrap(), h.engine.thread(&imported.id).await.unwrap());
    assert_eq!(substance(&copy), substance(&original));
    assert_eq!(copy.thread.title, original.thread.title);
    assert_eq!(copy.approvals.len(), 2);
    let answer = copy.messages.iter().find(|m| m.content.starts_with("Kept")).expect("the answer");
    assert!(answer.html.as_deref().is_some_and(|h| h.contains("<strong>one</strong>")), "rendered here");
    // No id of the file is reused, and the calls the messages name are the new records.
    for (a, b) in original.tool_calls.iter().zip(&copy.tool_calls) {
        assert_ne!(a.id, b.id);
        assert_eq!(b.thread_id, imported.id);
    }
    let named: Vec<&str> = copy
        .messages
        .iter()
        .flat_map(|m| &m.blocks)
        .filter_map(|b| match b {
            warden_types::message::Block::ToolCall { id, .. } => Some(id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(named, copy.tool_calls.iter().map(|c| c.id.as_str()).collect::<Vec<_>>());
    // Its decisions were made elsewhere: not in this server's audit log; no rule came with it.
    assert_eq!(h.engine.decided_approvals(None, None, None, 100).await.unwrap().len(), audit_before);
    assert!(copy.rules.is_empty());

    // The Markdown export reads as the conversation.
    let text = warden_engine::transfer::markdown(&export);
    assert!(text.starts_with("# Transfer test\n"), "{text}");
    for expected in [
        "## You · ",
        "keep this file",
        "`write_file`",
        "`shell`",
        "denied by a person: not the build dir",
        "Kept **one**",
    ] {
        assert!(text.contains(expected), "{expected} in:\n{text}");
    }
    // A call's decision, status and result are each a paragraph of their own, not one run-on line.
    // (A blank quoted line ends a paragraph in Markdown.)
    let decided = text.find("> **Decision:** denied by a person: not the build dir at ").expect("the denial");
    let after = &text[decided..];
    let status = after.find("\n>\n> **Status:** denied\n>\n> **Result:**").expect("the status apart");
    assert!(!after[..status].contains('\n'), "the decision is one line, then a blank quoted line:\n{after}");
}

#[tokio::test]
async fn an_imported_waiting_approval_is_cancelled_and_nothing_of_a_bad_file_is_written() {
    let h = Harness::start(transfer_script()).await;
    let (thread, run) = h.send("still waiting here").await;
    pending_approvals(&h.engine, &run, 1).await;
    let export = h.engine.export_thread(&thread).await.unwrap();
    assert_eq!(export.approvals[0].status, warden_types::approval::ApprovalStatus::Pending);

    let imported = h.engine.import_thread(export.clone()).await.unwrap();
    assert_eq!(imported.pending_approvals, 0);
    let copy = h.engine.thread(&imported.id).await.unwrap();
    assert_eq!(copy.approvals[0].status, warden_types::approval::ApprovalStatus::Cancelled);
    assert_eq!(copy.tool_calls[0].status, warden_types::run::ToolCallStatus::Cancelled);
    assert!(copy.active_run.is_none(), "no run of it is going on");
    assert!(matches!(
        h.engine.decide(&copy.approvals[0].id, DecisionInput::approve(), &crate::common::owner()).await,
        Err(Error::AlreadyDecided(_))
    ));
    assert!(!h.workspace().join("w.txt").exists());

    let threads_before = h.engine.list_threads(ThreadQuery::default()).await.unwrap().len();
    let mut wrong_format = export.clone();
    wrong_format.format = "something.else".into();
    let mut dangling = export.clone();
    dangling.tool_calls[0].message_id = "no-such-message".into();
    let mut twice = export.clone();
    twice.messages.push(twice.messages[0].clone());
    let mut orphan = export.clone();
    orphan.approvals[0].tool_call_id = "no-such-call".into();
    for bad in [wrong_format, dangling, twice, orphan] {
        assert!(matches!(h.engine.import_thread(bad).await, Err(Error::Invalid(_))));
    }
    assert_eq!(h.engine.list_threads(ThreadQuery::default()).await.unwrap().len(), threads_before);
}

#[tokio::test]
async fn a_client_chosen_id_creates_once_runs_are_listed_and_a_title_is_made_again_on_request() {
    let mut named = scenario("plan the trip", vec![Turn::text("Pack light.")]);
    named.title = Some("Trip planning".into());
    let h = Harness::start(Script { scenarios: vec![named], default_title: None }).await;

    // Chosen by the client, created once; asking again answers the same thread.
    let id = &ThreadId::from("0b6c1a52-7d7e-4a59-9a55-3c1f0e2d9b11");
    let (thread, created) = h.engine.create_thread_with_id(id, Some("Mine".into())).await.unwrap();
    assert!(created);
    assert_eq!((&thread.id, thread.title.as_str()), (id, "Mine"));
    let (again, created) = h.engine.create_thread_with_id(id, Some("Other".into())).await.unwrap();
    assert!(!created);
    assert_eq!(again.title, "Mine");
    for bad in ["short", "has space in it", "../../etc/passwd", &"x".repeat(65), "semi;colon-id"] {
        assert!(matches!(h.engine.create_thread_with_id(&(*bad).into(), None).await, Err(Error::Invalid(_))), "{bad}");
    }

    // Nothing to name it by yet.
    assert!(matches!(h.engine.regenerate_title(id).await, Err(Error::Invalid(_))));
    let first = h.engine.send_message(id, "plan the trip please".into(), &crate::common::owner()).await.unwrap();
    run_to_end(&h.engine, &first.run_id).await;
    let second = h.engine.send_message(id, "plan the trip again".into(), &crate::common::owner()).await.unwrap();
    run_to_end(&h.engine, &second.run_id).await;
    let runs = h.engine.thread_runs(id).await.unwrap();
    assert_eq!(runs.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), [first.run_id.as_str(), second.run_id.as_str()]);
    assert!(matches!(h.engine.thread_runs(&"no-such-thread".into()).await, Err(Error::NotFound { .. })));

    // A person's title stays through runs; asked for, the model's replaces it.
    assert_eq!(h.engine.thread(id).await.unwrap().thread.title, "Mine");
    let retitled = h.engine.regenerate_title(id).await.unwrap();
    assert_eq!(retitled.title, "Trip planning");
    assert!(matches!(h.engine.regenerate_title(&"no-such-thread".into()).await, Err(Error::NotFound { .. })));
}
