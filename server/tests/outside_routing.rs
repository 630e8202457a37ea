//! Outside requests are routed by the approval policies as chat approvals are: a client's request is
//! asked by the person who registered the client; the first matching policy names who decides it, how
//! many must approve and whether the asker may; an approver's edit starts the count again on what it
//! shows; the client hears the one decision the votes add up to; each person's badge counts only what
//! is theirs to decide; the audit log names who approved, in order, and the policy.

use leptos::prelude::LeptosOptions;
use reqwest::header::{COOKIE, ORIGIN};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use warden_engine::config::Config;
use warden_types::person::{ActingPerson, Role};

use crate::common::outside::{ask, connect, evaluation, next_frame};
use crate::common::people::signed_in_as;
use crate::common::{self, anonymous, send_json, Served};

async fn served() -> (tempfile::TempDir, Served) {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::with_data_dir(dir.path());
    let served = common::serve_app(config, LeptosOptions::builder().output_name("warden").build()).await;
    (dir, served)
}

/// `method path` as the browser holding `cookie` (the founding owner by the token when `None`).
async fn send(
    served: &Served,
    cookie: Option<&str>,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let url = format!("{}{path}", served.base);
    let Some(cookie) = cookie else { return send_json(&common::client(), method, url, body).await };
    let mut request = anonymous().request(method, url).header(COOKIE, cookie).header(ORIGIN, &served.base);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// `cookie`'s person registers a client; its token.
async fn client_of(served: &Served, cookie: &str, name: &str) -> String {
    let (status, created) =
        send(served, Some(cookie), Method::POST, "/api/outside/clients", Some(json!({ "name": name }))).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    created["token"].as_str().unwrap().to_string()
}

async fn acting(served: &Served, id: &warden_types::id::PersonId) -> ActingPerson {
    let person = served.state.people.person(id).await.unwrap();
    ActingPerson { id: person.id, name: person.name, role: person.role }
}

fn error_code(body: &Value) -> Option<&str> {
    body["error"]["code"].as_str()
}

#[tokio::test]
async fn a_members_client_request_waits_for_two_approvers_who_see_it_and_an_edit_restarts_their_count() {
    let (_dir, served) = served().await;
    let (ada, ada_cookie) = signed_in_as(&served, Role::Member, "ada").await;
    let (bob, bob_cookie) = signed_in_as(&served, Role::Approver, "bob").await;
    let (cy, cy_cookie) = signed_in_as(&served, Role::Approver, "cy").await;
    let rule = json!({"name": "Two for outside commands", "match": {"source": "outside_client", "risk_at_least": "medium"},
                      "approvers": {"roles": ["approver"]}, "quorum": 2});
    let (status, policy) = send(&served, None, Method::POST, "/api/policies", Some(rule)).await;
    assert_eq!(status, StatusCode::CREATED, "{policy}");

    let token = client_of(&served, &ada_cookie, "ada-runner").await;
    let mut socket = connect(&served.base, &token).await;
    let ack = ask(&mut socket, &evaluation("r1", "rm -rf build", "high")).await;
    let request_id = ack["request_id"].as_str().expect("an ack").to_string();
    let path = format!("/api/outside/requests/{request_id}/decision");

    // Routed by the policy, asked by the client's owner.
    let (_, request) =
        send(&served, Some(&bob_cookie), Method::GET, &format!("/api/outside/requests/{request_id}"), None).await;
    assert_eq!(request["route"]["policy"]["name"], "Two for outside commands", "{request}");
    assert_eq!(
        (request["route"]["requester"]["id"].as_str(), request["route"]["quorum"].as_u64()),
        (Some(ada.as_str()), Some(2))
    );

    // Read by who asked and who decides; to a viewer and another member it does not exist.
    let (_, vera_cookie) = signed_in_as(&served, Role::Viewer, "vera").await;
    let (_, dan_cookie) = signed_in_as(&served, Role::Member, "dan").await;
    let one = format!("/api/outside/requests/{request_id}");
    assert_eq!(send(&served, Some(&ada_cookie), Method::GET, &one, None).await.0, StatusCode::OK);
    for stranger in [&vera_cookie, &dan_cookie] {
        let (status, body) = send(&served, Some(stranger), Method::GET, &one, None).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
        let (status, listed) = send(&served, Some(stranger), Method::GET, "/api/outside/requests", None).await;
        assert_eq!((status, listed), (StatusCode::OK, json!([])));
        let (status, _) =
            send(&served, Some(stranger), Method::POST, &path, Some(json!({"decision": "approved"}))).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "neither decides");
        let extend = Some(json!({"secs": 60}));
        let (status, _) = send(&served, Some(stranger), Method::POST, &format!("{one}/extend"), extend).await;
        assert!(matches!(status, StatusCode::NOT_FOUND | StatusCode::FORBIDDEN), "{status}");
    }
    // Nor does someone not signed in.
    let url = format!("{}{path}", served.base);
    let anonymous_try = anonymous().post(url).header(ORIGIN, &served.base).json(&json!({"decision": "approved"}));
    assert_eq!(anonymous_try.send().await.unwrap().status(), StatusCode::UNAUTHORIZED);
    let (_, listed) = send(&served, Some(&cy_cookie), Method::GET, "/api/outside/requests", None).await;
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "{listed}");

    // Each badge counts what is theirs to decide: the approvers', not the member's, not the owner's.
    let hub = &served.state.outside;
    assert_eq!(hub.pending_for(&acting(&served, &bob).await).await.unwrap().apart, 1);
    assert_eq!(hub.pending_for(&acting(&served, &ada).await).await.unwrap().apart, 0);
    let owner = served.state.access.founding_owner().unwrap().clone();
    assert_eq!(hub.pending_for(&acting(&served, &owner).await).await.unwrap().apart, 0);

    // The member decides nothing, and the owner is no approver of this policy: refused, by the API.
    let approve = json!({"decision": "approved"});
    let (status, body) = send(&served, Some(&ada_cookie), Method::POST, &path, Some(approve.clone())).await;
    assert_eq!((status, error_code(&body)), (StatusCode::FORBIDDEN, Some("role_not_allowed")), "{body}");
    let (status, body) = send(&served, None, Method::POST, &path, Some(approve.clone())).await;
    assert_eq!((status, error_code(&body)), (StatusCode::FORBIDDEN, Some("not_routed_to_you")), "{body}");

    // Bob approves: one of two; again: refused; the request still waits.
    let (status, voted) = send(&served, Some(&bob_cookie), Method::POST, &path, Some(approve.clone())).await;
    assert_eq!((status, voted["status"].as_str()), (StatusCode::OK, Some("pending")), "{voted}");
    assert_eq!(voted["votes"][0]["person"]["name"], "bob");
    let (status, body) = send(&served, Some(&bob_cookie), Method::POST, &path, Some(approve.clone())).await;
    assert_eq!((status, error_code(&body)), (StatusCode::CONFLICT, Some("already_voted")), "{body}");

    // Cy edits the code: what the request shows now, and Bob's approval of the other code no longer counts.
    let edit = json!({"decision": "approved", "edited_code": "rm -rf build/tmp"});
    let (status, edited) = send(&served, Some(&cy_cookie), Method::POST, &path, Some(edit.clone())).await;
    assert_eq!((status, edited["status"].as_str()), (StatusCode::OK, Some("pending")), "{edited}");
    assert_eq!(edited["shown_code"], "rm -rf build/tmp");
    assert_eq!(edited["votes"].as_array().unwrap().len(), 1, "only Cy's vote is on the edit: {edited}");
    // Bob, who read the card before the edit, approves without naming the code: refused.
    let (status, body) = send(&served, Some(&bob_cookie), Method::POST, &path, Some(approve)).await;
    assert_eq!((status, error_code(&body)), (StatusCode::CONFLICT, Some("code_changed")), "{body}");
    // Approving the code shown settles it: the client runs the edit, once.
    let (status, decided) = send(&served, Some(&bob_cookie), Method::POST, &path, Some(edit)).await;
    assert_eq!((status, decided["status"].as_str()), (StatusCode::OK, Some("approved")), "{decided}");
    assert_eq!(decided["decision"]["person"], json!(bob.as_str()));
    let frame = next_frame(&mut socket).await;
    assert_eq!(frame["type"], "decision", "{frame}");
    assert_eq!(
        (frame["decision"].as_str(), frame["edited_code"].as_str()),
        (Some("approved"), Some("rm -rf build/tmp"))
    );
    assert_eq!(
        frame["decided_by"]["detail"],
        "approved by cy, then bob (policy \u{201c}Two for outside commands\u{201d})"
    );
    let (status, body) =
        send(&served, Some(&cy_cookie), Method::POST, &path, Some(json!({"decision": "rejected"}))).await;
    assert_eq!((status, error_code(&body)), (StatusCode::CONFLICT, Some("already_decided")), "{body}");

    // The audit log names both approvers in order and the policy.
    let (status, audit) = send(&served, None, Method::GET, "/api/audit", None).await;
    assert_eq!(status, StatusCode::OK, "{audit}");
    let rows = audit["rows"].as_array().unwrap();
    let entry = &rows.iter().find(|r| r["entry"]["id"] == json!(request_id)).expect("logged")["entry"];
    assert_eq!(
        entry["how"],
        "approved by cy, then bob (policy \u{201c}Two for outside commands\u{201d}), after editing the code"
    );
    let _ = cy;
}

