//! Every route and every server function, called by a stranger and by a person of each role: each reaches
//! exactly what their role allows. The routes come from the router's own rule list and the server functions
//! from their registry, so a route or a function added without a rule fails here.

use std::time::Duration;

use leptos::prelude::LeptosOptions;
use reqwest::header::COOKIE;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use warden_engine::config::Config;
use warden_server::access::roles::Need;
use warden_server::access::server_fn_rules;
use warden_server::AppState;
use warden_types::person::Role;

use crate::common::{self, anonymous, Served};

use crate::common::people::PASSWORD;

/// A person of `role` with a signed-in browser: the `Cookie` header value that is theirs.
async fn signed_in(served: &Served, role: Role) -> String {
    common::people::signed_in_as(served, role, role.as_str()).await.1
}

/// A route's path with a made-up value for each parameter.
fn concrete(path: &str) -> String {
    path.split('/').map(|part| if part.starts_with('{') { "no-such-thing" } else { part }).collect::<Vec<_>>().join("/")
}

/// Sends `method path` with `cookie` (and `{}` when the method carries a body); the status and, when it is
/// a refusal, the body's error code. Only the head is awaited: an event stream that is let in never ends.
async fn call(served: &Served, cookie: Option<&str>, method: Method, path: &str) -> (StatusCode, Option<String>) {
    let mut request =
        anonymous().request(method.clone(), format!("{}{path}", served.base)).timeout(Duration::from_secs(60));
    if let Some(cookie) = cookie {
        request = request.header(COOKIE, cookie);
    }
    if !matches!(method, Method::GET | Method::DELETE) {
        request = request.json(&json!({}));
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let code = if matches!(status, StatusCode::FORBIDDEN | StatusCode::UNAUTHORIZED) {
        let body: Value = response.json().await.unwrap_or(Value::Null);
        body["error"]["code"].as_str().or(body["code"].as_str()).map(str::to_string)
    } else {
        None
    };
    (status, code)
}

async fn served() -> (tempfile::TempDir, Served) {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::with_data_dir(dir.path());
    let served = common::serve_app(config, LeptosOptions::builder().output_name("warden").build()).await;
    (dir, served)
}

#[tokio::test]
async fn every_route_admits_exactly_the_roles_its_rule_names_and_no_stranger() {
    let (_dir, served) = served().await;
    let mut people = Vec::new();
    for role in [Role::Viewer, Role::Member, Role::Approver, Role::Owner] {
        people.push((role, signed_in(&served, role).await));
    }
    let rules = warden_server::api::routes::<AppState>();
    let mut checked = 0;
    for rule in rules.rules() {
        let Some(method) = rule.method.clone() else { continue };
        if matches!(rule.need, Need::Public | Need::OutsideClient) {
            continue;
        }
        let path = concrete(rule.path);
        let (status, _) = call(&served, None, method.clone(), &path).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "a stranger at {method} {path}");
        for (role, cookie) in &people {
            let (status, code) = call(&served, Some(cookie), method.clone(), &path).await;
            if rule.need.allows(*role) {
                let reached = !matches!(status, StatusCode::FORBIDDEN | StatusCode::UNAUTHORIZED);
                assert!(reached, "{role:?} must reach {method} {path} ({:?}), got {status}", rule.need);
            } else {
                assert_eq!(
                    (status, code.as_deref()),
                    (StatusCode::FORBIDDEN, Some("role_not_allowed")),
                    "{role:?} must not reach {method} {path} ({:?})",
                    rule.need
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 150, "only {checked} calls were checked");
}

#[tokio::test]
async fn every_server_function_has_a_rule_and_admits_exactly_its_roles() {
    let (_dir, served) = served().await;
    let registered: Vec<&str> = leptos::server_fn::axum::server_fn_paths().map(|(path, _)| path).collect();
    let without: Vec<&&str> = registered.iter().filter(|p| server_fn_rules::need(p).is_none()).collect();
    assert!(without.is_empty(), "server functions without an access rule: {without:?}");
    let mut people = Vec::new();
    for role in [Role::Viewer, Role::Member, Role::Approver, Role::Owner] {
        people.push((role, signed_in(&served, role).await));
    }
    for path in &registered {
        let need = server_fn_rules::need(path).unwrap();
        let (status, _) = call(&served, None, Method::POST, path).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "a stranger at {path}");
        for (role, cookie) in &people {
            let (status, code) = call(&served, Some(cookie), Method::POST, path).await;
            if need.allows(*role) {
                let reached = !matches!(status, StatusCode::FORBIDDEN | StatusCode::UNAUTHORIZED);
                assert!(reached, "{role:?} must reach {path} ({need:?}), got {status}");
            } else {
                assert_eq!(
                    (status, code.as_deref()),
                    (StatusCode::FORBIDDEN, Some("role_not_allowed")),
                    "{role:?} must not reach {path} ({need:?})"
                );
            }
        }
    }
}

#[tokio::test]
async fn a_disabled_account_is_signed_out_at_once_and_cannot_come_back() {
    let (_dir, served) = served().await;
    let member = signed_in(&served, Role::Member).await;
    let (status, _) = call(&served, Some(&member), Method::GET, "/api/threads").await;
    assert_eq!(status, StatusCode::OK);
    let state = &served.state;
    let owner = state.access.founding_owner().unwrap().clone();
    let id = state.people.list().await.unwrap().into_iter().find(|p| p.role == Role::Member).unwrap().id;
    state.people.disable(&owner, &id).await.unwrap();
    let (status, _) = call(&served, Some(&member), Method::GET, "/api/threads").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "a disabled person's cookie opens nothing");
    assert_eq!(state.people.sign_in("member", PASSWORD).await.unwrap(), None);
}

/// `method path` with `cookie` and `body`: the status and the error code of a refusal.
async fn send(
    served: &Served,
    cookie: Option<&str>,
    method: Method,
    path: &str,
    body: Value,
) -> (StatusCode, Option<String>) {
    let mut request = anonymous().request(method.clone(), format!("{}{path}", served.base)).json(&body);
    if let Some(cookie) = cookie {
        request = request.header(COOKIE, cookie);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let answer: Value = response.json().await.unwrap_or(Value::Null);
    (status, answer["error"]["code"].as_str().map(str::to_string))
}

#[tokio::test]
async fn a_threads_sharing_is_its_owners_alone() {
    let (_dir, served) = served().await;
    let member = signed_in(&served, Role::Member).await;
    let (status, _) = send(&served, Some(&member), Method::POST, "/api/threads", json!({ "title": "Mine" })).await;
    assert_eq!(status, StatusCode::CREATED);
    let thread = served.engine().list_threads(Default::default()).await.unwrap().remove(0).id;
    let path = format!("/api/threads/{thread}/sharing");
    let everyone = json!({ "with": "everyone" });
    let viewer = signed_in(&served, Role::Viewer).await;
    let approver = signed_in(&served, Role::Approver).await;
    let owner = signed_in(&served, Role::Owner).await;

    for method in [Method::GET, Method::PUT] {
        let (status, _) = send(&served, None, method.clone(), &path, everyone.clone()).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "a stranger at {method}");
        // Not theirs and not shared with them: there is no such thread.
        let (status, _) = send(&served, Some(&approver), method.clone(), &path, everyone.clone()).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "another member at {method}");
        // An owner by role reads the thread, but its sharing is its owner's to see and change.
        let (status, code) = send(&served, Some(&owner), method.clone(), &path, everyone.clone()).await;
        assert_eq!((status, code.as_deref()), (StatusCode::FORBIDDEN, Some("not_thread_owner")), "{method}");
    }
    let (status, _) = send(&served, Some(&viewer), Method::GET, &path, Value::Null).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "a viewer it is not shared with");
    let (status, code) = send(&served, Some(&viewer), Method::PUT, &path, everyone.clone()).await;
    assert_eq!((status, code.as_deref()), (StatusCode::FORBIDDEN, Some("role_not_allowed")), "a viewer writes nothing");

    let (status, _) = send(&served, Some(&member), Method::PUT, &path, everyone.clone()).await;
    assert_eq!(status, StatusCode::OK, "its owner shares it");
    // Shared with everyone: readable, so still not theirs to change (403, not 404).
    let (status, code) = send(&served, Some(&approver), Method::PUT, &path, json!({ "with": "private" })).await;
    assert_eq!((status, code.as_deref()), (StatusCode::FORBIDDEN, Some("not_thread_owner")));
    let (status, code) = send(&served, Some(&viewer), Method::GET, &path, Value::Null).await;
    assert_eq!((status, code.as_deref()), (StatusCode::FORBIDDEN, Some("not_thread_owner")));
}

