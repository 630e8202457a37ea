//! The chat slice end to end: streaming, titles, provider errors and Retry, Stop, replay from a
//! Last-Event-ID, and persistence across a restart.

use crate::common::*;
use futures::StreamExt;
use warden_engine::Error;
use warden_testkit::{Scenario, Script, ScriptedError, Turn};
use warden_types::cursor::ThreadCursor;
use warden_types::run::RunStatus;
use warden_types::thread::{ThreadPatch, ThreadQuery};

fn one(when: &str, turn: Turn, title: Option<&str>) -> Script {
    let mut s = Scenario::new(when, vec![turn]);
    s.title = title.map(str::to_string);
    Script { scenarios: vec![s], default_title: None }
}

#[tokio::test]
async fn answer_streams_in_many_deltas_and_is_stored() {
    let h =
        Harness::start(one("hello", Turn::text("Hello there, how can I help you today?"), Some("Friendly greeting")))
            .await;
    let (thread_id, run_id) = h.send("hello world").await;
    let events = run_to_end(&h.engine, &run_id).await;
    assert_eq!(events[0].kind, "run_started");
    assert!(of_kind(&events, "text_delta").len() > 1, "the answer arrives in pieces");
    assert_eq!(text_of(&events), "Hello there, how can I help you today?");
    assert_eq!(events.last().unwrap().kind, "run_finished");
    assert!(events.windows(2).all(|w| w[0].seq < w[1].seq), "ids only grow");

    let detail = h.engine.thread(&thread_id).await.unwrap();
    assert_eq!(detail.messages.len(), 2);
    assert_eq!(detail.messages[1].content, "Hello there, how can I help you today?");
}

#[tokio::test]
async fn the_run_ends_before_the_model_names_the_thread_and_the_title_is_told_to_its_listeners() {
    let h = Harness::start(one("hello", Turn::text("Hello there"), Some("Friendly greeting"))).await;
    // The model holds its title back: the run must end without it.
    h.model.hold_titles();
    let mut titles = h.engine.watch_titles();
    let (thread_id, run_id) = h.send("hello world").await;
    let events = run_to_end(&h.engine, &run_id).await;
    assert_eq!(events.last().unwrap().kind, "run_finished");
    assert_eq!(h.engine.run(&run_id).await.unwrap().status, RunStatus::Finished);
    let title = || async { h.engine.thread(&thread_id).await.unwrap().thread.title };
    assert_eq!(title().await, "hello world", "the prompt's words stand in until the model's title comes");
    assert!(titles.try_recv().is_err(), "nothing named yet");

    h.model.release_titles();
    assert_eq!(named(&mut titles, &thread_id).await, "Friendly greeting");
    assert_eq!(title().await, "Friendly greeting", "stored before it is told");
    // The run's stream had ended: the model's title is not on it.
    let replayed: Vec<_> = h.engine.subscribe(&run_id, 0).await.unwrap().collect().await;
    assert!(!of_kind(&replayed, "thread_updated").iter().any(|t| t["title"] == "Friendly greeting"));
}

#[tokio::test]
async fn the_models_markdown_arrives_as_sanitised_html_and_the_persons_words_as_text() {
    let answer = "Here is **bold** and <script>window.x = 1</script> done.";
    let h = Harness::start(one("markdown", Turn::text(answer), None)).await;
    let (thread_id, run_id) = h.send("markdown <b>please</b>").await;
    let events = run_to_end(&h.engine, &run_id).await;

    let detail = h.engine.thread(&thread_id).await.unwrap();
    let (person, model) = (&detail.messages[0], &detail.messages[1]);
    assert_eq!((person.content.as_str(), person.html.as_deref()), ("markdown <b>please</b>", None));
    let html = model.html.as_deref().unwrap_or_default();
    assert!(html.contains("<strong>bold</strong>"), "{html}");
    assert!(!html.contains("<script"), "{html}");
    // The event that stores the answer carries the same HTML, so the page shows it without a reread.
    let stored = of_kind(&events, "message_stored");
    assert_eq!(stored.last().unwrap()["message"]["html"], html);
}

#[tokio::test]
async fn title_falls_back_to_the_prompt_when_the_model_cannot_name_it() {
    let turn = Turn::text("fine");
    let h =
        Harness::start(Script { scenarios: vec![Scenario::new("plan", vec![turn])], default_title: Some("".into()) })
            .await;
    let (thread_id, run_id) = h.send("plan a trip to the mountains").await;
    run_to_end(&h.engine, &run_id).await;
    assert_eq!(h.engine.thread(&thread_id).await.unwrap().thread.title, "plan a trip to the mountains");
}

