//! Who may use the outside approvals, over real HTTP and a real WebSocket: a client needs its own
//! token (not the person's, not in the address, not revoked), from an allowed host and origin; the
//! person's routes do not open to a client token.

use crate::common;

use reqwest::header::{HOST, ORIGIN};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use tempfile::TempDir;
use warden_engine::config::Config;

use crate::common::outside::{ask, closed_with, connect, connect_with, evaluation, refused_status, register};
use crate::common::{anonymous, Served, TOKEN};

async fn start() -> (TempDir, Served) {
    let dir = tempfile::tempdir().expect("temp dir");
    let served = common::serve_api(Config::with_data_dir(dir.path())).await;
    (dir, served)
}

fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

async fn error_code(res: reqwest::Response) -> (StatusCode, String) {
    let status = res.status();
    let body: Value = res.json().await.unwrap_or(Value::Null);
    (status, body["error"]["code"].as_str().unwrap_or("<not the JSON error>").to_string())
}

#[tokio::test]
async fn the_socket_needs_a_valid_client_token() {
    let (_dir, served) = start().await;
    let (_, token) = register(&served.base, "runner", Value::Null).await;
    assert_eq!(refused_status(connect_with(&served.base, &[]).await), 401);
    assert_eq!(refused_status(connect_with(&served.base, &[("authorization", "Bearer wo_0000")]).await), 401);
    // The person's token is not a client's.
    assert_eq!(refused_status(connect_with(&served.base, &[("authorization", &bearer(TOKEN))]).await), 401);
    // A token in the address is refused outright, even a valid one.
    let in_query = format!("{}?token={token}", served.base.replacen("http://", "ws://", 1) + "/ws/approvals");
    let refused = tokio_tungstenite::connect_async(in_query).await;
    assert_eq!(refused_status(refused.map(|(socket, _)| socket)), 400);
    let mut socket = connect(&served.base, &token).await;
    assert_eq!(ask(&mut socket, &evaluation("r1", "ls", "low")).await["type"], "ack");
}

#[tokio::test]
async fn revoking_a_client_closes_its_socket_and_refuses_its_token_everywhere() {
    let (_dir, served) = start().await;
    let (client_id, token) = register(&served.base, "runner", Value::Null).await;
    let mut socket = connect(&served.base, &token).await;
    let res = common::client().delete(format!("{}/api/outside/clients/{client_id}", served.base)).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let closed = closed_with(&mut socket).await;
    assert_eq!(closed, Some(1008));

    let header = [("authorization", bearer(&token))];
    let header: Vec<(&str, &str)> = header.iter().map(|(n, v)| (*n, v.as_str())).collect();
    assert_eq!(refused_status(connect_with(&served.base, &header).await), 401);
    let res = anonymous()
        .post(format!("{}/api/outside/requests", served.base))
        .header("authorization", bearer(&token))
        .json(&evaluation("r2", "ls", "low"))
        .send()
        .await
        .unwrap();
    assert_eq!(error_code(res).await, (StatusCode::UNAUTHORIZED, "unauthorized".to_string()));
    let (_, clients) =
        common::send_json(&common::client(), Method::GET, format!("{}/api/outside/clients", served.base), None).await;
    assert!(clients[0]["revoked_at"].is_string(), "{clients}");
}

