//! The durable approval loop end to end: the real engine on a real SQLite file, the real provider
//! over HTTP to the scripted fixture model, real files and processes in the workspace.

use std::time::Duration;
use warden_types::id::{RunId, ThreadId};

use crate::common::*;
use serde_json::json;
use warden_engine::Error;
use warden_testkit::{Scenario, Script, ScriptedCall, Turn};
use warden_types::approval::{ApprovalStatus, DecidedBy, DecisionInput, Scope};
use warden_types::run::RunStatus;

fn script(when: &str, turns: Vec<Turn>) -> Script {
    Script { scenarios: vec![Scenario::new(when, turns)], default_title: None }
}

fn approve() -> DecisionInput {
    DecisionInput::approve()
}

fn deny(reason: &str) -> DecisionInput {
    DecisionInput::deny(Some(reason.into()))
}

fn write_call(path: &str, content: &str) -> Turn {
    Turn::calls(vec![ScriptedCall::new("write_file", json!({"path": path, "content": content}))])
}

#[tokio::test]
async fn approved_write_runs_once_and_the_model_sees_the_result() {
    let echo = Turn { echo_tool_results: true, ..Turn::text("Saved it.") };
    let h = Harness::start(script("save", vec![write_call("hello.txt", "hi there"), echo])).await;
    let (_, run_id) = h.send("save a greeting").await;
    let ids = pending_approvals(&h.engine, &run_id, 1).await;
    assert!(!h.workspace().join("hello.txt").exists(), "nothing runs before the decision");
    assert_eq!(streamed_requests(&h.model), 1, "the model is not asked again while the call waits");

    let approval = h.engine.decide(&ids[0], approve(), &crate::common::owner()).await.unwrap();
    assert_eq!(approval.status, ApprovalStatus::Approved);
    let events = run_to_end(&h.engine, &run_id).await;

    assert_eq!(std::fs::read_to_string(h.workspace().join("hello.txt")).unwrap(), "hi there");
    let results = of_kind(&events, "tool_result");
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["is_error"], false);
    assert_eq!(
        text_of(&events),
        "Saved it. [tool said: Wrote 8 bytes to `hello.txt` (new file)]",
        "the reply follows the result"
    );
    let tool_msgs = tool_messages(&h.model, 1);
    assert_eq!(tool_msgs.len(), 1, "the second model request carries the tool result");
    assert_eq!(h.engine.run(&run_id).await.unwrap().status, RunStatus::Finished);
    assert!(matches!(
        h.engine.decide(&ids[0], approve(), &crate::common::owner()).await,
        Err(Error::AlreadyDecided(_))
    ));
}

#[tokio::test]
async fn denied_call_tells_the_model_why() {
    // The model's reply repeats the tool result it was sent, as the browser tests rely on.
    let echo = Turn { echo_tool_results: true, ..Turn::text("Understood.") };
    let h = Harness::start(script("save", vec![write_call("no.txt", "x"), echo])).await;
    let (_, run_id) = h.send("save something").await;
    let ids = pending_approvals(&h.engine, &run_id, 1).await;
    h.engine.decide(&ids[0], deny("not in this folder"), &crate::common::owner()).await.unwrap();
    let events = run_to_end(&h.engine, &run_id).await;
    assert_eq!(
        text_of(&events),
        "Understood. [tool said: Error: The user denied this call; it did not run. Their reason: not in this folder]"
    );

    assert!(!h.workspace().join("no.txt").exists());
    let tool_msgs = tool_messages(&h.model, 1);
    let content = tool_msgs[0]["content"].as_str().unwrap_or_default().to_string();
    assert!(content.contains("denied") && content.contains("not in this folder"), "model saw: {content}");
    let approval = h.engine.approval(&ids[0]).await.unwrap();
    assert_eq!(approval.status, ApprovalStatus::Denied);
    assert!(matches!(approval.decision.unwrap().by, DecidedBy::User { reason: Some(_), .. }));
}