#[tokio::test]
async fn an_overloaded_model_is_tried_again_before_the_run_fails() {
    let mut turn = Turn::text("Answered on the second try.");
    turn.error = Some(ScriptedError { status: 529, message: "Overloaded".into() });
    turn.fail_first = 1;
    let h = Harness::start_with(one("busy", turn, None), |c| c.model_retries = 1).await;
    let (_, run_id) = h.send("busy now?").await;
    let events = run_to_end(&h.engine, &run_id).await;
    assert_eq!(text_of(&events), "Answered on the second try.");
    assert!(of_kind(&events, "run_failed").is_empty());
    let streamed = h.model.requests().into_iter().filter(|r| r["stream"] == true).count();
    assert_eq!(streamed, 2, "one failed request and the one that answered");
}

#[tokio::test]
async fn a_provider_error_shows_and_retry_answers() {
    let mut turn = Turn::text("Recovered answer.");
    turn.error = Some(ScriptedError { status: 500, message: "the model is overloaded".into() });
    turn.fail_first = 1;
    let h = Harness::start(one("flaky", turn, None)).await;
    let (thread_id, run_id) = h.send("flaky question").await;
    let events = run_to_end(&h.engine, &run_id).await;
    let error = &of_kind(&events, "run_failed")[0];
    assert!(error["message"].as_str().unwrap().contains("overloaded"), "got {error}");
    let failed = h.engine.run(&run_id).await.unwrap();
    assert_eq!(failed.status, RunStatus::Failed);
    assert_eq!(failed.step, 0, "a turn that stored nothing took no step");
    assert!(h.engine.thread(&thread_id).await.unwrap().last_error.is_some());

    let retry = h.engine.retry(&thread_id, &crate::common::owner()).await.unwrap();
    let events = run_to_end(&h.engine, &retry.run_id).await;
    assert_eq!(text_of(&events), "Recovered answer.");
    let detail = h.engine.thread(&thread_id).await.unwrap();
    assert_eq!(
        detail.messages.iter().filter(|m| m.role == warden_types::message::Role::User).count(),
        1,
        "retry sends no new message"
    );
    assert!(detail.last_error.is_none());
}

#[tokio::test]
async fn an_unreachable_model_is_a_clear_error() {
    let h = Harness::start_with(Script::default(), |c| {
        if let Some(m) = c.model.as_mut() {
            m.base_url = "http://127.0.0.1:9/v1".into();
        }
    })
    .await;
    let (_, run_id) = h.send("anyone there?").await;
    let events = run_to_end(&h.engine, &run_id).await;
    let message = of_kind(&events, "run_failed")[0]["message"].as_str().unwrap().to_string();
    assert!(message.to_lowercase().contains("connect"), "got: {message}");
}

/// A model that takes the request and then sends nothing fails the run once the idle timeout has
/// passed, with no retry (each cost the whole wait: 4 x 120 s), and the run's error says what happened.
#[tokio::test]
async fn a_model_that_goes_silent_fails_the_run_at_once_and_says_so() {
    for tokens in [0, 2] {
        let turn = Turn { stall_after_tokens: Some(tokens), ..Turn::text("never finished at all") };
        let h = Harness::start_with(one("", turn, None), |c| {
            c.model_retries = 3;
            c.model_idle_timeout = std::time::Duration::from_millis(400);
        })
        .await;
        let (thread_id, run_id) = h.send("are you there?").await;
        let events = run_to_end(&h.engine, &run_id).await;
        let failed = of_kind(&events, "run_failed");
        let message = failed.first().and_then(|f| f["message"].as_str()).unwrap_or_default().to_string();
        assert!(message.contains("The model sent nothing for 400 ms"), "{tokens} tokens: {message:?} {events:?}");
        assert_eq!(streamed_requests(&h.model), 1, "{tokens} tokens: asked once, not again after the silence");
        let detail = h.engine.thread(&thread_id).await.unwrap();
        assert!(detail.last_error.is_some_and(|e| e.contains("sent nothing")));
    }
}

