//! Each outside client's bounds over real HTTP, WebSockets and MCP sessions, with the server's default
//! limits: 429 with a code that names the bound (and `Retry-After` when waiting helps), an error frame
//! on the socket, and other clients untouched.

use crate::common;

use reqwest::header::RETRY_AFTER;
use reqwest::StatusCode;
use serde_json::{json, Value};
use tempfile::TempDir;
use warden_engine::config::Config;
use warden_outside::Limits;

use crate::common::outside::{ask, connect, connect_with, decide, evaluation, refused_status, register};
use crate::common::process::ServerProcess;
use crate::common::{anonymous, Served};

async fn start() -> (TempDir, Served) {
    let dir = tempfile::tempdir().expect("temp dir");
    let served = common::serve_api(Config::with_data_dir(dir.path())).await;
    (dir, served)
}

async fn post(base: &str, token: &str, frame: &Value) -> reqwest::Response {
    anonymous().post(format!("{base}/api/outside/requests")).bearer_auth(token).json(frame).send().await.expect("sent")
}

async fn code_of(res: reqwest::Response) -> (StatusCode, Option<String>, String) {
    let status = res.status();
    let retry_after = res.headers().get(RETRY_AFTER).map(|v| v.to_str().unwrap_or("?").to_string());
    let body: Value = res.json().await.unwrap_or(Value::Null);
    (status, retry_after, body["error"]["code"].as_str().unwrap_or("<none>").to_string())
}

#[tokio::test]
async fn a_flooding_client_is_refused_with_429_while_others_still_get_through() {
    let limits = Limits::default();
    let (_dir, served) = start().await;
    let (_, flooder) = register(&served.base, "flooder", Value::Null).await;
    let (_, quiet) = register(&served.base, "quiet", Value::Null).await;
    let pending = limits.max_pending as usize;
    for i in 0..pending {
        assert_eq!(post(&served.base, &flooder, &evaluation(&format!("f{i}"), "ls", "high")).await.status(), 202);
    }
    // As many waiting as it may: 429, no Retry-After (a decision makes room, not time).
    let (status, retry_after, code) =
        code_of(post(&served.base, &flooder, &evaluation("over", "ls", "high")).await).await;
    assert_eq!((status, retry_after, code.as_str()), (StatusCode::TOO_MANY_REQUESTS, None, "too_many_pending"));
    // Its minute runs out too (a request refused for waiting ones still counts against it): 429
    // rate_limited with when to try again. Tokens come back as time passes, so send until refused.
    let mut rate_limited = None;
    for i in pending..pending + 400 {
        let (status, retry_after, code) =
            code_of(post(&served.base, &flooder, &evaluation(&format!("f{i}"), "ls", "high")).await).await;
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
        if code == "rate_limited" {
            rate_limited = Some(i);
            let secs: u64 = retry_after.expect("Retry-After").parse().expect("whole seconds");
            assert!((1..=60).contains(&secs), "{secs}");
            break;
        }
        assert_eq!(code, "too_many_pending");
    }
    let first_refused = rate_limited.expect("the rate limit was reached");
    assert!(first_refused + 1 >= limits.per_minute.get() as usize, "not before its minute's {}", limits.per_minute);
    // On the socket: error frames with the same codes, and the socket stays open.
    let mut socket = connect(&served.base, &flooder).await;
    let mut socket_refused = None;
    for i in 0..400 {
        let refused = ask(&mut socket, &evaluation(&format!("s{i}"), "ls", "high")).await;
        assert_eq!((refused["type"].as_str(), refused["id"].as_str()), (Some("error"), Some(format!("s{i}").as_str())));
        if refused["code"] == "rate_limited" {
            socket_refused = Some(refused);
            break;
        }
        assert_eq!(refused["code"], "too_many_pending", "{refused}");
    }
    assert!(socket_refused.is_some_and(|r| r["message"].as_str().is_some_and(|m| m.contains("requests a minute"))));
    // A request sent again is answered as it stands.
    assert_eq!(ask(&mut socket, &evaluation("f0", "ls", "high")).await["type"], "ack");

    // The other client is not held back.
    assert_eq!(post(&served.base, &quiet, &evaluation("q1", "ls", "high")).await.status(), 202);
}