#[tokio::test]
async fn edited_arguments_are_validated_then_run_and_recorded() {
    let h = Harness::start(script("save", vec![write_call("a.txt", "model text"), Turn::text("Done.")])).await;
    let (_, run_id) = h.send("save it").await;
    let ids = pending_approvals(&h.engine, &run_id, 1).await;

    let bad = DecisionInput { arguments: Some(json!({"path": 5})), ..approve() };
    assert!(matches!(h.engine.decide(&ids[0], bad, &crate::common::owner()).await, Err(Error::InvalidArguments(_))));
    assert_eq!(h.engine.approval(&ids[0]).await.unwrap().status, ApprovalStatus::Pending, "a bad edit decides nothing");

    let edit = json!({"path": "b.txt", "content": "edited text"});
    let good = DecisionInput { arguments: Some(edit.clone()), ..approve() };
    h.engine.decide(&ids[0], good, &crate::common::owner()).await.unwrap();
    run_to_end(&h.engine, &run_id).await;

    assert!(!h.workspace().join("a.txt").exists());
    assert_eq!(std::fs::read_to_string(h.workspace().join("b.txt")).unwrap(), "edited text");
    let approval = h.engine.approval(&ids[0]).await.unwrap();
    match approval.decision.unwrap().by {
        DecidedBy::User { edited_arguments, .. } => assert_eq!(edited_arguments, Some(edit)),
        other => panic!("expected a user decision, got {other:?}"),
    }
    let content = tool_messages(&h.model, 1)[0]["content"].as_str().unwrap_or_default().to_string();
    assert!(content.contains("edited the arguments"), "model saw: {content}");
}

#[tokio::test]
async fn thread_rule_allows_matching_commands_but_never_a_redirect() {
    let s = Script {
        scenarios: vec![
            Scenario::new(
                "first",
                vec![Turn::calls(vec![ScriptedCall::new("shell", json!({"command": "echo one"}))]), Turn::text("ok")],
            ),
            Scenario::new(
                "second",
                vec![Turn::calls(vec![ScriptedCall::new("shell", json!({"command": "echo two"}))]), Turn::text("ok")],
            ),
            Scenario::new(
                "third",
                vec![
                    Turn::calls(vec![ScriptedCall::new("shell", json!({"command": "echo three > f.txt"}))]),
                    Turn::text("ok"),
                ],
            ),
        ],
        default_title: None,
    };
    let h = Harness::start(s).await;
    let (thread_id, run_id) = h.send("first").await;
    let ids = pending_approvals(&h.engine, &run_id, 1).await;
    let allow = DecisionInput { scope: Scope::Thread, prefix: Some("echo".into()), ..approve() };
    h.engine.decide(&ids[0], allow, &crate::common::owner()).await.unwrap();
    run_to_end(&h.engine, &run_id).await;
    let rules = h.engine.thread(&thread_id).await.unwrap().rules;
    assert_eq!(rules.len(), 1);

    let run2 = h.engine.send_message(&thread_id, "second".into(), &crate::common::owner()).await.unwrap().run_id;
    let events = run_to_end(&h.engine, &run2).await;
    assert!(of_kind(&events, "approval_request").is_empty(), "the rule answers for the person");
    let resolved = of_kind(&events, "approval_resolved");
    assert_eq!(resolved[0]["decision"], "approved");
    assert_eq!(resolved[0]["approval"]["decision"]["rule_id"], rules[0].id.as_str(), "the event names the rule");
    assert!(of_kind(&events, "tool_result")[0]["output"].as_str().unwrap().contains("two"));
    let by_rule = h.engine.approval(&resolved[0]["approval_id"].as_str().unwrap().into()).await.unwrap();
    assert!(matches!(by_rule.decision.unwrap().by, DecidedBy::Rule { ref rule_id } if *rule_id == rules[0].id));

    let run3 = h.engine.send_message(&thread_id, "third".into(), &crate::common::owner()).await.unwrap().run_id;
    let ids = pending_approvals(&h.engine, &run3, 1).await;
    let waiting = h.engine.approval(&ids[0]).await.unwrap();
    assert_eq!(waiting.arguments["command"], "echo three > f.txt");
    assert_eq!(waiting.status, ApprovalStatus::Pending, "a redirect is never covered by a prefix rule");
    assert!(!h.workspace().join("f.txt").exists(), "nothing ran before the person answered");
    h.engine.decide(&ids[0], deny("no"), &crate::common::owner()).await.unwrap();
    run_to_end(&h.engine, &run3).await;
    assert!(matches!(h.engine.approval(&ids[0]).await.unwrap().decision.unwrap().by, DecidedBy::User { .. }));
    assert!(!h.workspace().join("f.txt").exists());

    h.engine.revoke_rule(&rules[0].id).await.unwrap();
    assert!(h.engine.thread(&thread_id).await.unwrap().rules.is_empty());
}

