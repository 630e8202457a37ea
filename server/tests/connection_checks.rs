//! Answering a connection check over real HTTP, on the whole app behind the real access gate: the
//! REST route and the page's server function need the token and the right Host, refuse another
//! origin before anything changes, apply only to the check they name while it is pending (409
//! after), and report an unknown check as 404. The run is real: the scripted model calls a tool of
//! the rmcp fixture server, which is disabled.

use crate::common;

use std::time::Duration;

use leptos::prelude::LeptosOptions;
use leptos::server_fn::ServerFn;
use reqwest::header::{CONTENT_TYPE, COOKIE, HOST, ORIGIN, SET_COOKIE};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use warden_app::server_fns::DecideConnectionCheck;
use warden_engine::config::{Config, ModelConfig};
use warden_mcp::McpServerConfig;
use warden_mcp_fixture::{binary as fixture_bin, PATIENCE};
use warden_testkit::{FixtureModel, Scenario, Script, ScriptedCall, Turn};
use warden_types::connection::{CheckStatus, ConnectionCheck};

use crate::common::{anonymous, client, send_json, TOKEN};

fn script() -> Script {
    Script {
        scenarios: vec![Scenario::new(
            "echo please",
            vec![
                Turn::calls(vec![ScriptedCall::new("fx__echo", json!({"text": "hi"}))]),
                Turn { echo_tool_results: true, ..Turn::text("Echoed.") },
            ],
        )],
        default_title: None,
    }
}

async fn error_code(res: reqwest::Response) -> (StatusCode, String) {
    let status = res.status();
    let body: Value = res.json().await.unwrap_or(Value::Null);
    (status, body["error"]["code"].as_str().unwrap_or("<not the JSON error>").to_string())
}

#[tokio::test]
async fn a_connection_check_is_answered_only_by_the_person_only_while_pending_and_only_the_one_named() {
    let dir = tempfile::tempdir().expect("temp dir");
    let model = FixtureModel::start(script()).await.expect("fixture model");
    let mut config = Config::with_data_dir(dir.path());
    config.model = Some(ModelConfig { base_url: model.base_url(), api_key: None, model: "fixture".into() });
    let served = common::serve_app(config, LeptosOptions::builder().output_name("warden").build()).await;
    let (engine, hub) = (served.engine().clone(), served.mcp().clone());
    let url = |path: &str| format!("{}{}", served.base, path);

    // The fixture, known from one connection, then switched off.
    let fixture = warden_mcp::Transport::Stdio {
        command: fixture_bin().display().to_string(),
        args: vec![],
        env: Default::default(),
    };
    hub.upsert(McpServerConfig::new("fx", fixture)).await.expect("saved");
    let connected = tokio::time::timeout(PATIENCE, async {
        while hub.get("fx").is_none_or(|s| s.state != warden_mcp::ServerState::Connected) {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    connected.await.expect("the fixture connects");
    hub.set_enabled("fx", false).await.expect("disabled");

    let thread = engine.create_thread(None).await.expect("thread");
    engine.send_message(&thread.id, "echo please".into(), &crate::common::owner()).await.expect("sent");
    let check: ConnectionCheck = tokio::time::timeout(PATIENCE, async {
        loop {
            let detail = engine.thread(&thread.id).await.expect("thread");
            if let Some(check) = detail.connection_checks.into_iter().find(|c| c.status == CheckStatus::Pending) {
                return check;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the run asks about fx");
    let route = url(&format!("/api/connection_checks/{}", check.id));
    let answer = json!({"decision": "continue_without"});

    // Nobody but the person, from Warden's own host and origin, can answer.
    let res = anonymous().post(&route).json(&answer).send().await.expect("request");
    assert_eq!(error_code(res).await, (StatusCode::UNAUTHORIZED, "unauthorized".into()));
    let res = client().post(&route).header(ORIGIN, "http://evil.example").json(&answer).send().await.expect("request");
    assert_eq!(error_code(res).await, (StatusCode::FORBIDDEN, "cross_origin".into()));
    let evil = format!("evil.example:{}", served.addr.port());
    let res = client().post(&route).header(HOST, &evil).json(&answer).send().await.expect("request");
    assert_eq!(error_code(res).await, (StatusCode::FORBIDDEN, "host_not_allowed".into()));
    let signed_in = anonymous().get(url(&format!("/?token={TOKEN}"))).send().await.expect("request");
    let cookie = signed_in.headers()[SET_COOKIE].to_str().expect("ascii").split(';').next().expect("pair").to_string();
    let by_page = json!({"id": check.id, "decision": "continue_without"}).to_string();
    let res = anonymous()
        .post(url(DecideConnectionCheck::PATH))
        .header(COOKIE, &cookie)
        .header(ORIGIN, "http://evil.example")
        .header(CONTENT_TYPE, "application/json")
        .body(by_page.clone())
        .send()
        .await
        .expect("request");
    assert_eq!(res.status(), StatusCode::FORBIDDEN, "another site's page, with the person's cookie");
    let (s, body) = send_json(&client(), Method::POST, route.clone(), Some(json!({"decision": "maybe"}))).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let (s, shown) = send_json(&client(), Method::GET, route.clone(), None).await;
    assert_eq!((s, shown["status"].as_str()), (StatusCode::OK, Some("pending")), "nothing changed it: {shown}");
    let unknown = url("/api/connection_checks/no-such-check");
    let (s, body) = send_json(&client(), Method::POST, unknown, Some(answer.clone())).await;
    assert_eq!((s, body["error"]["code"].as_str()), (StatusCode::NOT_FOUND, Some("not_found")), "{body}");

    // The page's own answer, signed in and from its own origin, is applied.
    let res = anonymous()
        .post(url(DecideConnectionCheck::PATH))
        .header(COOKIE, &cookie)
        .header(ORIGIN, served.base.clone())
        .header(CONTENT_TYPE, "application/json")
        .body(by_page)
        .send()
        .await
        .expect("request");
    assert_eq!(res.status(), StatusCode::OK);
    let decided: Value = res.json().await.expect("JSON");
    assert_eq!(decided["status"], "continued_without", "{decided}");

    // Once decided: 409 from the API, for either answer.
    for decision in ["connect", "continue_without"] {
        let (s, body) = send_json(&client(), Method::POST, route.clone(), Some(json!({"decision": decision}))).await;
        assert_eq!((s, body["error"]["code"].as_str()), (StatusCode::CONFLICT, Some("already_decided")), "{body}");
    }
    assert!(!hub.get("fx").expect("fx").enabled, "no Connect got through");
    hub.shutdown().await;
    engine.shutdown();
}
