//! "Allow for this thread" for a wrapper or a shell, through the real engine: an option's value is
//! not the command (`env -u cat sh …`, `xargs -E cat sh …`, `xargs -a cat …`, `xargs -I ls …`), a
//! shell with an option other than a plain `-c` may run anything first (`bash --rcfile F -ic ls`),
//! and a rule only covers the program its words show. Each of these lines ran without a card.

use crate::common::*;
use serde_json::json;
use warden_engine::Error;
use warden_testkit::{Scenario, Script, ScriptedCall, Turn};
use warden_types::approval::{DecisionInput, Scope, Verdict};
use warden_types::id::ThreadId;

/// The line that would have written `pwned.txt` in the workspace without anyone asked.
const PWN: &str = "sh -c 'echo PWNED > pwned.txt'";

fn shell_scenario(when: &str, command: &str) -> Scenario {
    Scenario::new(
        when,
        vec![Turn::calls(vec![ScriptedCall::new("shell", json!({ "command": command }))]), Turn::text("ok")],
    )
}

fn decision(decision: Verdict, scope: Scope, prefix: Option<&str>) -> DecisionInput {
    DecisionInput { decision, scope, arguments: None, reason: None, prefix: prefix.map(String::from), network: false }
}

/// Sends `message` in the thread and tells whether a card came before the run ended (it is denied).
async fn asks(h: &Harness, thread_id: &ThreadId, message: &str) -> bool {
    let run = h.engine.send_message(thread_id, message.into(), &crate::common::owner()).await.unwrap().run_id;
    let events = events_until(&h.engine, &run, |e| e.kind == "approval_request" || e.is_terminal()).await;
    let cards = of_kind(&events, "approval_request");
    let Some(card) = cards.first() else { return false };
    let id = card["approval"]["id"].as_str().unwrap().into();
    h.engine.decide(&id, decision(Verdict::Deny, Scope::Once, None), &crate::common::owner()).await.unwrap();
    run_to_end(&h.engine, &run).await;
    true
}

/// A thread with the rule `prefix` made from approving `command`; returns the thread's id.
async fn thread_with_rule(h: &Harness, first: &str, prefix: &str) -> ThreadId {
    let (thread_id, run_id) = h.send(first).await;
    let ids = pending_approvals(&h.engine, &run_id, 1).await;
    h.engine
        .decide(&ids[0], decision(Verdict::Approve, Scope::Thread, Some(prefix)), &crate::common::owner())
        .await
        .unwrap();
    run_to_end(&h.engine, &run_id).await;
    assert_eq!(h.engine.thread(&thread_id).await.unwrap().rules.len(), 1, "the rule `{prefix}` was made");
    thread_id
}

#[tokio::test]
async fn an_env_rule_asks_for_a_command_hidden_behind_an_option_value() {
    let bypasses = [
        ("unset", format!("env -u cat {PWN}")),
        ("long", format!("env --unset=cat {PWN}")),
        ("spaced", format!("env --unset cat {PWN}")),
        ("cluster", format!("env -iu cat {PWN}")),
        ("chdir", format!("env -C . {PWN}")),
        ("shown", "env cat secret.txt".to_string()),
        ("xargs-inside", format!("env xargs -E cat {PWN}")),
        ("rcfile", "env bash --rcfile evil.sh -ic ls".to_string()),
    ];
    let mut scenarios = vec![shell_scenario("make-env-rule", "env"), shell_scenario("covered", "env -u HOME")];
    scenarios.extend(bypasses.iter().map(|(when, line)| shell_scenario(&format!("try-{when}"), line)));
    let h = Harness::start(Script { scenarios, default_title: None }).await;
    std::fs::write(h.workspace().join("evil.sh"), "echo PWNED > pwned.txt\n").unwrap();
    let thread_id = thread_with_rule(&h, "make-env-rule", "env").await;

    assert!(!asks(&h, &thread_id, "covered").await, "env running no command is still covered by `env`");
    for (when, line) in &bypasses {
        assert!(asks(&h, &thread_id, &format!("try-{when}")).await, "{line:?} must show a card under an `env` rule");
    }
    assert!(!h.workspace().join("pwned.txt").exists());
}

#[tokio::test]
async fn an_xargs_rule_asks_for_a_command_hidden_behind_an_option_value() {
    let bypasses = [
        ("eof", format!("xargs -E cat {PWN}")),
        ("arg-file", format!("xargs -a cat {PWN}")),
        ("replace", format!("xargs -I ls {PWN}")),
        ("replace-name", "xargs -I cat cat".to_string()),
        ("wrapper", "xargs env".to_string()),
    ];
    let mut scenarios = vec![shell_scenario("make-xargs-rule", "xargs")];
    scenarios.extend(bypasses.iter().map(|(when, line)| shell_scenario(&format!("try-{when}"), line)));
    let h = Harness::start(Script { scenarios, default_title: None }).await;
    // The file `xargs -a cat` reads, so the line would really run.
    std::fs::write(h.workspace().join("cat"), "x\n").unwrap();
    let thread_id = thread_with_rule(&h, "make-xargs-rule", "xargs").await;

    for (when, line) in &bypasses {
        assert!(asks(&h, &thread_id, &format!("try-{when}")).await, "{line:?} must show a card under an `xargs` rule");
    }
    assert!(!h.workspace().join("pwned.txt").exists());
}

#[tokio::test]
async fn a_shell_gets_no_prefix_rule_and_an_interactive_shell_is_asked_about() {
    let scenarios = vec![
        shell_scenario("make-bash-rule", "bash -c ls"),
        shell_scenario("try-rcfile", "bash --rcfile evil.sh -ic ls"),
    ];
    let h = Harness::start(Script { scenarios, default_title: None }).await;
    std::fs::write(h.workspace().join("evil.sh"), "echo PWNED > pwned.txt\n").unwrap();
    let (thread_id, run_id) = h.send("make-bash-rule").await;
    let ids = pending_approvals(&h.engine, &run_id, 1).await;

    // A rule `bash` would cover any script: it is refused, and the card stays for a decision.
    let refused = h
        .engine
        .decide(&ids[0], decision(Verdict::Approve, Scope::Thread, Some("bash")), &crate::common::owner())
        .await;
    assert!(matches!(refused, Err(Error::Invalid(_))), "{refused:?}");
    h.engine.decide(&ids[0], decision(Verdict::Approve, Scope::Once, None), &crate::common::owner()).await.unwrap();
    run_to_end(&h.engine, &run_id).await;
    assert!(h.engine.thread(&thread_id).await.unwrap().rules.is_empty());

    assert!(asks(&h, &thread_id, "try-rcfile").await, "an interactive bash reading an rc file is asked about");
    assert!(!h.workspace().join("pwned.txt").exists());
}