#[tokio::test]
async fn unanswered_approval_times_out_and_is_not_a_denial() {
    let h = Harness::start_with(script("save", vec![write_call("t.txt", "x"), Turn::text("Noted.")]), |c| {
        c.approval_timeout = Some(Duration::from_millis(300));
    })
    .await;
    let (_, run_id) = h.send("save").await;
    let ids = pending_approvals(&h.engine, &run_id, 1).await;
    let events = run_to_end(&h.engine, &run_id).await;
    let resolved = of_kind(&events, "approval_resolved");
    assert_eq!(resolved[0]["decision"], "timed_out");
    let approval = h.engine.approval(&ids[0]).await.unwrap();
    assert_eq!(approval.status, ApprovalStatus::TimedOut);
    assert!(matches!(approval.decision.unwrap().by, DecidedBy::Timeout));
    assert!(!h.workspace().join("t.txt").exists());
    let content = tool_messages(&h.model, 1)[0]["content"].as_str().unwrap_or_default().to_string();
    assert!(content.contains("timeout") && content.contains("not a refusal"), "model saw: {content}");
}

#[tokio::test]
async fn parallel_calls_run_read_only_at_once_and_resume_when_all_are_settled() {
    std::fs::create_dir_all("/tmp").ok();
    let turn = Turn::calls(vec![
        ScriptedCall::new("list_dir", json!({"path": "."})),
        ScriptedCall::new("write_file", json!({"path": "one.txt", "content": "1"})),
        ScriptedCall::new("write_file", json!({"path": "two.txt", "content": "2"})),
    ]);
    let h = Harness::start(script("three", vec![turn, Turn::text("All done.")])).await;
    let (thread_id, run_id) = h.send("do three things").await;
    let ids = pending_approvals(&h.engine, &run_id, 2).await;
    let early = events_until(&h.engine, &run_id, |e| e.kind == "tool_result").await;
    assert_eq!(of_kind(&early, "tool_result").len(), 1, "the read-only call ran at once");
    // Each gated call has a card of its own: one per write, none for the read-only call.
    let mut cards = Vec::new();
    for id in &ids {
        cards.push(h.engine.approval(id).await.unwrap());
    }
    let paths: Vec<&str> = cards.iter().map(|a| a.arguments["path"].as_str().unwrap_or_default()).collect();
    assert_eq!(paths, ["one.txt", "two.txt"], "each gated call gets its own card");
    assert_ne!(cards[0].tool_call_id, cards[1].tool_call_id);
    assert!(cards.iter().all(|a| a.tool == "write_file" && a.status == ApprovalStatus::Pending));

    h.engine.decide(&cards[0].id, approve(), &crate::common::owner()).await.unwrap();
    let approved_call = cards[0].tool_call_id.clone();
    let ran = events_until(&h.engine, &run_id, |e| {
        e.kind == "tool_result" && data(e)["tool_call_id"].as_str() == Some(approved_call.as_str())
    })
    .await;
    assert!(of_kind(&ran, "tool_result").last().unwrap()["output"].as_str().unwrap().contains("one.txt"));
    assert_eq!(streamed_requests(&h.model), 1, "the model waits while a call of its turn is pending");
    h.engine.decide(&cards[1].id, deny("only one"), &crate::common::owner()).await.unwrap();
    let events = run_to_end(&h.engine, &run_id).await;

    assert_eq!(of_kind(&events, "tool_result").len(), 3);
    assert_eq!(h.engine.thread(&thread_id).await.unwrap().approvals.len(), 2, "no card for the read-only call");
    assert!(h.workspace().join("one.txt").exists());
    assert!(!h.workspace().join("two.txt").exists());
    assert_eq!(tool_messages(&h.model, 1).len(), 3, "the model gets all three results together");
}

