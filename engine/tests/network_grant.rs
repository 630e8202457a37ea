//! "With network" on an approval card: the sandbox keeps a shell command off the network unless the
//! person granted it for that one call. Real engine, real SQLite, scripted model over HTTP, real
//! sandboxed `sh`, and a real TCP listener that counts who reached it.

use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::common::*;
use serde_json::json;
use warden_engine::Error;
use warden_testkit::{Scenario, Script, ScriptedCall, Turn};
use warden_types::approval::{DecisionInput, Scope, Verdict};

fn approve(network: bool) -> DecisionInput {
    DecisionInput { network, ..DecisionInput::approve() }
}

/// A listener on 127.0.0.1 that counts accepted connections.
fn counting_listener() -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = hits.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            if stream.is_ok() {
                counter.fetch_add(1, Ordering::SeqCst);
            }
        }
    });
    (port, hits)
}

fn connect_script(port: u16) -> Script {
    // dash has no /dev/tcp: a one-line Python client (Debian's python3 is on the sandbox's PATH).
    let command = format!(
        "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), 5); print(\"connected\")'"
    );
    Script {
        scenarios: vec![Scenario::new(
            "connect",
            vec![Turn::calls(vec![ScriptedCall::new("shell", json!({ "command": command }))]), Turn::text("Done.")],
        )],
        default_title: None,
    }
}

async fn run_with_grant(network: bool) -> (String, usize) {
    if !warden_sandbox::status().available {
        panic!("!!! the sandbox is not available here: {}", warden_sandbox::status().detail);
    }
    let (port, hits) = counting_listener();
    let h = Harness::start(connect_script(port)).await;
    let (_, run_id) = h.send("connect to the port").await;
    let ids = pending_approvals(&h.engine, &run_id, 1).await;
    h.engine.decide(&ids[0], approve(network), &crate::common::owner()).await.unwrap();
    let events = run_to_end(&h.engine, &run_id).await;
    let output = of_kind(&events, "tool_result")[0]["output"].as_str().unwrap_or_default().to_string();
    (output, hits.load(Ordering::SeqCst))
}

#[tokio::test]
async fn an_approved_command_has_no_network_unless_the_card_granted_it() {
    let (output, hits) = run_with_grant(false).await;
    assert_eq!(hits, 0, "the listener was reached without a grant: {output}");
    assert!(!output.contains("connected"), "{output}");

    let (output, hits) = run_with_grant(true).await;
    assert!(output.contains("connected"), "{output}");
    assert_eq!(hits, 1);
}

#[tokio::test]
async fn network_is_granted_only_to_one_approved_sandboxed_command() {
    let script = Script {
        scenarios: vec![Scenario::new(
            "save",
            vec![Turn::calls(vec![ScriptedCall::new("write_file", json!({"path": "a.txt", "content": "x"}))])],
        )],
        default_title: None,
    };
    let h = Harness::start(script).await;
    let (_, run_id) = h.send("save it").await;
    let ids = pending_approvals(&h.engine, &run_id, 1).await;
    let refused = h.engine.decide(&ids[0], approve(true), &crate::common::owner()).await;
    assert!(matches!(&refused, Err(Error::Invalid(m)) if m.contains("sandboxed")), "{refused:?}");
    let for_thread = DecisionInput { scope: Scope::Thread, ..approve(true) };
    assert!(matches!(h.engine.decide(&ids[0], for_thread, &crate::common::owner()).await, Err(Error::Invalid(_))));
    let deny = DecisionInput { decision: Verdict::Deny, ..approve(true) };
    assert!(matches!(h.engine.decide(&ids[0], deny, &crate::common::owner()).await, Err(Error::Invalid(_))));
    // Still pending: a refused decision changes nothing.
    h.engine.decide(&ids[0], approve(false), &crate::common::owner()).await.unwrap();
}
