//! Revoking a thread rule stops what it cleared and has not started: a turn's calls a rule cleared
//! run one after another, and those still waiting when the rule is revoked come back as cards.

use crate::common::*;
use serde_json::json;
use warden_testkit::{Scenario, Script, ScriptedCall, Turn};
use warden_types::approval::{ApprovalStatus, DecidedBy, DecisionInput, Scope, Verdict};
use warden_types::run::ToolCallStatus;

fn decision(decision: Verdict, scope: Scope, prefix: Option<&str>) -> DecisionInput {
    DecisionInput { decision, scope, arguments: None, reason: None, prefix: prefix.map(String::from), network: false }
}

/// The turn's first call reads a FIFO, so it waits until the test writes to it.
fn script() -> Script {
    let shell = |command: &str| ScriptedCall::new("shell", json!({ "command": command }));
    Script {
        scenarios: vec![
            Scenario::new("make-rule", vec![Turn::calls(vec![shell("cat a.txt")]), Turn::text("ok")]),
            Scenario::new(
                "batch",
                vec![Turn::calls(vec![shell("cat fifo"), shell("cat b.txt"), shell("cat c.txt")]), Turn::text("ok")],
            ),
        ],
        default_title: None,
    }
}

fn make_fifo(path: &std::path::Path) {
    let made = std::process::Command::new("mkfifo").arg(path).status().expect("mkfifo runs");
    assert!(made.success(), "mkfifo {path:?}");
}

#[tokio::test]
async fn calls_a_revoked_rule_cleared_that_have_not_started_come_back_as_cards() {
    let h = Harness::start(script()).await;
    for file in ["a.txt", "b.txt", "c.txt"] {
        std::fs::write(h.workspace().join(file), "text\n").unwrap();
    }
    let fifo = h.workspace().join("fifo");
    make_fifo(&fifo);

    let (thread_id, first_run) = h.send("make-rule").await;
    let ids = pending_approvals(&h.engine, &first_run, 1).await;
    h.engine
        .decide(&ids[0], decision(Verdict::Approve, Scope::Thread, Some("cat")), &crate::common::owner())
        .await
        .unwrap();
    run_to_end(&h.engine, &first_run).await;
    let rule = h.engine.thread(&thread_id).await.unwrap().rules.remove(0);

    let run = h.engine.send_message(&thread_id, "batch".into(), &crate::common::owner()).await.unwrap().run_id;
    // The rule cleared all three; the first runs and waits on the FIFO.
    let running = async {
        loop {
            let calls = h.engine.thread(&thread_id).await.unwrap().tool_calls;
            if calls.iter().any(|c| c.arguments["command"] == "cat fifo" && c.status == ToolCallStatus::Running) {
                return calls;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    };
    let calls = tokio::time::timeout(std::time::Duration::from_secs(30), running).await.expect("the first call runs");
    assert_eq!(calls.iter().filter(|c| c.status == ToolCallStatus::Approved).count(), 2, "{calls:#?}");

    h.engine.revoke_rule(&rule.id).await.unwrap();
    let writer = fifo.clone();
    tokio::task::spawn_blocking(move || std::fs::write(writer, "unblocked\n")).await.unwrap().unwrap();

    let cards = pending_approvals(&h.engine, &run, 2).await;
    assert_eq!(cards.len(), 2, "both calls the revoked rule had cleared ask again");
    let detail = h.engine.thread(&thread_id).await.unwrap();
    for command in ["cat b.txt", "cat c.txt"] {
        let call = detail.tool_calls.iter().find(|c| c.arguments["command"] == command).unwrap();
        assert_eq!(call.status, ToolCallStatus::Pending, "{command} did not run");
        let approvals: Vec<_> = detail.approvals.iter().filter(|a| a.tool_call_id == call.id).collect();
        let old = approvals.iter().find(|a| a.status == ApprovalStatus::Superseded).expect("the rule's approval");
        assert!(
            matches!(&old.decision.as_ref().unwrap().by, DecidedBy::RuleRevoked { rule_id, .. } if *rule_id == rule.id),
            "{old:?}"
        );
        assert!(approvals.iter().any(|a| a.status == ApprovalStatus::Pending), "{command} has a card");
    }
    let first = detail.tool_calls.iter().find(|c| c.arguments["command"] == "cat fifo").unwrap();
    assert_eq!(first.status, ToolCallStatus::Done, "the call that had started finished");

    for id in cards {
        h.engine.decide(&id, decision(Verdict::Deny, Scope::Once, None), &crate::common::owner()).await.unwrap();
    }
    let events = run_to_end(&h.engine, &run).await;
    assert_eq!(events.last().unwrap().kind, "run_finished");
}