#[tokio::test]
async fn invalid_arguments_go_back_to_the_model_never_to_the_tool() {
    let turn = Turn::calls(vec![
        ScriptedCall::new("write_file", json!({"path": 5})),
        ScriptedCall::new("shell", json!("{not json")),
        ScriptedCall::new("no_such_tool", json!({})),
    ]);
    let h = Harness::start(script("bad", vec![turn, Turn::text("Sorry.")])).await;
    let (_, run_id) = h.send("bad calls").await;
    let events = run_to_end(&h.engine, &run_id).await;
    assert!(of_kind(&events, "approval_request").is_empty());
    let results = of_kind(&events, "tool_result");
    assert_eq!(results.len(), 3);
    assert!(results.iter().all(|r| r["is_error"] == true));
    assert!(results[0]["output"].as_str().unwrap().contains("Invalid arguments"));
    assert!(results[1]["output"].as_str().unwrap().contains("not valid JSON"));
    assert!(results[2]["output"].as_str().unwrap().contains("no tool named"));
    assert_eq!(tool_messages(&h.model, 1).len(), 3);
}

#[tokio::test]
async fn paths_outside_the_workspace_are_refused() {
    let turn = Turn::calls(vec![ScriptedCall::new("read_file", json!({"path": "../../../../etc/passwd"}))]);
    let h = Harness::start(script("peek", vec![turn, Turn::text("Cannot.")])).await;
    let (_, run_id) = h.send("peek").await;
    let events = run_to_end(&h.engine, &run_id).await;
    let result = &of_kind(&events, "tool_result")[0];
    assert_eq!(result["is_error"], true);
    assert!(!result["output"].as_str().unwrap().contains("root:"), "nothing from outside leaks");
}

#[tokio::test]
async fn the_step_limit_ends_a_run_that_keeps_calling_tools() {
    let mut scenario =
        Scenario::new("loop", vec![Turn::calls(vec![ScriptedCall::new("list_dir", json!({"path": "."}))])]);
    scenario.repeat_last_turn = true;
    let h = Harness::start_with(Script { scenarios: vec![scenario], default_title: None }, |c| c.max_steps = 3).await;
    let (_, run_id) = h.send("loop forever").await;
    let events = run_to_end(&h.engine, &run_id).await;
    let steps = of_kind(&events, "step").into_iter().filter(|s| s["action"] == "Thinking").count();
    assert_eq!(steps, 3);
    let error = &of_kind(&events, "run_failed")[0];
    assert!(error["message"].as_str().unwrap().contains("step limit"));
    assert_eq!(streamed_requests(&h.model), 3);
    // Each turn stored its step with its calls: a restart resumes the count where it was.
    assert_eq!(h.engine.run(&run_id).await.unwrap().step, 3);
}

#[tokio::test]
async fn a_waiting_run_survives_a_restart_and_finishes_after_the_decision() {
    let mut h =
        Harness::start(script("save", vec![write_call("r.txt", "after restart"), Turn::text("Done after restart.")]))
            .await;
    let (thread_id, run_id) = h.send("save").await;
    let ids = pending_approvals(&h.engine, &run_id, 1).await;
    h.restart(|_| {}).await;

    let detail = h.engine.thread(&thread_id).await.unwrap();
    assert!(detail.active_run.is_some(), "the run is still in flight after the restart");
    assert_eq!(detail.approvals[0].status, ApprovalStatus::Pending, "the card still works");
    h.engine.decide(&ids[0], approve(), &crate::common::owner()).await.unwrap();
    let events = run_to_end(&h.engine, &run_id).await;
    assert!(text_of(&events).contains("Done after restart."));
    assert_eq!(std::fs::read_to_string(h.workspace().join("r.txt")).unwrap(), "after restart");
}

