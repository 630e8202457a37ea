//! What was approved is what runs: an approval is bound to the arguments its card showed and, for a
//! file write, to the file's content when the diff was made. The real engine, real SQLite, real
//! files, the scripted model over HTTP.

use crate::common::*;
use serde_json::json;
use warden_engine::Error;
use warden_testkit::{Scenario, Script, ScriptedCall, Turn};
use warden_tools::Preview;
use warden_types::approval::{ApprovalStatus, DecidedBy, DecisionInput, Scope};
use warden_types::run::RunStatus;

fn script(when: &str, turns: Vec<Turn>) -> Script {
    Script { scenarios: vec![Scenario::new(when, turns)], default_title: None }
}

fn approve() -> DecisionInput {
    DecisionInput::approve()
}

fn write_call(path: &str, content: &str) -> Turn {
    Turn::calls(vec![ScriptedCall::new("write_file", json!({"path": path, "content": content}))])
}

#[track_caller]
fn diff_of(preview: &Option<Preview>) -> String {
    match preview {
        Some(Preview::Diff { diff, .. }) => diff.clone(),
        other => panic!("expected a diff, got {other:?}"),
    }
}

#[tokio::test]
async fn a_write_approved_after_the_file_changed_asks_again_with_the_new_diff() {
    let h =
        Harness::start(script("note", vec![write_call("note.txt", "from the model\n"), Turn::text("Saved.")])).await;
    let note = h.workspace().join("note.txt");
    std::fs::write(&note, "first version\n").unwrap();
    let (thread_id, run_id) = h.send("update the note").await;
    let first = pending_approvals(&h.engine, &run_id, 1).await.remove(0);
    assert!(diff_of(&h.engine.approval(&first).await.unwrap().preview).contains("-first version"));

    // Someone edits the file while the card is on screen; the person approves what they saw.
    std::fs::write(&note, "edited by hand\n").unwrap();
    assert_eq!(
        h.engine.decide(&first, approve(), &crate::common::owner()).await.unwrap().status,
        ApprovalStatus::Approved
    );
    let ids = pending_approvals(&h.engine, &run_id, 2).await;
    let second = ids[1].clone();

    assert_eq!(std::fs::read_to_string(&note).unwrap(), "edited by hand\n", "the changed file is not overwritten");
    let old = h.engine.approval(&first).await.unwrap();
    assert_eq!(old.status, ApprovalStatus::Superseded);
    assert!(matches!(old.decision.unwrap().by, DecidedBy::TargetChanged { ref replaced_by } if *replaced_by == second));
    assert!(diff_of(&old.preview).contains("-first version"), "the old card keeps the diff it showed");
    let new = h.engine.approval(&second).await.unwrap();
    assert_eq!(new.status, ApprovalStatus::Pending);
    assert_eq!(new.tool_call_id, old.tool_call_id, "the same call asks again");
    let new_diff = diff_of(&new.preview);
    assert!(new_diff.contains("-edited by hand") && new_diff.contains("+from the model"), "{new_diff}");
    // The card is announced just before the driver records the pause; wait for the record.
    let waiting = tokio::time::timeout(std::time::Duration::from_secs(20), async {
        while h.engine.run(&run_id).await.unwrap().status != RunStatus::Waiting {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    });
    assert!(waiting.await.is_ok(), "the run waits for the new decision");
    assert_eq!(streamed_requests(&h.model), 1, "the model is told nothing: this is not a denial");
    assert!(matches!(h.engine.decide(&first, approve(), &crate::common::owner()).await, Err(Error::AlreadyDecided(_))));
    let resolved =
        of_kind(&events_until(&h.engine, &run_id, |e| e.data.contains("superseded")).await, "approval_resolved");
    let decisions: Vec<(&str, &str)> =
        resolved.iter().map(|r| (r["approval_id"].as_str().unwrap(), r["decision"].as_str().unwrap())).collect();
    assert_eq!(decisions, [(first.as_str(), "approved"), (first.as_str(), "superseded")]);

    h.engine.decide(&second, approve(), &crate::common::owner()).await.unwrap();
    let events = run_to_end(&h.engine, &run_id).await;
    assert_eq!(std::fs::read_to_string(&note).unwrap(), "from the model\n");
    assert!(text_of(&events).contains("Saved."));
    let told = tool_messages(&h.model, 1);
    assert_eq!(told.len(), 1);
    assert!(told[0]["content"].as_str().unwrap().contains("Wrote"), "{told:?}");
    let detail = h.engine.thread(&thread_id).await.unwrap();
    assert_eq!(detail.approvals.len(), 2, "both cards are on record");
}

#[tokio::test]
async fn a_new_file_that_appears_before_the_write_runs_is_not_overwritten() {
    let h = Harness::start(script("create", vec![write_call("fresh.txt", "mine\n"), Turn::text("ok")])).await;
    let (_, run_id) = h.send("create a file").await;
    let first = pending_approvals(&h.engine, &run_id, 1).await.remove(0);
    std::fs::write(h.workspace().join("fresh.txt"), "someone else's\n").unwrap();
    h.engine.decide(&first, approve(), &crate::common::owner()).await.unwrap();
    let ids = pending_approvals(&h.engine, &run_id, 2).await;
    assert_eq!(std::fs::read_to_string(h.workspace().join("fresh.txt")).unwrap(), "someone else's\n");
    assert!(diff_of(&h.engine.approval(&ids[1]).await.unwrap().preview).contains("-someone else's"));
}

#[tokio::test]
async fn an_unchanged_file_is_written_on_the_first_approval() {
    let h = Harness::start(script("note", vec![write_call("same.txt", "new\n"), Turn::text("ok")])).await;
    std::fs::write(h.workspace().join("same.txt"), "old\n").unwrap();
    let (thread_id, run_id) = h.send("note").await;
    let first = pending_approvals(&h.engine, &run_id, 1).await.remove(0);
    h.engine.decide(&first, approve(), &crate::common::owner()).await.unwrap();
    run_to_end(&h.engine, &run_id).await;
    assert_eq!(std::fs::read_to_string(h.workspace().join("same.txt")).unwrap(), "new\n");
    assert_eq!(h.engine.thread(&thread_id).await.unwrap().approvals.len(), 1);
}

#[tokio::test]
async fn an_edited_path_is_not_written_without_showing_its_own_diff() {
    let h = Harness::start(script("note", vec![write_call("a.txt", "text\n"), Turn::text("ok")])).await;
    std::fs::write(h.workspace().join("b.txt"), "precious\n").unwrap();
    let (_, run_id) = h.send("note").await;
    let first = pending_approvals(&h.engine, &run_id, 1).await.remove(0);
    // The card showed a diff for a.txt; the edit points the write at b.txt, whose content the
    // person never saw: the write waits for a card that shows it.
    let edit = DecisionInput { arguments: Some(json!({"path": "b.txt", "content": "text\n"})), ..approve() };
    h.engine.decide(&first, edit, &crate::common::owner()).await.unwrap();
    let ids = pending_approvals(&h.engine, &run_id, 2).await;
    assert_eq!(std::fs::read_to_string(h.workspace().join("b.txt")).unwrap(), "precious\n");
    let again = h.engine.approval(&ids[1]).await.unwrap();
    assert_eq!(again.arguments, json!({"path": "b.txt", "content": "text\n"}), "the new card shows what will run");
    assert!(diff_of(&again.preview).contains("-precious"));
    h.engine.decide(&ids[1], approve(), &crate::common::owner()).await.unwrap();
    run_to_end(&h.engine, &run_id).await;
    assert_eq!(std::fs::read_to_string(h.workspace().join("b.txt")).unwrap(), "text\n");
    assert!(!h.workspace().join("a.txt").exists());
}

#[tokio::test]
async fn a_write_rule_asks_again_once_the_person_edited_the_file() {
    let h = Harness::start(script("save", vec![write_call("rule.txt", "from the model\n"), Turn::text("ok")])).await;
    let file = h.workspace().join("rule.txt");
    let (thread_id, run_id) = h.send("save the note").await;
    let first = pending_approvals(&h.engine, &run_id, 1).await.remove(0);
    let for_the_thread = DecisionInput { scope: Scope::Thread, ..approve() };
    h.engine.decide(&first, for_the_thread, &crate::common::owner()).await.unwrap();
    run_to_end(&h.engine, &run_id).await;
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "from the model\n");

    // The same write again, with the file as the rule's write left it: the rule covers it.
    let again =
        h.engine.send_message(&thread_id, "save the note".into(), &crate::common::owner()).await.unwrap().run_id;
    let events = run_to_end(&h.engine, &again).await;
    assert!(of_kind(&events, "approval_request").is_empty(), "an unchanged file is written under the rule");

    // The person edits the file outside Warden; the rule never saw that content.
    std::fs::write(&file, "my own edits\n").unwrap();
    let third =
        h.engine.send_message(&thread_id, "save the note".into(), &crate::common::owner()).await.unwrap().run_id;
    let card = pending_approvals(&h.engine, &third, 1).await.remove(0);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "my own edits\n", "the edits are not overwritten");
    let shown = h.engine.approval(&card).await.unwrap();
    assert_eq!(shown.status, ApprovalStatus::Pending);
    let diff = diff_of(&shown.preview);
    assert!(diff.contains("-my own edits") && diff.contains("+from the model"), "{diff}");

    // Approved once, it is written (bound to the edited content it showed).
    h.engine.decide(&card, approve(), &crate::common::owner()).await.unwrap();
    run_to_end(&h.engine, &third).await;
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "from the model\n");
}
