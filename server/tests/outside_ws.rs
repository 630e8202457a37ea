//! Outside approvals end to end over a real WebSocket and real HTTP against the served API: both
//! request kinds, the seed's type names, auto-approval at each level, repeated ids, bad frames,
//! decisions made while the client was away, long-polls, timeouts, and many clients at once.

use crate::common;

use std::collections::HashMap;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use tempfile::TempDir;
use warden_engine::config::Config;

use crate::common::outside::{
    ask, closed_with, code_response, connect, decide, disconnect, evaluation, next_frame, register, send, send_text,
    set_policy, Socket,
};
use crate::common::{anonymous, client, send_json, Served};

async fn start() -> (TempDir, Served) {
    let dir = tempfile::tempdir().expect("temp dir");
    let served = common::serve_api(Config::with_data_dir(dir.path())).await;
    (dir, served)
}

#[track_caller]
fn request_id(ack: &Value) -> String {
    assert_eq!(ack["type"], "ack", "{ack}");
    ack["request_id"].as_str().expect("request_id").to_string()
}

async fn list(base: &str, query: &str) -> Vec<Value> {
    let (status, body) = send_json(&client(), Method::GET, format!("{base}/api/outside/requests?{query}"), None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body.as_array().expect("a list").clone()
}

#[tokio::test]
async fn both_kinds_are_acknowledged_then_answered_on_the_socket_with_who_decided() {
    let (_dir, served) = start().await;
    let base = &served.base;
    let (_, token) = register(base, "runner", Value::Null).await;
    let mut socket = connect(base, &token).await;

    let ack = ask(&mut socket, &evaluation("e1", "rm -rf build", "high")).await;
    assert_eq!(ack["id"], "e1");
    let e1 = request_id(&ack);
    let pending = list(base, "status=pending").await;
    assert_eq!(pending.len(), 1);
    assert_eq!(
        (&pending[0]["id"], &pending[0]["client_name"], &pending[0]["risk"]),
        (&json!(e1), &json!("runner"), &json!("high"))
    );
    assert_eq!(pending[0]["request"]["code"], "rm -rf build");

    let (status, decided) =
        decide(base, &e1, json!({"decision": "approved", "reason": "only build/", "edited_code": "rm -rf build/tmp"}))
            .await;
    assert_eq!(status, StatusCode::OK, "{decided}");
    let decision = next_frame(&mut socket).await;
    assert_eq!(
        decision,
        json!({"type": "decision", "id": "e1", "request_id": e1, "decision": "approved", "reason": "only build/",
               "edited_code": "rm -rf build/tmp", "decided_by": {"kind": "person", "detail": "approved by Owner"}})
    );

    let ack = ask(&mut socket, &code_response("o1", Some("e1"), 0)).await;
    let o1 = request_id(&ack);
    let (status, _) = decide(base, &o1, json!({"decision": "rejected", "reason": "leaks a path"})).await;
    assert_eq!(status, StatusCode::OK);
    let decision = next_frame(&mut socket).await;
    assert_eq!(
        (&decision["id"], &decision["decision"], &decision["reason"]),
        (&json!("o1"), &json!("rejected"), &json!("leaks a path"))
    );
    assert!(decision.get("edited_code").is_none(), "{decision}");

    let (_, stored) = send_json(&client(), Method::GET, format!("{base}/api/outside/requests/{o1}"), None).await;
    assert_eq!(
        (&stored["kind"], &stored["follows"], &stored["status"]),
        (&json!("code_response"), &json!(e1), &json!("rejected"))
    );
    let (status, body) = decide(base, &o1, json!({"decision": "approved"})).await;
    assert_eq!((status, &body["error"]["code"]), (StatusCode::CONFLICT, &json!("already_decided")));
    // A code response that follows nothing this client sent.
    let refused = ask(&mut socket, &code_response("o2", Some("nobody"), 0)).await;
    assert_eq!(
        (&refused["type"], &refused["id"], &refused["code"]),
        (&json!("error"), &json!("o2"), &json!("unknown_request"))
    );
}

#[tokio::test]
async fn the_seed_type_names_are_taken() {
    let (_dir, served) = start().await;
    let (_, token) = register(&served.base, "seed", Value::Null).await;
    let mut socket = connect(&served.base, &token).await;
    let ack = ask(
        &mut socket,
        &json!({"type": "Security Evaluation Request", "id": "s1", "code": "print(1)",
        "language": "python", "explanation": "prints", "risk_level": "low"}),
    )
    .await;
    request_id(&ack);
    let ack = ask(
        &mut socket,
        &json!({"type": "code response approval", "id": "s2", "follows": "s1",
        "stdout": "1\n", "stderr": "", "exit_code": 0}),
    )
    .await;
    request_id(&ack);
    let kinds: Vec<Value> = list(&served.base, "").await.iter().map(|r| r["kind"].clone()).collect();
    assert_eq!(kinds, [json!("code_response"), json!("security_evaluation")]);
}

#[tokio::test]
async fn security_evaluations_are_auto_approved_up_to_the_policy_level_and_code_responses_by_their_rule() {
    let (_dir, served) = start().await;
    let base = &served.base;
    let (_, token) = register(base, "runner", Value::Null).await;
    let mut socket = connect(base, &token).await;
    let levels = [
        ("never", [false, false, false]),
        ("low", [true, false, false]),
        ("medium", [true, true, false]),
        ("high", [true, true, true]),
    ];
    for (level, expected) in levels {
        set_policy(base, json!({"security_evaluation": level})).await;
        for (risk, approved) in ["low", "medium", "high"].into_iter().zip(expected) {
            let answer = ask(&mut socket, &evaluation(&format!("{level}-{risk}"), "ls", risk)).await;
            if approved {
                assert_eq!(
                    (&answer["type"], &answer["decision"]),
                    (&json!("decision"), &json!("approved")),
                    "{level}/{risk}"
                );
                assert_eq!(answer["decided_by"]["kind"], "policy");
                let detail = answer["decided_by"]["detail"].as_str().unwrap();
                assert!(detail.contains(&format!("up to {level} risk")), "{detail}");
            } else {
                request_id(&answer);
            }
        }
    }
    for (rule, expected) in [("never", [false, false]), ("on_success", [true, false]), ("always", [true, true])] {
        set_policy(base, json!({"code_response": rule})).await;
        for (exit_code, approved) in [0, 1].into_iter().zip(expected) {
            let answer = ask(&mut socket, &code_response(&format!("{rule}-{exit_code}"), None, exit_code)).await;
            assert_eq!(answer["type"] == "decision", approved, "{rule}/{exit_code}: {answer}");
        }
    }
    // The automatic decisions are stored as such, with their rule.
    let approved = list(base, "status=approved&limit=500").await;
    assert_eq!(approved.len(), 6 + 3);
    assert!(approved.iter().all(|r| r["decision"]["decided_by"]["kind"] == "policy"));
}

#[tokio::test]
async fn a_clients_own_policy_overrides_the_global_one() {
    let (_dir, served) = start().await;
    let base = &served.base;
    set_policy(base, json!({"security_evaluation": "high"})).await;
    let (strict_id, strict) = register(base, "strict", json!({"security_evaluation": "never"})).await;
    let (_, trusted) = register(base, "trusted", Value::Null).await;
    let mut socket = connect(base, &strict).await;
    request_id(&ask(&mut socket, &evaluation("a", "ls", "low")).await);
    let mut socket = connect(base, &trusted).await;
    assert_eq!(ask(&mut socket, &evaluation("a", "ls", "low")).await["type"], "decision");
    // Changed later: applies to the next request.
    let (status, _) = send_json(
        &client(),
        Method::PUT,
        format!("{base}/api/outside/clients/{strict_id}/policy"),
        Some(json!({"security_evaluation": "low"})),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let mut socket = connect(base, &strict).await;
    let answer = ask(&mut socket, &evaluation("b", "ls", "low")).await;
    assert!(answer["decided_by"]["detail"].as_str().unwrap().starts_with("client policy"), "{answer}");
}

#[tokio::test]
async fn a_repeated_id_is_answered_and_never_stored_twice_and_a_reused_one_is_refused() {
    let (_dir, served) = start().await;
    let base = &served.base;
    let (_, token) = register(base, "runner", Value::Null).await;
    let mut socket = connect(base, &token).await;
    let first = request_id(&ask(&mut socket, &evaluation("e1", "make", "medium")).await);
    assert_eq!(request_id(&ask(&mut socket, &evaluation("e1", "make", "medium")).await), first);
    decide(base, &first, json!({"decision": "approved"})).await;
    assert_eq!(next_frame(&mut socket).await["type"], "decision");
    // Sent again after the decision: the decision again, over the socket and over HTTP.
    let again = ask(&mut socket, &evaluation("e1", "make", "medium")).await;
    assert_eq!((&again["type"], &again["request_id"]), (&json!("decision"), &json!(first)));
    let res = anonymous()
        .post(format!("{base}/api/outside/requests"))
        .bearer_auth(&token)
        .json(&evaluation("e1", "make", "medium"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.json::<Value>().await.unwrap()["request_id"], json!(first));
    // The same id for other code is not answered with the old approval.
    let refused = ask(&mut socket, &evaluation("e1", "make install", "medium")).await;
    assert_eq!(
        (&refused["type"], &refused["id"], &refused["code"]),
        (&json!("error"), &json!("e1"), &json!("id_reused"))
    );
    assert_eq!(list(base, "").await.len(), 1);
}

#[tokio::test]
async fn malformed_and_oversized_frames_get_error_frames_and_the_socket_keeps_working() {
    let (_dir, served) = start().await;
    let base = &served.base;
    let (_, token) = register(base, "runner", Value::Null).await;
    let mut socket = connect(base, &token).await;

    send_text(&mut socket, "{not json".to_string()).await;
    let error = next_frame(&mut socket).await;
    assert_eq!((&error["type"], &error["code"]), (&json!("error"), &json!("malformed")));
    assert!(error.get("id").is_none(), "{error}");

    let cases = [
        (json!({"type": "delete_everything", "id": "m1"}), "malformed"),
        (json!({"type": "security_evaluation", "id": "m2", "code": "ls", "explanation": "x"}), "malformed"),
        (
            json!({"type": "security_evaluation", "id": "m3", "code": "ls", "explanation": "x", "risk_level": "low", "extra": 1}),
            "malformed",
        ),
        (
            json!({"type": "security_evaluation", "id": "m4", "code": "x".repeat(300 * 1024), "explanation": "big", "risk_level": "low"}),
            "too_large",
        ),
        (json!({"type": "code_response", "id": "m5", "stdout": "x".repeat(210 * 1024)}), "invalid"),
    ];
    for (frame, code) in cases {
        let error = ask(&mut socket, &frame).await;
        assert_eq!(
            (&error["type"], &error["id"], &error["code"]),
            (&json!("error"), &frame["id"], &json!(code)),
            "{error}"
        );
    }
    send_text(&mut socket, "[1, 2, 3]".to_string()).await;
    assert_eq!(next_frame(&mut socket).await["code"], "malformed");
    // A binary message holding a frame is read as one.
    use futures::SinkExt;
    let binary = evaluation("b1", "ls", "low").to_string().into_bytes();
    socket.send(tokio_tungstenite::tungstenite::Message::binary(binary)).await.unwrap();
    request_id(&next_frame(&mut socket).await);
    // Still usable, and nothing bad was stored.
    request_id(&ask(&mut socket, &evaluation("ok", "ls", "low")).await);
    assert_eq!(list(base, "").await.len(), 2);

    // The same over HTTP, as statuses.
    let post =
        |body: String| anonymous().post(format!("{base}/api/outside/requests")).bearer_auth(&token).body(body).send();
    let res = post("{not json".into()).await.unwrap();
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(res.json::<Value>().await.unwrap()["error"]["code"], "malformed");
    // The code shows twice (in the explanation too): 280 KiB, over the frame cap, under the body cap.
    let big = evaluation("m4", &"x".repeat(140 * 1024), "low").to_string();
    let res = post(big).await.unwrap();
    assert_eq!(res.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(res.json::<Value>().await.unwrap()["error"]["code"], "too_large");
}

#[tokio::test]
async fn a_message_over_one_mib_closes_the_socket_with_1009_and_stores_nothing() {
    let (_dir, served) = start().await;
    let base = &served.base;
    let (_, token) = register(base, "runner", Value::Null).await;
    let mut socket = connect(base, &token).await;
    send_text(&mut socket, evaluation("huge", &"x".repeat(1024 * 1024), "low").to_string()).await;
    assert_eq!(closed_with(&mut socket).await, Some(1009));
    assert!(list(base, "").await.is_empty());
    // The client can connect again and be answered.
    let mut socket = connect(base, &token).await;
    assert_eq!(ask(&mut socket, &evaluation("small", "ls", "low")).await["type"], "ack");
}

#[tokio::test]
async fn a_posted_body_far_over_the_frame_cap_is_not_read_and_stores_nothing() {
    let (_dir, served) = start().await;
    let base = &served.base;
    let (_, token) = register(base, "runner", Value::Null).await;
    // Just over the frame cap: read, and refused as a frame (with its id); well over: not read at all.
    // (The code shows twice, in the explanation too.)
    let just_over = evaluation("j1", &"x".repeat(130 * 1024), "low").to_string();
    let far_over = evaluation("f1", &"x".repeat(400 * 1024), "low").to_string();
    let url = format!("{base}/api/outside/requests");
    let res = anonymous().post(&url).bearer_auth(&token).body(just_over).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let body = res.json::<Value>().await.unwrap();
    assert_eq!(body["error"]["code"], "too_large", "{body}");
    let res = anonymous().post(&url).bearer_auth(&token).body(far_over.clone()).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(res.json::<Value>().await.unwrap()["error"]["code"], "payload_too_large");
    // Without a Content-Length (chunked) too.
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        far_over.as_bytes().chunks(64 * 1024).map(|chunk| Ok(chunk.to_vec())).collect();
    let chunks = futures::stream::iter(chunks);
    let res = anonymous().post(&url).bearer_auth(&token).body(reqwest::Body::wrap_stream(chunks)).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(res.json::<Value>().await.unwrap()["error"]["code"], "payload_too_large");
    assert!(list(base, "").await.is_empty());
}

#[tokio::test]
async fn a_decision_made_while_the_client_was_away_is_sent_first_when_it_reconnects_and_only_once() {
    let (_dir, served) = start().await;
    let base = &served.base;
    let (_, token) = register(base, "runner", Value::Null).await;
    let mut socket = connect(base, &token).await;
    let e1 = request_id(&ask(&mut socket, &evaluation("e1", "ls", "low")).await);
    let e2 = request_id(&ask(&mut socket, &evaluation("e2", "ls -a", "low")).await);
    disconnect(socket).await;
    decide(base, &e2, json!({"decision": "rejected"})).await;
    decide(base, &e1, json!({"decision": "approved"})).await;

    let mut socket = connect(base, &token).await;
    let first = next_frame(&mut socket).await;
    let second = next_frame(&mut socket).await;
    assert_eq!((&first["id"], &first["decision"]), (&json!("e2"), &json!("rejected")), "in the order decided");
    assert_eq!((&second["id"], &second["decision"]), (&json!("e1"), &json!("approved")));
    disconnect(socket).await;
    // Delivered: the next connection starts with the answer to a new request, nothing missed.
    let mut socket = connect(base, &token).await;
    assert_eq!(ask(&mut socket, &evaluation("e3", "pwd", "low")).await["id"], "e3");
}

#[tokio::test]
async fn over_http_a_request_is_created_then_its_decision_long_polled() {
    let (_dir, served) = start().await;
    let base = served.base.clone();
    let (_, token) = register(&base, "curl", Value::Null).await;
    let http = anonymous();
    let res = http
        .post(format!("{base}/api/outside/requests"))
        .bearer_auth(&token)
        .json(&evaluation("h1", "ls", "low"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::ACCEPTED);
    let id = request_id(&res.json::<Value>().await.unwrap());
    let poll = |wait: u64| {
        anonymous().get(format!("{base}/api/outside/requests/{id}/decision?wait={wait}")).bearer_auth(&token).send()
    };
    let res = poll(0).await.unwrap();
    assert_eq!(res.status(), StatusCode::ACCEPTED, "still pending");
    assert_eq!(res.json::<Value>().await.unwrap()["type"], "ack");

    let waiting = tokio::spawn(poll(60));
    tokio::time::sleep(Duration::from_millis(300)).await;
    decide(&base, &id, json!({"decision": "approved", "reason": "fine"})).await;
    let res = waiting.await.unwrap().unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let decision = res.json::<Value>().await.unwrap();
    assert_eq!(
        (&decision["type"], &decision["id"], &decision["reason"]),
        (&json!("decision"), &json!("h1"), &json!("fine"))
    );
    // Asked again: the same decision, at once.
    assert_eq!(poll(60).await.unwrap().json::<Value>().await.unwrap(), decision);
    // Another client cannot read it.
    let (_, other) = register(&base, "other", Value::Null).await;
    let res = anonymous()
        .get(format!("{base}/api/outside/requests/{id}/decision?wait=0"))
        .bearer_auth(&other)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn an_unanswered_request_is_rejected_by_timeout_on_the_socket() {
    let (_dir, served) = start().await;
    let (_, token) = register(&served.base, "runner", json!({"timeouts": {"default_secs": 1}})).await;
    let mut socket = connect(&served.base, &token).await;
    let id = request_id(&ask(&mut socket, &evaluation("t1", "ls", "low")).await);
    let decision = next_frame(&mut socket).await;
    assert_eq!((&decision["id"], &decision["decision"]), (&json!("t1"), &json!("rejected")));
    assert_eq!(decision["decided_by"], json!({"kind": "timeout", "detail": "no decision within 1 s"}));
    let (_, stored) =
        send_json(&client(), Method::GET, format!("{}/api/outside/requests/{id}", served.base), None).await;
    assert_eq!(stored["status"], "expired");
}

/// 50 clients send 20 requests each at once; low risk is approved by policy, the rest by a person
/// working through the pending list. Every request is stored once and answered once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_thousand_requests_from_fifty_clients_are_each_stored_once_and_answered_once() {
    const CLIENTS: usize = 50;
    const EACH: usize = 20;
    let (_dir, served) = start().await;
    let base = served.base.clone();
    set_policy(&base, json!({"security_evaluation": "low"})).await;
    let mut clients = Vec::new();
    for n in 0..CLIENTS {
        clients.push(register(&base, &format!("client-{n}"), Value::Null).await);
    }

    let person = tokio::spawn({
        let base = base.clone();
        async move {
            let mut decided = 0;
            while decided < CLIENTS * EACH / 2 {
                for request in list(&base, "status=pending&limit=500").await {
                    let id = request["id"].as_str().unwrap();
                    let verdict = if decided % 2 == 0 { "approved" } else { "rejected" };
                    let (status, _) = decide(&base, id, json!({"decision": verdict})).await;
                    assert_eq!(status, StatusCode::OK, "each pending request is decided once");
                    decided += 1;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            decided
        }
    });

    let mut runs = Vec::new();
    for (n, (client_id, token)) in clients.into_iter().enumerate() {
        let base = base.clone();
        runs.push(tokio::spawn(async move {
            let mut socket: Socket = connect(&base, &token).await;
            for i in 0..EACH {
                let risk = if i % 2 == 0 { "low" } else { "high" };
                send(&mut socket, &evaluation(&format!("c{n}-r{i}"), &format!("echo {i}"), risk)).await;
            }
            let mut acks: HashMap<String, usize> = HashMap::new();
            let mut decisions: HashMap<String, usize> = HashMap::new();
            while decisions.len() < EACH {
                let frame = next_frame(&mut socket).await;
                let id = frame["id"].as_str().expect("every frame names its request").to_string();
                assert!(id.starts_with(&format!("c{n}-")), "client {n} got another client's frame: {frame}");
                match frame["type"].as_str() {
                    Some("ack") => *acks.entry(id).or_default() += 1,
                    Some("decision") => *decisions.entry(id).or_default() += 1,
                    _ => panic!("unexpected frame {frame}"),
                }
            }
            assert!(decisions.values().all(|&n| n == 1), "a decision came twice: {decisions:?}");
            assert!(acks.values().all(|&n| n == 1), "an ack came twice: {acks:?}");
            assert_eq!(acks.len(), EACH / 2, "only the high-risk requests waited");
            client_id
        }));
    }
    let mut client_ids = Vec::new();
    for run in runs {
        client_ids.push(run.await.expect("client run"));
    }
    assert_eq!(person.await.expect("person"), CLIENTS * EACH / 2);
    for client_id in client_ids {
        let stored = list(&base, &format!("client_id={client_id}&limit=500")).await;
        assert_eq!(stored.len(), EACH, "each request stored once");
        assert!(
            stored.iter().all(|r| r["status"] != "pending" && r["delivered_at"].is_string()),
            "all decided and delivered"
        );
    }
}