/// An approval marks its call running in the decision's own transaction and hands it to the driver in
/// memory. A process that ends before the driver starts it leaves a call marked running that nobody
/// handed over: after the restart it is interrupted, never run.
#[tokio::test]
async fn a_call_approved_but_not_started_when_the_process_ends_is_interrupted_not_run() {
    let turn = Turn::calls(vec![ScriptedCall::new("shell", json!({"command": "echo ran >> count.txt"}))]);
    let mut h = Harness::start(script("late", vec![turn, Turn::text("I see.")])).await;
    let (thread_id, run_id) = h.send("late decision").await;
    let ids = pending_approvals(&h.engine, &run_id, 1).await;
    // The process is going down: its drivers start nothing more, but the decision is still stored.
    h.engine.shutdown();
    let decided = h.engine.decide(&ids[0], approve(), &crate::common::owner()).await.unwrap();
    assert_eq!(decided.status, ApprovalStatus::Approved);
    h.restart(|_| {}).await;

    assert_ends_interrupted(&h, &thread_id, &run_id).await;
    assert!(!h.workspace().join("count.txt").exists(), "the command never ran");
}

#[tokio::test]
async fn a_call_interrupted_by_a_restart_is_never_run_again() {
    let turn = Turn::calls(vec![ScriptedCall::new("shell", json!({"command": "echo ran >> count.txt; sleep 30"}))]);
    let mut h = Harness::start(script("slow", vec![turn, Turn::text("I see.")])).await;
    let (thread_id, run_id) = h.send("slow command").await;
    let ids = pending_approvals(&h.engine, &run_id, 1).await;
    h.engine.decide(&ids[0], approve(), &crate::common::owner()).await.unwrap();
    // Wait until the command is running (its first effect is visible), then "crash".
    let count = h.workspace().join("count.txt");
    tokio::time::timeout(Duration::from_secs(20), async {
        while !count.exists() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the command started");
    h.restart(|_| {}).await;

    assert_ends_interrupted(&h, &thread_id, &run_id).await;
    assert_eq!(std::fs::read_to_string(&count).unwrap(), "ran\n", "the command ran exactly once");
}

/// The run ends with its one call settled as interrupted: the page is told the outcome is unknown, and
/// so is the model.
async fn assert_ends_interrupted(h: &Harness, thread_id: &ThreadId, run_id: &RunId) {
    let events = run_to_end(&h.engine, run_id).await;
    assert!(of_kind(&events, "tool_result")
        .iter()
        .any(|r| r["output"].as_str().unwrap().contains("outcome is unknown")));
    let call = &h.engine.thread(thread_id).await.unwrap().tool_calls[0];
    assert_eq!(call.status, warden_types::run::ToolCallStatus::Interrupted);
    let content = tool_messages(&h.model, 1)[0]["content"].as_str().unwrap_or_default().to_string();
    assert!(content.contains("Interrupted"), "model saw: {content}");
}

#[tokio::test]
async fn fifty_concurrent_decisions_run_the_tool_once() {
    let turn = Turn::calls(vec![ScriptedCall::new("shell", json!({"command": "echo x >> once.txt"}))]);
    let h = Harness::start(script("once", vec![turn, Turn::text("ok")])).await;
    let (_, run_id) = h.send("once").await;
    let ids = pending_approvals(&h.engine, &run_id, 1).await;
    let mut tasks = Vec::new();
    for _ in 0..50 {
        let (engine, id) = (h.engine.clone(), ids[0].clone());
        tasks.push(tokio::spawn(async move { engine.decide(&id, approve(), &crate::common::owner()).await }));
    }
    let mut won = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(_) => won += 1,
            Err(Error::AlreadyDecided(_)) => {}
            Err(e) => panic!("unexpected error: {e}"),
        }
    }
    assert_eq!(won, 1);
    run_to_end(&h.engine, &run_id).await;
    assert_eq!(std::fs::read_to_string(h.workspace().join("once.txt")).unwrap(), "x\n");
}