#[tokio::test]
async fn the_socket_refuses_a_foreign_origin_or_host_and_takes_no_origin_or_our_own() {
    let (_dir, served) = start().await;
    let (_, token) = register(&served.base, "runner", Value::Null).await;
    let auth = bearer(&token);
    let with = |extra: (&'static str, String)| vec![("authorization", auth.clone()), (extra.0, extra.1)];
    for headers in [
        with(("origin", "https://evil.example".into())),
        with(("origin", "null".into())),
        with(("sec-fetch-site", "cross-site".into())),
        with(("host", "evil.example".into())),
    ] {
        let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
        assert_eq!(refused_status(connect_with(&served.base, &headers).await), 403, "{headers:?}");
    }
    let own = format!("http://127.0.0.1:{}", served.addr.port());
    let mut socket =
        connect_with(&served.base, &[("authorization", &auth), ("origin", &own)]).await.expect("own origin");
    assert_eq!(ask(&mut socket, &evaluation("r1", "ls", "low")).await["type"], "ack");
}

#[tokio::test]
async fn client_routes_refuse_the_person_and_person_routes_refuse_a_client() {
    let (_dir, served) = start().await;
    let (client_id, token) = register(&served.base, "runner", Value::Null).await;
    let base = &served.base;
    let http = anonymous();
    // A client's routes: nothing, or the person's token, is not a client.
    for auth in [None, Some(bearer(TOKEN))] {
        let mut req = http.post(format!("{base}/api/outside/requests")).json(&evaluation("r1", "ls", "low"));
        if let Some(auth) = &auth {
            req = req.header("authorization", auth);
        }
        assert_eq!(error_code(req.send().await.unwrap()).await.0, StatusCode::UNAUTHORIZED, "{auth:?}");
    }
    // A request the client made, so the person's routes have something to show.
    let res = http
        .post(format!("{base}/api/outside/requests"))
        .header("authorization", bearer(&token))
        .json(&evaluation("r1", "ls", "low"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::ACCEPTED);
    let request_id = res.json::<Value>().await.unwrap()["request_id"].as_str().unwrap().to_string();
    let res = http.get(format!("{base}/api/outside/requests/{request_id}/decision?wait=0")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);

    // The person's routes with the client's token: refused, and nothing changed.
    let person_routes = [
        (Method::GET, format!("{base}/api/outside/requests?status=pending"), None),
        (Method::GET, format!("{base}/api/outside/requests/{request_id}"), None),
        (
            Method::POST,
            format!("{base}/api/outside/requests/{request_id}/decision"),
            Some(json!({"decision": "approved"})),
        ),
        (Method::POST, format!("{base}/api/outside/requests/{request_id}/extend"), Some(json!({"secs": 60}))),
        (Method::GET, format!("{base}/api/outside/clients"), None),
        (Method::POST, format!("{base}/api/outside/clients"), Some(json!({"name": "mine"}))),
        (Method::DELETE, format!("{base}/api/outside/clients/{client_id}"), None),
        (
            Method::PUT,
            format!("{base}/api/outside/clients/{client_id}/policy"),
            Some(json!({"security_evaluation": "high"})),
        ),
        (Method::PUT, format!("{base}/api/outside/policy"), Some(json!({"security_evaluation": "high"}))),
        (Method::GET, format!("{base}/api/outside/policy"), None),
        (Method::GET, format!("{base}/api/outside/executors"), None),
        (Method::POST, format!("{base}/api/outside/executors"), Some(json!({"name": "x", "url": "ws://127.0.0.1:9/"}))),
        (Method::GET, format!("{base}/api/outside/executors/nope"), None),
        (Method::DELETE, format!("{base}/api/outside/executors/nope"), None),
        (Method::PUT, format!("{base}/api/outside/executors/nope/enabled"), Some(json!({"enabled": false}))),
        (Method::GET, format!("{base}/api/inbox/events"), None),
        (Method::GET, format!("{base}/api/audit"), None),
        (Method::GET, format!("{base}/api/audit.jsonl"), None),
        (Method::GET, format!("{base}/api/audit.csv"), None),
        (Method::GET, format!("{base}/api/threads"), None),
    ];
    // Neither a stranger (no token) nor a client's token opens any of them.
    for (method, url, body) in person_routes {
        for auth in [None, Some(bearer(&token))] {
            let mut req = http.request(method.clone(), &url);
            if let Some(auth) = &auth {
                req = req.header("authorization", auth);
            }
            if let Some(body) = &body {
                req = req.json(body);
            }
            let status = error_code(req.send().await.unwrap()).await.0;
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{method} {url} with {auth:?}");
        }
    }
    let (_, executors) =
        common::send_json(&common::client(), Method::GET, format!("{base}/api/outside/executors"), None).await;
    assert_eq!(executors, json!([]), "no executor was added");
    let (_, request) =
        common::send_json(&common::client(), Method::GET, format!("{base}/api/outside/requests/{request_id}"), None)
            .await;
    assert_eq!(request["status"], "pending");
}

#[tokio::test]
async fn a_cross_origin_or_foreign_host_request_is_refused_even_with_a_client_token() {
    let (_dir, served) = start().await;
    let (_, token) = register(&served.base, "runner", Value::Null).await;
    let url = format!("{}/api/outside/requests", served.base);
    let res = anonymous()
        .post(&url)
        .header("authorization", bearer(&token))
        .header(ORIGIN, "https://evil.example")
        .json(&evaluation("r1", "ls", "low"))
        .send()
        .await
        .unwrap();
    assert_eq!(error_code(res).await, (StatusCode::FORBIDDEN, "cross_origin".to_string()));
    let res = anonymous()
        .post(&url)
        .header("authorization", bearer(&token))
        .header(HOST, "evil.example")
        .json(&evaluation("r1", "ls", "low"))
        .send()
        .await
        .unwrap();
    assert_eq!(error_code(res).await, (StatusCode::FORBIDDEN, "host_not_allowed".to_string()));
    // Neither was stored.
    let (_, list) =
        common::send_json(&common::client(), Method::GET, format!("{}/api/outside/requests", served.base), None).await;
    assert_eq!(list, json!([]));
    let mut socket = connect(&served.base, &token).await;
    assert_eq!(ask(&mut socket, &evaluation("r1", "ls", "low")).await["type"], "ack");
}
