//! Branches end to end: editing a person's message starts a sibling branch the model answers from
//! that point only; another answer is a sibling of the first; the picker's siblings are listed and a
//! branch is switched back to; leaving a branch cancels what waits on it (cancelled, never denied).

use crate::common::*;
use serde_json::{json, Value};
use warden_engine::Error;
use warden_testkit::{FixtureModel, Scenario, Script, ScriptedCall, Turn};
use warden_types::approval::ApprovalStatus;
use warden_types::message::Role;

fn script() -> Script {
    Script {
        scenarios: vec![
            Scenario::new("apples", vec![Turn::text("Apples are crisp.")]),
            Scenario::new("pears", vec![Turn::text("Pears are soft.")]),
            Scenario::new(
                "write it",
                vec![Turn::calls(vec![ScriptedCall::new("write_file", json!({"path": "left.txt", "content": "x"}))])],
            ),
        ],
        default_title: Some("Fruit".into()),
    }
}

/// The texts of the messages the model was sent in the last streamed request.
fn last_request_texts(model: &FixtureModel) -> Vec<String> {
    let requests = model.requests();
    let last = requests.iter().rev().find(|r| r["stream"] == Value::Bool(true)).expect("a request");
    last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] != "system")
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn texts(detail: &warden_types::thread::ThreadDetail) -> Vec<String> {
    detail.messages.iter().map(|m| m.content.clone()).collect()
}

#[tokio::test]
async fn an_edit_branches_from_its_parent_and_the_model_sees_only_that_branch() {
    let h = Harness::start(script()).await;
    let (thread, run) = h.send("tell me about apples").await;
    run_to_end(&h.engine, &run).await;
    let first = h.engine.thread(&thread).await.unwrap();
    let asked = first.messages[0].id.clone();

    let edited =
        h.engine.edit_message(&thread, &asked, "tell me about pears".into(), &crate::common::owner()).await.unwrap();
    run_to_end(&h.engine, &edited.run_id).await;
    assert_eq!(last_request_texts(&h.model), ["tell me about pears"], "the apples branch is not sent");
    let now = h.engine.thread(&thread).await.unwrap();
    assert_eq!(texts(&now), ["tell me about pears", "Pears are soft."]);
    let edit_id = edited.message_id.unwrap();
    assert_eq!(now.branches.len(), 1);
    assert_eq!(
        (now.branches[0].message_id.as_str(), now.branches[0].siblings.clone()),
        (edit_id.as_str(), vec![asked.clone(), edit_id.clone()])
    );

    // Back to the first version, answer and all; the choice is stored.
    let back = h.engine.switch_branch(&thread, &asked).await.unwrap();
    assert_eq!(texts(&back), ["tell me about apples", "Apples are crisp."]);
    assert_eq!(texts(&h.engine.thread(&thread).await.unwrap()), texts(&back));
    // A follow-up continues the branch shown.
    let (_, more) =
        (thread.clone(), h.engine.send_message(&thread, "and pears?".into(), &crate::common::owner()).await.unwrap());
    run_to_end(&h.engine, &more.run_id).await;
    assert_eq!(last_request_texts(&h.model), ["tell me about apples", "Apples are crisp.", "and pears?"]);

    // Only a person's message is edited; an unknown one is not found.
    let answer = back.messages[1].id.clone();
    assert!(matches!(
        h.engine.edit_message(&thread, &answer, "x".into(), &crate::common::owner()).await,
        Err(Error::Invalid(_))
    ));
    assert!(matches!(
        h.engine.edit_message(&thread, &"nope".into(), "x".into(), &crate::common::owner()).await,
        Err(Error::NotFound { .. })
    ));
    assert!(matches!(
        h.engine.edit_message(&thread, &asked, "  ".into(), &crate::common::owner()).await,
        Err(Error::Invalid(_))
    ));
}

#[tokio::test]
async fn another_answer_is_a_sibling_of_the_first_and_each_can_be_shown() {
    let h = Harness::start(script()).await;
    let (thread, run) = h.send("apples please").await;
    run_to_end(&h.engine, &run).await;
    let before = h.engine.thread(&thread).await.unwrap();
    let first_answer = before.messages[1].id.clone();

    let again = h.engine.regenerate(&thread, &first_answer, &crate::common::owner()).await.unwrap();
    run_to_end(&h.engine, &again.run_id).await;
    assert_eq!(last_request_texts(&h.model), ["apples please"], "asked again from the person's message");
    let after = h.engine.thread(&thread).await.unwrap();
    assert_eq!(after.messages.len(), 2);
    assert_eq!(after.messages[0].id, before.messages[0].id);
    let second_answer = after.messages[1].id.clone();
    assert_ne!(second_answer, first_answer);
    assert_eq!(after.branches[0].siblings, [first_answer.clone(), second_answer.clone()]);

    let shown = h.engine.switch_branch(&thread, &first_answer).await.unwrap();
    assert_eq!(shown.messages[1].id, first_answer);
    // A person's message is edited, not regenerated.
    let person = shown.messages[0].id.clone();
    assert!(matches!(h.engine.regenerate(&thread, &person, &crate::common::owner()).await, Err(Error::Invalid(_))));
}