#[tokio::test]
async fn a_client_may_hold_only_so_many_sockets() {
    let limits = Limits::default();
    let (_dir, served) = start().await;
    let (_, token) = register(&served.base, "sockets", Value::Null).await;
    let mut open = Vec::new();
    for _ in 0..limits.max_sockets {
        open.push(connect(&served.base, &token).await);
    }
    let auth = format!("Bearer {token}");
    assert_eq!(refused_status(connect_with(&served.base, &[("authorization", &auth)]).await), 429);
    // One closes (the server sees it go): room for one more.
    let mut first = open.remove(0);
    first.close(None).await.expect("closed");
    drop(first);
    let mut reopened = None;
    for _ in 0..200 {
        match connect_with(&served.base, &[("authorization", &auth)]).await {
            Ok(socket) => {
                reopened = Some(socket);
                break;
            }
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(20)).await,
        }
    }
    let mut reopened = reopened.expect("room once a socket closed");
    assert_eq!(ask(&mut reopened, &evaluation("r1", "ls", "low")).await["type"], "ack");
    // Another client has its own sockets.
    let (_, other) = register(&served.base, "other", Value::Null).await;
    connect(&served.base, &other).await;
}

#[tokio::test]
async fn a_client_may_hold_only_so_many_mcp_sessions() {
    let limits = Limits::default();
    let (_dir, served) = start().await;
    let (_, token) = register(&served.base, "agent", Value::Null).await;
    let endpoint = format!("{}/mcp/approvals", served.base);
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let open = |token: String| {
        anonymous()
            .post(&endpoint)
            .bearer_auth(token)
            .header("accept", "application/json, text/event-stream")
            .json(&initialize)
            .send()
    };
    let mut sessions = Vec::new();
    for _ in 0..limits.max_mcp_sessions {
        let res = open(token.clone()).await.expect("sent");
        assert_eq!(res.status(), StatusCode::OK);
        sessions.push(res.headers()["mcp-session-id"].to_str().expect("an id").to_string());
    }
    let (status, _, code) = code_of(open(token.clone()).await.expect("sent")).await;
    assert_eq!((status, code.as_str()), (StatusCode::TOO_MANY_REQUESTS, "too_many_connections"));
    // Another client opens its own.
    let (_, other) = register(&served.base, "other-agent", Value::Null).await;
    assert_eq!(open(other).await.expect("sent").status(), StatusCode::OK);
    // A session ended makes room.
    let res = anonymous().delete(&endpoint).bearer_auth(&token).header("mcp-session-id", &sessions[0]).send().await;
    assert!(res.expect("sent").status().is_success());
    assert_eq!(open(token).await.expect("sent").status(), StatusCode::OK);
}

/// The real binary with bounds of the test's, from the environment as an operator sets them.
async fn start_process(env: &[(&str, String)]) -> (TempDir, ServerProcess) {
    let data = tempfile::tempdir().expect("temp dir");
    let server = ServerProcess::start(data.path(), env).await;
    (data, server)
}

