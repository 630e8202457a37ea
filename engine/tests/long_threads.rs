//! A long thread's page: it opens at the newest messages, and earlier ones come a slice at a time,
//! each with its own calls and their approvals; put together they are the whole branch the API
//! answers. A page read again keeps what the person had loaded.

use crate::common::*;
use serde_json::json;
use warden_engine::{Error, MESSAGES_PER_PAGE};
use warden_testkit::{Scenario, Script, ScriptedCall, Turn};
use warden_types::approval::DecisionInput;
use warden_types::id::ThreadId;
use warden_types::message::Role;

fn script() -> Script {
    Script {
        scenarios: vec![Scenario::new(
            "write it",
            vec![Turn::calls(vec![ScriptedCall::new("write_file", json!({"path": "left.txt", "content": "x"}))])],
        )],
        default_title: Some("Long".into()),
    }
}

/// Sends `text` in `thread` and runs it to its end, approving what it asks.
async fn turn(h: &Harness, thread: &ThreadId, text: &str, approvals: usize) {
    let run = h.engine.send_message(thread, text.into(), &crate::common::owner()).await.unwrap().run_id;
    if approvals > 0 {
        for id in pending_approvals(&h.engine, &run, approvals).await.iter().take(approvals) {
            h.engine.decide(id, DecisionInput::approve(), &crate::common::owner()).await.unwrap();
        }
    }
    run_to_end(&h.engine, &run).await;
}

#[tokio::test]
async fn a_long_thread_opens_at_its_newest_messages_and_earlier_ones_come_a_slice_at_a_time() {
    let h = Harness::start(script()).await;
    let thread = h.engine.create_thread(None).await.unwrap().id;
    // A call first, sixty turns of words, a call last.
    turn(&h, &thread, "write it down", 1).await;
    for i in 0..60 {
        turn(&h, &thread, &format!("question {i}"), 0).await;
    }
    turn(&h, &thread, "write it again", 1).await;

    let whole = h.engine.thread(&thread).await.unwrap();
    assert!(!whole.earlier, "the API's thread is whole");
    let n = whole.messages.len();
    assert!(n > MESSAGES_PER_PAGE + 20, "{n} messages");
    assert_eq!((whole.tool_calls.len(), whole.approvals.len()), (2, 2));

    let page = h.engine.thread_page(&thread, 0, None).await.unwrap();
    assert!(page.earlier);
    let shown = page.messages.len();
    assert!((MESSAGES_PER_PAGE / 2..=MESSAGES_PER_PAGE).contains(&shown), "{shown} shown");
    assert_eq!(page.messages[0].role, Role::User, "the page starts at a prompt");
    assert_eq!(page.messages[..], whole.messages[n - shown..]);
    // Only the shown messages' calls and approvals: the last call's, not the first's.
    assert_eq!(page.tool_calls, whole.tool_calls[1..]);
    assert_eq!(page.approvals, whole.approvals[1..]);

    // Slice by slice back to the first message: together, the whole thread.
    let mut loaded = page.clone();
    let mut slices = 0;
    while loaded.earlier {
        let slice = h.engine.earlier_messages(&thread, &loaded.messages[0].id).await.unwrap();
        assert!(slice.messages.len() <= MESSAGES_PER_PAGE);
        assert!(loaded.prepend(&slice), "the slice ends where the page begins");
        slices += 1;
    }
    assert!(slices >= 1);
    assert_eq!(loaded.messages, whole.messages);
    assert_eq!(loaded.tool_calls, whole.tool_calls);
    assert_eq!(loaded.approvals, whole.approvals);

    // A search result's link: the page reaches back to its message (the first call's, not a prompt).
    let linked = &whole.messages[1];
    let from_link = h.engine.thread_page(&thread, 0, Some(&linked.id)).await.unwrap();
    assert_eq!(from_link.messages[0].id, linked.id);
    assert_eq!(from_link.messages[..], whole.messages[1..]);
    assert!(from_link.earlier);
    assert_eq!(from_link.tool_calls, whole.tool_calls, "the first call's message is shown now");
    // A message not on the branch (or not there at all) links to the newest page.
    let elsewhere = h.engine.thread_page(&thread, 0, Some(&"no-such-message".into())).await.unwrap();
    assert_eq!(elsewhere.messages, page.messages);

    // Read again (a reconnect): what was loaded stays loaded.
    let again = h.engine.thread_page(&thread, loaded.messages.len(), None).await.unwrap();
    assert_eq!(again.messages, whole.messages);
    assert!(!again.earlier);

    // Another answer to the newest turn: the page lists its versions as the whole thread does.
    turn(&h, &thread, "one more question", 0).await;
    let answered = h.engine.thread(&thread).await.unwrap().messages.last().unwrap().id.clone();
    let other = h.engine.regenerate(&thread, &answered, &crate::common::owner()).await.unwrap();
    run_to_end(&h.engine, &other.run_id).await;
    let whole = h.engine.thread(&thread).await.unwrap();
    let page = h.engine.thread_page(&thread, 0, None).await.unwrap();
    assert_eq!(whole.branches.len(), 1);
    assert_eq!(whole.branches[0].siblings.len(), 2);
    assert_eq!(page.branches, whole.branches);
}

#[tokio::test]
async fn earlier_messages_of_a_message_not_in_the_thread_are_not_found() {
    let h = Harness::start(script()).await;
    let (thread, run) = h.send("hello").await;
    run_to_end(&h.engine, &run).await;
    let (other, run) = h.send("hello again").await;
    run_to_end(&h.engine, &run).await;
    let theirs = h.engine.thread(&other).await.unwrap().messages[0].id.clone();
    let first = h.engine.thread(&thread).await.unwrap().messages[0].id.clone();

    for (t, m) in [(&thread, &"no-such-message".into()), (&thread, &theirs), (&"no-such-thread".into(), &first)] {
        assert!(matches!(h.engine.earlier_messages(t, m).await, Err(Error::NotFound { .. })), "{t} {m}");
    }
    // Before the first message there is nothing, and nothing more.
    let none = h.engine.earlier_messages(&thread, &first).await.unwrap();
    assert!(none.messages.is_empty() && !none.earlier);
}