/// The routes a person signs in on without being signed in (the gate answers them, not the router): open to
/// a stranger, but only on an allowed host, and their `POST`s only from this server's own pages.
const SIGN_IN_ROUTES: [(Method, &str); 8] = [
    (Method::GET, "/sign-in"),
    (Method::POST, "/sign-in/passkey/options"),
    (Method::POST, "/sign-in/passkey"),
    (Method::GET, "/sign-in/oidc"),
    (Method::GET, "/sign-in/oidc/callback"),
    (Method::GET, "/invite/no-such-thing"),
    (Method::POST, "/invite/no-such-thing/passkey/options"),
    (Method::POST, "/invite/no-such-thing/passkey"),
];

#[tokio::test]
async fn the_sign_in_routes_answer_strangers_only_on_our_host_and_from_our_pages() {
    let (_dir, served) = served().await;
    for (method, path) in SIGN_IN_ROUTES {
        let url = format!("{}{path}", served.base);
        let rebound = anonymous().request(method.clone(), &url).header(reqwest::header::HOST, "evil.example");
        let rebound = rebound.json(&json!({})).send().await.unwrap();
        assert_eq!(rebound.status(), StatusCode::FORBIDDEN, "{method} {path} on another host name");
        if method == Method::POST {
            let foreign = anonymous().post(&url).header(reqwest::header::ORIGIN, "http://evil.example");
            let foreign = foreign.json(&json!({})).send().await.unwrap();
            assert_eq!(foreign.status(), StatusCode::FORBIDDEN, "{method} {path} from another site");
        }
        let ours = anonymous().request(method.clone(), &url).header(reqwest::header::ORIGIN, served.base.clone());
        let ours = ours.json(&json!({})).send().await.unwrap();
        assert_ne!(ours.status(), StatusCode::FORBIDDEN, "{method} {path} from our own page");
    }
}