#[tokio::test]
async fn leaving_a_branch_cancels_its_waiting_approval_and_nothing_runs() {
    let h = Harness::start(script()).await;
    let (thread, run) = h.send("write it down").await;
    let waiting = pending_approvals(&h.engine, &run, 1).await;
    let asked = h.engine.thread(&thread).await.unwrap().messages[0].id.clone();

    let edited =
        h.engine.edit_message(&thread, &asked, "apples instead".into(), &crate::common::owner()).await.unwrap();
    run_to_end(&h.engine, &edited.run_id).await;
    let approval = h.engine.approval(&waiting[0]).await.unwrap();
    assert_eq!(approval.status, ApprovalStatus::Cancelled, "cancelled, not denied");
    assert!(!h.workspace().join("left.txt").exists());
    let now = h.engine.thread(&thread).await.unwrap();
    assert_eq!(texts(&now), ["apples instead", "Apples are crisp."]);
    assert!(now.approvals.is_empty() && now.tool_calls.is_empty(), "the branch left keeps its calls to itself");
    assert!(matches!(
        h.engine.decide(&waiting[0], warden_types::approval::DecisionInput::approve(), &crate::common::owner()).await,
        Err(Error::AlreadyDecided(_))
    ));

    // Its calls come back with it.
    let back = h.engine.switch_branch(&thread, &asked).await.unwrap();
    assert_eq!(back.tool_calls.len(), 1);
    assert_eq!(back.approvals[0].status, ApprovalStatus::Cancelled);
    assert!(back.messages.iter().all(|m| m.role != Role::System));
}

/// An export holds every branch and which one is shown; its import has the same tree, shows the same
/// branch and can switch to the other. A tree that does not hold together is refused whole.
#[tokio::test]
async fn an_export_carries_every_branch_and_imports_as_the_same_tree() {
    let h = Harness::start(script()).await;
    let (thread, run) = h.send("tell me about apples").await;
    run_to_end(&h.engine, &run).await;
    let asked = h.engine.thread(&thread).await.unwrap().messages[0].id.clone();
    let edited =
        h.engine.edit_message(&thread, &asked, "tell me about pears".into(), &crate::common::owner()).await.unwrap();
    run_to_end(&h.engine, &edited.run_id).await;

    let export = h.engine.export_thread(&thread).await.unwrap();
    assert_eq!(export.messages.len(), 4, "both branches");
    assert_eq!(
        export.head_id.as_ref().map(|h| h.as_str()),
        h.engine.thread(&thread).await.unwrap().messages.last().map(|m| m.id.as_str())
    );
    let markdown = warden_engine::transfer::markdown(&export);
    assert!(markdown.contains("Pears are soft.") && !markdown.contains("Apples are crisp."), "{markdown}");

    // Through the file format, as a person would carry it.
    let file = serde_json::to_string(&export).unwrap();
    let imported = h.engine.import_thread(serde_json::from_str(&file).unwrap()).await.unwrap();
    let copy = h.engine.thread(&imported.id).await.unwrap();
    assert_eq!(texts(&copy), ["tell me about pears", "Pears are soft."]);
    assert_eq!(copy.branches.len(), 1);
    assert_eq!(copy.branches[0].siblings.len(), 2);
    let other = copy.branches[0].siblings.iter().find(|s| **s != copy.messages[0].id).unwrap().clone();
    let switched = h.engine.switch_branch(&imported.id, &other).await.unwrap();
    assert_eq!(texts(&switched), ["tell me about apples", "Apples are crisp."]);

    let before = h.engine.list_threads(Default::default()).await.unwrap().len();
    let mut child_first = export.clone();
    child_first.messages.swap(0, 1);
    let mut lost_head = export.clone();
    lost_head.head_id = Some("no-such-message".into());
    let mut stray_parent = export.clone();
    stray_parent.parents.insert("no-such-message".into(), export.messages[0].id.clone());
    for bad in [child_first, lost_head, stray_parent] {
        assert!(matches!(h.engine.import_thread(bad).await, Err(Error::Invalid(_))));
    }
    assert_eq!(h.engine.list_threads(Default::default()).await.unwrap().len(), before);
}