#[tokio::test]
async fn nobody_approves_their_own_clients_request_where_the_policy_forbids_it_and_one_deny_denies() {
    let (_dir, served) = served().await;
    let (_, bob_cookie) = signed_in_as(&served, Role::Approver, "bob").await;
    let (_, cy_cookie) = signed_in_as(&served, Role::Approver, "cy").await;
    let rule = json!({"name": "Not your own", "match": {"source": "outside_client"},
                      "approvers": {"roles": ["approver", "owner"]}, "quorum": 1, "self_approval": false});
    let (status, policy) = send(&served, None, Method::POST, "/api/policies", Some(rule)).await;
    assert_eq!(status, StatusCode::CREATED, "{policy}");

    // Bob's own client asks: Bob may not decide it, Cy may.
    let token = client_of(&served, &bob_cookie, "bob-runner").await;
    let mut socket = connect(&served.base, &token).await;
    let ack = ask(&mut socket, &evaluation("b1", "make deploy", "low")).await;
    let request_id = ack["request_id"].as_str().unwrap().to_string();
    let path = format!("/api/outside/requests/{request_id}/decision");
    let (status, body) =
        send(&served, Some(&bob_cookie), Method::POST, &path, Some(json!({"decision": "approved"}))).await;
    assert_eq!((status, error_code(&body)), (StatusCode::FORBIDDEN, Some("own_request")), "{body}");
    // Nor does the client itself, on its socket: a decision is no frame a client may send.
    let own = json!({"type": "decision", "id": "b1", "request_id": request_id, "decision": "approved",
                     "decided_by": {"kind": "person", "detail": "bob"}});
    let refused = ask(&mut socket, &own).await;
    assert_eq!((refused["type"].as_str(), refused["code"].as_str()), (Some("error"), Some("malformed")), "{refused}");
    let one = format!("/api/outside/requests/{request_id}");
    let (_, still) = send(&served, Some(&cy_cookie), Method::GET, &one, None).await;
    assert_eq!(still["status"], "pending");
    let deny = json!({"decision": "rejected", "reason": "not today"});
    let (status, denied) = send(&served, Some(&cy_cookie), Method::POST, &path, Some(deny)).await;
    assert_eq!((status, denied["status"].as_str()), (StatusCode::OK, Some("rejected")), "{denied}");
    let frame = next_frame(&mut socket).await;
    assert_eq!((frame["decision"].as_str(), frame["reason"].as_str()), (Some("rejected"), Some("not today")));
    assert_eq!(frame["decided_by"]["detail"], "denied by cy (policy \u{201c}Not your own\u{201d})");

    // With no policy matching, any owner or approver decides alone, the asker included.
    let id = policy["id"].as_str().unwrap();
    let (status, _) = send(&served, None, Method::DELETE, &format!("/api/policies/{id}"), None).await;
    assert!(status.is_success());
    let ack = ask(&mut socket, &evaluation("b2", "make test", "low")).await;
    let path = format!("/api/outside/requests/{}/decision", ack["request_id"].as_str().unwrap());
    let (status, approved) =
        send(&served, Some(&bob_cookie), Method::POST, &path, Some(json!({"decision": "approved"}))).await;
    assert_eq!((status, approved["status"].as_str()), (StatusCode::OK, Some("approved")), "{approved}");
    assert!(approved.get("route").is_some_and(|r| r["policy"].is_null()), "{approved}");
}

