//! Outside approvals across a crash of the real `warden-server` binary (SIGKILL) on the same data
//! dir: an acknowledged request is still there, and a decision made while the client was away
//! reaches it when it reconnects to the restarted server, once.

use crate::common;

use reqwest::Method;
use serde_json::{json, Value};

use crate::common::outside::{ask, connect, decide, disconnect, evaluation, next_frame, register};
use crate::common::process::ServerProcess;

#[tokio::test]
async fn a_decision_made_while_the_client_was_away_reaches_it_after_the_server_is_killed_and_restarted() {
    let data = tempfile::tempdir().expect("data dir");
    let first = ServerProcess::start(data.path(), &[]).await;
    let (_, token) = register(&first.base, "runner", Value::Null).await;
    let mut socket = connect(&first.base, &token).await;
    let decided = ask(&mut socket, &evaluation("e1", "ls", "low")).await["request_id"].as_str().unwrap().to_string();
    let waiting = ask(&mut socket, &evaluation("e2", "make", "high")).await["request_id"].as_str().unwrap().to_string();
    disconnect(socket).await;
    let (status, _) = decide(&first.base, &decided, json!({"decision": "approved", "reason": "ok"})).await;
    assert!(status.is_success());
    first.kill();

    let second = ServerProcess::start(data.path(), &[]).await;
    let mut socket = connect(&second.base, &token).await;
    let missed = next_frame(&mut socket).await;
    assert_eq!(
        (&missed["type"], &missed["id"], &missed["request_id"], &missed["decision"]),
        (&json!("decision"), &json!("e1"), &json!(decided), &json!("approved"))
    );
    // The request acknowledged before the kill is still pending, and its decision is pushed live.
    let (_, stored) = common::send_json(
        &common::client(),
        Method::GET,
        format!("{}/api/outside/requests/{waiting}", second.base),
        None,
    )
    .await;
    assert_eq!(stored["status"], "pending");
    decide(&second.base, &waiting, json!({"decision": "rejected"})).await;
    let live = next_frame(&mut socket).await;
    assert_eq!((&live["id"], &live["decision"]), (&json!("e2"), &json!("rejected")));
    disconnect(socket).await;

    // Both delivered: a third connection starts with the answer to a new request.
    let mut socket = connect(&second.base, &token).await;
    assert_eq!(ask(&mut socket, &evaluation("e3", "pwd", "low")).await["id"], "e3");
}