#[tokio::test]
async fn stop_cancels_a_streaming_run_and_keeps_what_was_said() {
    let mut turn = Turn::text("This answer is long and slow");
    turn.stall_after_tokens = Some(3);
    let h = Harness::start(one("slow", turn, None)).await;
    let (thread_id, run_id) = h.send("slow please").await;
    events_until(&h.engine, &run_id, |e| e.kind == "text_delta").await;
    h.engine.stop_run(&run_id).await.unwrap();
    let events = run_to_end(&h.engine, &run_id).await;
    let finished = of_kind(&events, "run_finished");
    assert!(!finished.is_empty(), "the run ends finished, not failed: {:?}", events.last().map(data));
    assert_eq!(finished[0]["stopped"], true);
    assert_eq!(h.engine.run(&run_id).await.unwrap().status, RunStatus::Cancelled);
    let detail = h.engine.thread(&thread_id).await.unwrap();
    assert!(detail.active_run.is_none());
    assert_eq!(detail.messages.last().unwrap().content, text_of(&events), "the partial answer is kept");
}

#[tokio::test]
async fn replay_from_a_last_event_id_misses_nothing_and_repeats_nothing() {
    let h = Harness::start(one("count", Turn::text("one two three four five six seven eight"), None)).await;
    let (_, run_id) = h.send("count").await;
    let all = run_to_end(&h.engine, &run_id).await;
    let cut = all.len() / 2;
    let rest: Vec<_> = h.engine.subscribe(&run_id, all[cut - 1].seq).await.unwrap().collect().await;
    assert_eq!(rest, all[cut..].to_vec());
}

#[tokio::test]
async fn threads_and_messages_survive_a_restart() {
    let mut h = Harness::start(one("remember", Turn::text("I will remember."), None)).await;
    let (thread_id, run_id) = h.send("remember this").await;
    let before = run_to_end(&h.engine, &run_id).await;
    h.restart(|_| {}).await;
    let detail = h.engine.thread(&thread_id).await.unwrap();
    assert_eq!(detail.messages.len(), 2);
    assert_eq!(detail.messages[1].content, "I will remember.");
    let replayed: Vec<_> = h.engine.subscribe(&run_id, 0).await.unwrap().collect().await;
    assert_eq!(replayed, before, "the finished run's stream replays after a restart");
}

#[tokio::test]
async fn thread_list_pages_newest_first_and_archive_moves_threads() {
    let h = Harness::start(Script::default()).await;
    let mut ids = Vec::new();
    for i in 0..5 {
        ids.push(h.engine.create_thread(Some(format!("t{i}"))).await.unwrap().id);
    }
    let page1 = h.engine.list_threads(ThreadQuery { limit: 3, ..Default::default() }).await.unwrap();
    assert_eq!(page1.iter().map(|t| t.title.as_str()).collect::<Vec<_>>(), ["t4", "t3", "t2"]);
    let last = page1.last().unwrap();
    let page2 = h
        .engine
        .list_threads(ThreadQuery {
            limit: 3,
            before: Some(ThreadCursor::new(&last.updated_at, last.id.as_str())),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(page2.iter().map(|t| t.title.as_str()).collect::<Vec<_>>(), ["t1", "t0"]);

    h.engine.update_thread(&ids[0], ThreadPatch { archived: Some(true), ..Default::default() }).await.unwrap();
    let archived = h.engine.list_threads(ThreadQuery { archived: true, ..Default::default() }).await.unwrap();
    assert_eq!(archived.len(), 1);
    assert!(matches!(
        h.engine.update_thread(&ids[1], ThreadPatch { title: Some("  ".into()), ..Default::default() }).await,
        Err(Error::Invalid(_))
    ));
    h.engine.delete_thread(&ids[2]).await.unwrap();
    assert!(matches!(h.engine.thread(&ids[2]).await, Err(Error::NotFound { .. })));
}

#[tokio::test]
async fn a_second_message_waits_for_the_running_one() {
    let mut turn = Turn::text("slow answer here");
    turn.stall_after_tokens = Some(1);
    let h = Harness::start(one("slow", turn, None)).await;
    let (thread_id, run_id) = h.send("slow").await;
    assert!(matches!(
        h.engine.send_message(&thread_id, "again".into(), &crate::common::owner()).await,
        Err(Error::RunInProgress)
    ));
    h.engine.stop_run(&run_id).await.unwrap();
    run_to_end(&h.engine, &run_id).await;
}
