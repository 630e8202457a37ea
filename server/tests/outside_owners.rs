//! Outside clients belong to the person who registered them: they see and revoke their own, an owner every
//! one; a viewer registers none; only an owner gives a client a policy of its own; a client's requests are
//! asked by its owner, and a decision names the person who made it.

use leptos::prelude::LeptosOptions;
use reqwest::header::{COOKIE, ORIGIN};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use warden_engine::config::Config;
use warden_types::person::Role;

use crate::common::outside::evaluation;
use crate::common::people::signed_in_as;
use crate::common::{self, anonymous, send_json, Served};

async fn served() -> (tempfile::TempDir, Served) {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::with_data_dir(dir.path());
    let served = common::serve_app(config, LeptosOptions::builder().output_name("warden").build()).await;
    (dir, served)
}

/// `method path` as the browser holding `cookie`, from the server's own page; the status and the JSON body.
async fn as_person(
    served: &Served,
    cookie: &str,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let mut request = anonymous()
        .request(method, format!("{}{path}", served.base))
        .header(COOKIE, cookie)
        .header(ORIGIN, &served.base);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

fn names(list: &Value) -> Vec<&str> {
    list.as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect()
}

#[tokio::test]
async fn a_client_is_seen_and_revoked_by_who_registered_it_and_by_owners_only() {
    let (_dir, served) = served().await;
    let (ada, ada_cookie) = signed_in_as(&served, Role::Member, "ada").await;
    let (_, bob_cookie) = signed_in_as(&served, Role::Approver, "bob").await;
    let (_, viewer_cookie) = signed_in_as(&served, Role::Viewer, "vera").await;

    let (status, created) =
        as_person(&served, &ada_cookie, Method::POST, "/api/outside/clients", Some(json!({ "name": "ada-runner" })))
            .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["client"]["created_by"], json!(ada.as_str()));
    let client_id = created["client"]["id"].as_str().unwrap().to_string();
    let (status, _) =
        as_person(&served, &bob_cookie, Method::POST, "/api/outside/clients", Some(json!({ "name": "bob-runner" })))
            .await;
    assert_eq!(status, StatusCode::CREATED);

    // Each sees their own; the owner (by the token) every one, with who registered it.
    let (_, ada_list) = as_person(&served, &ada_cookie, Method::GET, "/api/outside/clients", None).await;
    assert_eq!(names(&ada_list), ["ada-runner"]);
    let (_, bob_list) = as_person(&served, &bob_cookie, Method::GET, "/api/outside/clients", None).await;
    assert_eq!(names(&bob_list), ["bob-runner"]);
    let (_, all) =
        send_json(&common::client(), Method::GET, format!("{}/api/outside/clients", served.base), None).await;
    assert_eq!(names(&all), ["ada-runner", "bob-runner"]);
    assert_eq!(all[0]["created_by"], json!(ada.as_str()));

    // Another's client is not found for them (its id says nothing), and stays active.
    let path = format!("/api/outside/clients/{client_id}");
    let (status, body) = as_person(&served, &bob_cookie, Method::DELETE, &path, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");

    // A viewer registers and lists nothing.
    let (status, _) =
        as_person(&served, &viewer_cookie, Method::POST, "/api/outside/clients", Some(json!({ "name": "v" }))).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _) = as_person(&served, &viewer_cookie, Method::GET, "/api/outside/clients", None).await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    // A policy of its own can approve without asking: an owner's to give, not a member's.
    let trusting = json!({ "name": "auto", "policy": { "security_evaluation": "high" } });
    let (status, body) =
        as_person(&served, &ada_cookie, Method::POST, "/api/outside/clients", Some(trusting.clone())).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::FORBIDDEN, Some("forbidden")), "{body}");
    let (status, _) = as_person(&served, &ada_cookie, Method::PUT, &format!("{path}/policy"), Some(json!({}))).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _) =
        send_json(&common::client(), Method::POST, format!("{}/api/outside/clients", served.base), Some(trusting))
            .await;
    assert_eq!(status, StatusCode::CREATED);

    // Ada revokes her own.
    let (status, revoked) = as_person(&served, &ada_cookie, Method::DELETE, &path, None).await;
    assert_eq!(status, StatusCode::OK, "{revoked}");
    assert!(revoked["revoked_at"].is_string());
}

#[tokio::test]
async fn a_clients_request_is_asked_by_its_owner_and_its_decision_names_who_decided() {
    let (_dir, served) = served().await;
    let (ada, ada_cookie) = signed_in_as(&served, Role::Member, "ada").await;
    let (bob, bob_cookie) = signed_in_as(&served, Role::Approver, "bob").await;
    let (_, created) =
        as_person(&served, &ada_cookie, Method::POST, "/api/outside/clients", Some(json!({ "name": "ada-runner" })))
            .await;
    let token = created["token"].as_str().unwrap().to_string();

    let asked = anonymous()
        .post(format!("{}/api/outside/requests", served.base))
        .header("authorization", format!("Bearer {token}"))
        .json(&evaluation("r1", "rm -rf build", "medium"))
        .send()
        .await
        .unwrap();
    assert_eq!(asked.status(), StatusCode::ACCEPTED);
    let request_id = asked.json::<Value>().await.unwrap()["request_id"].as_str().unwrap().to_string();

    let (_, request) =
        as_person(&served, &bob_cookie, Method::GET, &format!("/api/outside/requests/{request_id}"), None).await;
    assert_eq!(request["asked_by"], json!(ada.as_str()), "{request}");

    let decision = json!({ "decision": "approved", "reason": "build dir only" });
    let path = format!("/api/outside/requests/{request_id}/decision");
    let (status, decided) = as_person(&served, &bob_cookie, Method::POST, &path, Some(decision)).await;
    assert_eq!(status, StatusCode::OK, "{decided}");
    assert_eq!(decided["decision"]["person"], json!(bob.as_str()), "{decided}");
    assert_eq!(decided["decision"]["decided_by"]["kind"], "person");
}