#[tokio::test]
async fn two_approvers_racing_to_complete_a_quorum_settle_it_once_and_the_client_hears_one_decision() {
    let (_dir, served) = served().await;
    let (_, mo_cookie) = signed_in_as(&served, Role::Member, "mo").await;
    let mut approvers = Vec::new();
    for login in ["ann", "bea", "cy"] {
        approvers.push(signed_in_as(&served, Role::Approver, login).await.1);
    }
    let rule = json!({"name": "Two of three", "match": {"source": "outside_client"}, "approvers": {"roles": ["approver"]},
                      "quorum": 2});
    let (status, policy) = send(&served, None, Method::POST, "/api/policies", Some(rule)).await;
    assert_eq!(status, StatusCode::CREATED, "{policy}");
    let token = client_of(&served, &mo_cookie, "mo-runner").await;
    let mut socket = connect(&served.base, &token).await;
    let ack = ask(&mut socket, &evaluation("race", "make release", "high")).await;
    let path = format!("/api/outside/requests/{}/decision", ack["request_id"].as_str().unwrap());
    let approve = json!({"decision": "approved"});
    let (status, first) = send(&served, Some(&approvers[0]), Method::POST, &path, Some(approve.clone())).await;
    assert_eq!((status, first["status"].as_str()), (StatusCode::OK, Some("pending")), "{first}");

    // Bea and Cy both complete it at once: exactly one of them settles it.
    let (bea, cy) = tokio::join!(
        send(&served, Some(&approvers[1]), Method::POST, &path, Some(approve.clone())),
        send(&served, Some(&approvers[2]), Method::POST, &path, Some(approve.clone())),
    );
    let mut statuses = [bea.0, cy.0];
    statuses.sort();
    assert_eq!(statuses, [StatusCode::OK, StatusCode::CONFLICT], "{} / {}", bea.1, cy.1);
    let settled = if bea.0 == StatusCode::OK { &bea.1 } else { &cy.1 };
    assert_eq!(settled["status"], "approved");
    assert_eq!(settled["votes"].as_array().map(Vec::len), Some(2), "the quorum's two votes: {settled}");
    let frame = next_frame(&mut socket).await;
    assert_eq!((frame["type"].as_str(), frame["decision"].as_str()), (Some("decision"), Some("approved")));
    // No second decision follows: the next frame is the answer to a new request.
    let next = ask(&mut socket, &evaluation("after", "ls", "low")).await;
    assert_eq!(next["type"], "ack", "{next}");
}