#[tokio::test]
async fn a_client_may_hold_only_so_many_long_polls() {
    let (_data, server) = start_process(&[("WARDEN_OUTSIDE_MAX_LONG_POLLS", "2".into())]).await;
    let base = server.base.clone();
    let (_, token) = register(&base, "poller", Value::Null).await;
    let res = post(&base, &token, &evaluation("p1", "ls", "high")).await;
    assert_eq!(res.status(), StatusCode::ACCEPTED);
    let id = res.json::<Value>().await.expect("json")["request_id"].as_str().expect("an id").to_string();
    let decision_url = format!("{base}/api/outside/requests/{id}/decision");
    let poll = move |token: String, wait: u64| {
        anonymous().get(format!("{decision_url}?wait={wait}")).bearer_auth(token).send()
    };
    // Two long-polls wait for the decision: as many as the client may hold.
    // (A probe below may hold a place for its second; a refused holder asks again.)
    let hold = |token: String| {
        let poll = poll.clone();
        async move {
            loop {
                let res = poll(token.clone(), 120).await.expect("sent");
                if res.status() != StatusCode::TOO_MANY_REQUESTS {
                    return res;
                }
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
        }
    };
    let held: Vec<_> = (0..2).map(|_| tokio::spawn(hold(token.clone()))).collect();
    // A third is refused once both are held (until then a short one is let in and answers "pending",
    // so ask again until the bound shows: a probe is refused only while both holders wait).
    let mut refused = None;
    for _ in 0..30 {
        let res = poll(token.clone(), 1).await.expect("sent");
        if res.status() == StatusCode::TOO_MANY_REQUESTS {
            refused = Some(code_of(res).await);
            break;
        }
        assert_eq!(res.status(), StatusCode::ACCEPTED, "still pending");
    }
    let (_, retry_after, code) = refused.expect("the third long-poll was refused");
    assert_eq!((retry_after, code.as_str()), (None, "too_many_connections"));
    // A poll that does not wait is not held, and another client's long-polls are its own.
    assert_eq!(poll(token.clone(), 0).await.expect("sent").status(), StatusCode::ACCEPTED);
    let (_, other) = register(&base, "other", Value::Null).await;
    let res = anonymous()
        .get(format!("{base}/api/outside/requests/{id}/decision?wait=1"))
        .bearer_auth(&other)
        .send()
        .await
        .expect("sent");
    assert_eq!(res.status(), StatusCode::NOT_FOUND, "not its request, but not refused for the poller's bound");

    // The decision answers both waiting polls, which frees their places.
    let (status, _) = decide(&base, &id, json!({"decision": "approved", "reason": "fine"})).await;
    assert_eq!(status, StatusCode::OK);
    for waiting in held {
        let res = waiting.await.expect("joined");
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(res.json::<Value>().await.expect("json")["id"], "p1");
    }
    let mut answered = None;
    for _ in 0..30 {
        let res = poll(token.clone(), 1).await.expect("sent");
        if res.status() == StatusCode::OK {
            answered = Some(res.json::<Value>().await.expect("json"));
            break;
        }
        assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS, "held places are given back as polls end");
    }
    assert_eq!(answered.expect("a long-poll once the others ended")["decision"], "approved");
}

#[tokio::test]
async fn an_idle_mcp_session_is_closed_and_makes_room() {
    let (_data, server) =
        start_process(&[("WARDEN_OUTSIDE_MAX_MCP_SESSIONS", "1".into()), ("WARDEN_OUTSIDE_MCP_IDLE_SECS", "1".into())])
            .await;
    let (_, token) = register(&server.base, "agent", Value::Null).await;
    let endpoint = format!("{}/mcp/approvals", server.base);
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let open = || {
        anonymous()
            .post(&endpoint)
            .bearer_auth(&token)
            .header("accept", "application/json, text/event-stream")
            .json(&initialize)
            .send()
    };
    let res = open().await.expect("sent");
    assert_eq!(res.status(), StatusCode::OK);
    let first = res.headers()["mcp-session-id"].to_str().expect("an id").to_string();
    // Nothing is said on it: once idle past its second, rmcp closes it, and the client may open
    // another (its owner entry went with it). Until then, the bound of one holds.
    let mut reopened = None;
    for _ in 0..200 {
        let res = open().await.expect("sent");
        if res.status() == StatusCode::OK {
            reopened = Some(res.headers()["mcp-session-id"].to_str().expect("an id").to_string());
            break;
        }
        let (status, _, code) = code_of(res).await;
        assert_eq!((status, code.as_str()), (StatusCode::TOO_MANY_REQUESTS, "too_many_connections"));
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let second = reopened.expect("room once the idle session closed");
    assert_ne!(first, second);
    // The closed session is gone for its owner too.
    let res = anonymous()
        .post(&endpoint)
        .bearer_auth(&token)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &first)
        .json(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .send()
        .await
        .expect("sent");
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
}
