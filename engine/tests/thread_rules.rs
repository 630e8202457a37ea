//! "Allow for this thread" through the real engine: a prefix rule answers only for the plain
//! read-only commands it covers, and a prefix rule for a command that writes is refused while the
//! card stays open.

use crate::common::*;
use serde_json::json;
use warden_engine::Error;
use warden_testkit::{Scenario, Script, ScriptedCall, Turn};
use warden_types::approval::{ApprovalStatus, DecisionInput, Scope, Verdict};

fn shell_scenario(when: &str, command: &str) -> Scenario {
    Scenario::new(
        when,
        vec![Turn::calls(vec![ScriptedCall::new("shell", json!({ "command": command }))]), Turn::text("ok")],
    )
}

fn approve(scope: Scope, prefix: Option<&str>) -> DecisionInput {
    DecisionInput {
        decision: Verdict::Approve,
        scope,
        arguments: None,
        reason: None,
        prefix: prefix.map(String::from),
        network: false,
    }
}

#[tokio::test]
async fn a_git_show_rule_asks_again_for_an_output_file_a_loop_and_ansi_c_quoting() {
    let s = Script {
        scenarios: vec![
            shell_scenario("first", "git show HEAD"),
            shell_scenario("covered", "git show HEAD~1"),
            shell_scenario("output", "git show --output=pwned.txt HEAD"),
            shell_scenario("loop", "while git show; do git show; done"),
            shell_scenario("ansi", "git show $'\\x2d\\x2doutput=pwned.txt'"),
        ],
        default_title: None,
    };
    let h = Harness::start(s).await;
    let (thread_id, run_id) = h.send("first").await;
    let ids = pending_approvals(&h.engine, &run_id, 1).await;
    h.engine.decide(&ids[0], approve(Scope::Thread, Some("git show")), &crate::common::owner()).await.unwrap();
    run_to_end(&h.engine, &run_id).await;

    let run = h.engine.send_message(&thread_id, "covered".into(), &crate::common::owner()).await.unwrap().run_id;
    let events = run_to_end(&h.engine, &run).await;
    assert!(of_kind(&events, "approval_request").is_empty(), "a plain read-only git show is covered");

    for message in ["output", "loop", "ansi"] {
        let run = h.engine.send_message(&thread_id, message.into(), &crate::common::owner()).await.unwrap().run_id;
        let ids = pending_approvals(&h.engine, &run, 1).await;
        assert_eq!(ids.len(), 1, "{message}: the person is asked");
        let deny = DecisionInput {
            decision: Verdict::Deny,
            scope: Scope::Once,
            arguments: None,
            reason: None,
            prefix: None,
            network: false,
        };
        h.engine.decide(&ids[0], deny, &crate::common::owner()).await.unwrap();
        run_to_end(&h.engine, &run).await;
    }
    assert!(!h.workspace().join("pwned.txt").exists());
}

#[tokio::test]
async fn a_prefix_rule_for_a_command_that_writes_is_refused_and_the_card_stays() {
    let s = Script { scenarios: vec![shell_scenario("build", "mkdir built")], default_title: None };
    let h = Harness::start(s).await;
    let (thread_id, run_id) = h.send("build").await;
    let ids = pending_approvals(&h.engine, &run_id, 1).await;

    let refused = h.engine.decide(&ids[0], approve(Scope::Thread, Some("mkdir")), &crate::common::owner()).await;
    assert!(matches!(refused, Err(Error::Invalid(ref why)) if why.contains("read-only")), "{refused:?}");
    assert_eq!(h.engine.approval(&ids[0]).await.unwrap().status, ApprovalStatus::Pending);

    h.engine.decide(&ids[0], approve(Scope::Once, None), &crate::common::owner()).await.unwrap();
    run_to_end(&h.engine, &run_id).await;
    assert!(h.workspace().join("built").is_dir());
    assert!(h.engine.thread(&thread_id).await.unwrap().rules.is_empty());
}