/// Both cards of one turn approved at once, in whichever order they land: the first decision wakes the
/// run and hands its driver the turn's calls as it left them (the other still pending); the second
/// finds the run running, and its wake makes that driver look again, or waiting once more, and resumes
/// it the same way. Each call runs once and the run carries on with both results.
#[tokio::test]
async fn two_cards_of_one_turn_approved_at_once_each_run_once() {
    let turn = Turn::calls(vec![
        ScriptedCall::new("shell", json!({"command": "echo one >> calls.txt"})),
        ScriptedCall::new("shell", json!({"command": "echo two >> calls.txt"})),
    ]);
    let h = Harness::start(script("both", vec![turn, Turn::text("Both ran.")])).await;
    let (_, run_id) = h.send("both").await;
    let ids = pending_approvals(&h.engine, &run_id, 2).await;
    let (first, second) = (h.engine.clone(), h.engine.clone());
    let (a, b) = (ids[0].clone(), ids[1].clone());
    let (one, two) = tokio::join!(
        tokio::spawn(async move { first.decide(&a, approve(), &crate::common::owner()).await }),
        tokio::spawn(async move { second.decide(&b, approve(), &crate::common::owner()).await })
    );
    one.unwrap().unwrap();
    two.unwrap().unwrap();
    let events = run_to_end(&h.engine, &run_id).await;
    assert_eq!(of_kind(&events, "tool_result").len(), 2);
    let mut lines: Vec<String> =
        std::fs::read_to_string(h.workspace().join("calls.txt")).unwrap().lines().map(str::to_string).collect();
    lines.sort();
    assert_eq!(lines, ["one", "two"], "each call ran once");
    assert_eq!(tool_messages(&h.model, 1).len(), 2, "the model gets both results together");
    assert_eq!(h.engine.run(&run_id).await.unwrap().status, RunStatus::Finished);
}

#[tokio::test]
async fn stopping_a_waiting_run_cancels_its_cards() {
    let h = Harness::start(script("save", vec![write_call("s.txt", "x"), Turn::text("never")])).await;
    let (_, run_id) = h.send("save").await;
    let ids = pending_approvals(&h.engine, &run_id, 1).await;
    h.engine.stop_run(&run_id).await.unwrap();
    let events = run_to_end(&h.engine, &run_id).await;
    assert_eq!(of_kind(&events, "run_finished")[0]["stopped"], true);
    // The page learns both changes from the stream: the card's decision and the call it cancelled.
    let resolved = of_kind(&events, "approval_resolved");
    assert_eq!(
        (resolved[0]["decision"].as_str(), resolved[0]["approval"]["decision"]["by"].as_str()),
        (Some("cancelled"), Some("run_stopped"))
    );
    let results = of_kind(&events, "tool_result");
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0]["call"]["status"], "cancelled");
    assert_eq!(h.engine.approval(&ids[0]).await.unwrap().status, ApprovalStatus::Cancelled);
    assert!(matches!(
        h.engine.decide(&ids[0], approve(), &crate::common::owner()).await,
        Err(Error::AlreadyDecided(_))
    ));
    assert!(!h.workspace().join("s.txt").exists());
}

#[tokio::test]
async fn the_inbox_hears_every_approval_as_it_is_requested_and_as_it_is_settled() {
    let h = Harness::start(script("save", vec![write_call("heard.txt", "x"), Turn::text("Done.")])).await;
    let mut heard = h.engine.watch_approvals();
    let (_, run_id) = h.send("save it").await;
    let ids = pending_approvals(&h.engine, &run_id, 1).await;
    let requested = tokio::time::timeout(Duration::from_secs(10), heard.recv()).await.unwrap().unwrap();
    assert_eq!((requested.id.as_str(), requested.status), (ids[0].as_str(), ApprovalStatus::Pending));

    h.engine.decide(&ids[0], deny("no"), &crate::common::owner()).await.unwrap();
    let settled = tokio::time::timeout(Duration::from_secs(10), heard.recv()).await.unwrap().unwrap();
    assert_eq!((settled.id.as_str(), settled.status), (ids[0].as_str(), ApprovalStatus::Denied));
    run_to_end(&h.engine, &run_id).await;
}
