//! Approval policies over real HTTP on the whole app, a real SQLite file and the scripted fixture model:
//! a member's run waits for the approvers a policy names; a quorum needs that many distinct approvers, and
//! when two race exactly one settles it and the run goes on once; nobody approves their own request where the
//! policy says so (the API and the server function alike); an edit starts the count again; each person's
//! inbox lists what is routed to them; a viewer and a member decide nothing.

use std::time::Duration;

use leptos::prelude::LeptosOptions;
use leptos::server_fn::ServerFn;
use reqwest::header::COOKIE;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use tempfile::TempDir;
use warden_app::server_fns::approvals::DecideApproval;
use warden_engine::config::{Config, ModelConfig};
use warden_people::NewInvitation;
use warden_testkit::{FixtureModel, Scenario, Script, ScriptedCall, Turn};
use warden_types::approval::{Approval, ApprovalStatus};
use warden_types::id::{PersonId, ThreadId};
use warden_types::person::Role;
use warden_types::run::ToolCallStatus;

use crate::common::{self, anonymous, client, send_json, Served};

const PASSWORD: &str = "correct horse battery staple";

/// A person with a signed-in browser.
struct Someone {
    id: PersonId,
    cookie: String,
}

struct App {
    _dir: TempDir,
    _model: FixtureModel,
    served: Served,
}

/// A scenario: the prompt `when` makes the model write `file` (new: medium risk), then say `done`.
fn writes(when: &str, file: &str) -> Scenario {
    let call = ScriptedCall::new("write_file", json!({"path": file, "content": format!("{when}\n")}));
    Scenario::new(when, vec![Turn::calls(vec![call]), Turn::text("done")])
}

impl App {
    async fn start() -> App {
        let dir = tempfile::tempdir().unwrap();
        let scenarios =
            ["race", "mine", "edit", "route", "inbox", "roles", "judge"].map(|w| writes(w, &format!("{w}.txt")));
        let model = FixtureModel::start(Script { scenarios: scenarios.to_vec(), default_title: None }).await.unwrap();
        let mut config = Config::with_data_dir(dir.path());
        config.model = Some(ModelConfig { base_url: model.base_url(), api_key: None, model: "fixture".into() });
        let served = common::serve_app(config, LeptosOptions::builder().output_name("warden").build()).await;
        App { _dir: dir, _model: model, served }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.served.base)
    }

    /// A new person of `role` (named `login`), signed in.
    async fn person(&self, role: Role, login: &str) -> Someone {
        let state = &self.served.state;
        let owner = state.access.founding_owner().unwrap().clone();
        let (_, secret) = state.people.invite(&owner, NewInvitation::new(role)).await.unwrap();
        let person = state.people.accept_invitation(secret.expose(), login, login, PASSWORD).await.unwrap();
        let started = state.sessions.start(&person.id, None, None).await.unwrap();
        Someone { id: person.id, cookie: format!("{}={}", state.access.cookie().name(false), started.secret.expose()) }
    }

    /// `method path` as `who` (the founding owner by the token when `None`), with a JSON body.
    async fn send(
        &self,
        who: Option<&Someone>,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        match who {
            None => send_json(&client(), method, self.url(path), body).await,
            Some(who) => {
                let mut request = anonymous().request(method, self.url(path)).header(COOKIE, &who.cookie);
                if let Some(body) = body {
                    request = request.json(&body);
                }
                let response = request.send().await.unwrap();
                let status = response.status();
                (status, response.json().await.unwrap_or(Value::Null))
            }
        }
    }

    /// The owner adds a policy; its id.
    async fn policy(&self, body: Value) -> String {
        let (status, policy) = self.send(None, Method::POST, "/api/policies", Some(body)).await;
        assert_eq!(status, StatusCode::CREATED, "{policy}");
        policy["id"].as_str().unwrap().to_string()
    }

    /// `who` starts a chat with `prompt`; the card its run waits on.
    async fn card(&self, who: Option<&Someone>, prompt: &str) -> Approval {
        let (status, thread) = self.send(who, Method::POST, "/api/threads", Some(json!({}))).await;
        assert_eq!(status, StatusCode::CREATED, "{thread}");
        let thread_id = ThreadId::from(thread["id"].as_str().unwrap());
        let path = format!("/api/threads/{thread_id}/messages");
        // The answer is the run's event stream; the run goes on without it.
        let mut request = match who {
            None => client().post(self.url(&path)),
            Some(who) => anonymous().post(self.url(&path)).header(COOKIE, &who.cookie),
        };
        request = request.json(&json!({"content": prompt}));
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        drop(response);
        let engine = self.served.engine().clone();
        tokio::time::timeout(Duration::from_secs(30), async move {
            loop {
                let pending = engine.list_approvals(Some(ApprovalStatus::Pending)).await.unwrap();
                if let Some(card) = pending.into_iter().find(|a| a.thread_id == thread_id) {
                    return card;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await
        .expect("the card in time")
    }

    /// `who` decides `card` by the API.
    async fn decide(&self, who: Option<&Someone>, card: &Approval, body: Value) -> (StatusCode, Value) {
        self.send(who, Method::POST, &format!("/api/approvals/{}", card.id), Some(body)).await
    }

    /// `who` approves `card` from the inbox's batch bar (the server function, which names no arguments); what
    /// the batch answers.
    async fn batch_approve(&self, who: &Someone, card: &Approval) -> Value {
        let batch = json!({"keys": [{"source": "chat", "id": card.id}], "verdict": "approve"});
        let response = anonymous()
            .post(self.url(warden_app::server_fns::inbox::DecideBatch::PATH))
            .header(COOKIE, &who.cookie)
            .json(&batch)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        response.json().await.unwrap()
    }

    /// The call of `card` once it ended (its result settled).
    async fn ended_call(&self, card: &Approval) -> warden_types::run::ToolCallRecord {
        let engine = self.served.engine().clone();
        let id = card.tool_call_id.clone();
        tokio::time::timeout(Duration::from_secs(30), async move {
            loop {
                let call = engine.tool_call(&id).await.unwrap();
                if call.status.is_settled() {
                    return call;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await
        .expect("the call ran in time")
    }

    fn workspace_file(&self, name: &str) -> String {
        std::fs::read_to_string(self.served.engine().config().workspace.join(name)).unwrap()
    }
}

fn approve() -> Value {
    json!({"decision": "approve"})
}

/// A batch's answer that counts only `these` (every other count 0).
fn counted(these: Value) -> Value {
    let mut all = json!({"decided": 0, "already_decided": 0, "changed": 0, "already_voted": 0});
    all.as_object_mut().unwrap().extend(these.as_object().unwrap().clone());
    all
}

#[tokio::test]
async fn two_approvers_racing_to_complete_a_quorum_settle_it_once_and_the_run_goes_on_once() {
    let app = App::start().await;
    let member = app.person(Role::Member, "mo").await;
    let (ann, bea, cy) = (
        app.person(Role::Approver, "ann").await,
        app.person(Role::Approver, "bea").await,
        app.person(Role::Approver, "cy").await,
    );
    app.policy(json!({
        "name": "Two for writes",
        "match": {"tool": "write_*"},
        "approvers": {"roles": ["approver"]},
        "quorum": 2,
    }))
    .await;
    let card = app.card(Some(&member), "race").await;
    let route = card.route.as_ref().unwrap();
    assert_eq!((route.quorum, route.self_approval), (2, false));
    assert_eq!(route.requester.as_ref().map(|r| &r.id), Some(&member.id));

    let (status, first) = app.decide(Some(&ann), &card, approve()).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    assert_eq!(first["status"], "pending", "one of two: it waits");
    assert_eq!(first["votes"][0]["person"]["name"], "ann");
    let (status, again) = app.decide(Some(&ann), &card, approve()).await;
    assert_eq!((status, again["error"]["code"].as_str()), (StatusCode::CONFLICT, Some("already_voted")));

    let (b, c) = tokio::join!(app.decide(Some(&bea), &card, approve()), app.decide(Some(&cy), &card, approve()));
    let mut statuses = [b.0, c.0];
    statuses.sort();
    assert_eq!(statuses, [StatusCode::OK, StatusCode::CONFLICT], "exactly one completes it: {b:?} {c:?}");
    let settled = if b.0 == StatusCode::OK { b.1 } else { c.1 };
    assert_eq!(settled["status"], "approved");
    let names: Vec<&str> = settled["decision"]["votes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["person"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2);
    assert_eq!(names[0], "ann", "in the order they voted: {names:?}");

    let call = app.ended_call(&card).await;
    assert_eq!(call.status, ToolCallStatus::Done);
    assert_eq!(app.workspace_file("race.txt"), "race\n");
    let events = common_events(&app, &card).await;
    let resolved = events.iter().filter(|e| e.0 == "approval_resolved").count();
    let results = events.iter().filter(|e| e.0 == "tool_result").count();
    assert_eq!((resolved, results), (1, 1), "settled once, ran once: {events:?}");

    // The audit log names the approvers in order and the policy.
    let (status, audit) = app.send(None, Method::GET, "/api/audit", None).await;
    assert_eq!(status, StatusCode::OK);
    let how = audit["rows"][0]["entry"]["how"].as_str().unwrap_or_default().to_string();
    assert!(how.starts_with("approved by ann, then ") && how.contains("Two for writes"), "{audit}");
}

/// The kinds of the run's events, with their data.
async fn common_events(app: &App, card: &Approval) -> Vec<(String, Value)> {
    use futures::StreamExt;
    let engine = app.served.engine();
    let events = engine.subscribe(&card.run_id, 0).await.unwrap();
    let all: Vec<_> =
        tokio::time::timeout(Duration::from_secs(30), events.collect::<Vec<_>>()).await.expect("the run ended");
    all.into_iter()
        .map(|e| (e.kind.as_str().to_string(), serde_json::from_str(&e.data).unwrap_or(Value::Null)))
        .collect()
}

#[tokio::test]
async fn nobody_approves_their_own_request_where_the_policy_forbids_it_by_the_api_or_the_server_function() {
    let app = App::start().await;
    let (ann, bea) = (app.person(Role::Approver, "ann").await, app.person(Role::Approver, "bea").await);
    app.policy(json!({
        "name": "Not your own",
        "match": {},
        "approvers": {"roles": ["approver"]},
        "quorum": 1,
        "self_approval": false,
    }))
    .await;
    let card = app.card(Some(&ann), "mine").await;
    let (status, body) = app.decide(Some(&ann), &card, approve()).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::FORBIDDEN, Some("own_request")), "{body}");
    let by_function = anonymous()
        .post(app.url(DecideApproval::PATH))
        .header(COOKIE, &ann.cookie)
        .json(&json!({"id": card.id, "decision": approve()}))
        .send()
        .await
        .unwrap();
    assert_eq!(by_function.status(), StatusCode::FORBIDDEN, "{}", by_function.text().await.unwrap());
    let (status, denied_too) = app.decide(Some(&ann), &card, json!({"decision": "deny"})).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "not even a deny of one's own: {denied_too}");

    // The founding owner (by the token) is a person like any other: not named, so refused.
    let (status, body) = app.decide(None, &card, approve()).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::FORBIDDEN, Some("not_routed_to_you")));

    let (status, body) = app.decide(Some(&bea), &card, approve()).await;
    assert_eq!((status, body["status"].as_str()), (StatusCode::OK, Some("approved")), "{body}");
    assert_eq!(body["decision"]["votes"][0]["person"]["name"], "bea");
}

#[tokio::test]
async fn an_edit_by_one_approver_restarts_the_count_on_what_it_shows_now() {
    let app = App::start().await;
    let member = app.person(Role::Member, "mo").await;
    let (ann, bea) = (app.person(Role::Approver, "ann").await, app.person(Role::Approver, "bea").await);
    app.policy(json!({
        "name": "Two people",
        "match": {},
        "approvers": {"people": [ann.id, bea.id]},
        "quorum": 2,
    }))
    .await;
    let card = app.card(Some(&member), "edit").await;
    let (status, body) = app.decide(Some(&ann), &card, approve()).await;
    assert_eq!((status, body["status"].as_str()), (StatusCode::OK, Some("pending")));
    // Her batch approval of it again is told as waiting for the others, not as decided.
    assert_eq!(app.batch_approve(&ann, &card).await, counted(json!({"already_voted": 1})));

    let edited = json!({"path": "edit.txt", "content": "edited by bea\n"});
    let (status, body) = app.decide(Some(&bea), &card, json!({"decision": "approve", "arguments": edited})).await;
    assert_eq!((status, body["status"].as_str()), (StatusCode::OK, Some("pending")), "an edit restarts: {body}");
    assert_eq!(body["arguments"], edited);
    assert_eq!(body["votes"].as_array().map(Vec::len), Some(1), "only the editor's vote: {body}");

    // Ann's batch approval from the inbox (it names no arguments) is no vote for the edit: the card changed
    // since it was shown, which is told apart from one decided already, and nothing is decided.
    assert_eq!(app.batch_approve(&ann, &card).await, counted(json!({"changed": 1})));
    let still = app.served.engine().approval(&card.id).await.unwrap();
    assert_eq!((still.status, still.votes.len()), (ApprovalStatus::Pending, 1), "only bea's vote: {still:?}");

    // Ann's approval from a card read before the edit (no arguments named) is not a vote for the edit.
    let (status, body) = app.decide(Some(&ann), &card, approve()).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::CONFLICT, Some("arguments_changed")));
    // Approving the edit names it: her vote is on what she was shown.
    let (status, body) = app.decide(Some(&ann), &card, json!({"decision": "approve", "arguments": edited})).await;
    assert_eq!((status, body["status"].as_str()), (StatusCode::OK, Some("approved")), "{body}");
    assert_eq!(body["decision"]["edited_arguments"], edited);

    app.ended_call(&card).await;
    assert_eq!(app.workspace_file("edit.txt"), "edited by bea\n", "what both approved ran");
}

#[tokio::test]
async fn a_request_is_routed_by_the_first_policy_its_tool_risk_and_requester_match() {
    let app = App::start().await;
    let member = app.person(Role::Member, "mo").await;
    let ann = app.person(Role::Approver, "ann").await;
    app.policy(json!({"name": "Overwrites", "match": {"risk_at_least": "high"}, "approvers": {"people": [ann.id]}}))
        .await;
    app.policy(json!({"name": "Shell", "match": {"tool": "shell"}, "approvers": {"people": [ann.id]}})).await;
    app.policy(json!({
        "name": "Mo's writes",
        "match": {"tool": "write_*", "requester": {"kind": "person", "id": member.id}},
        "approvers": {"people": [ann.id]},
        "timeout_secs": 600,
    }))
    .await;

    let routed = app.card(Some(&member), "route").await;
    let route = routed.route.as_ref().unwrap();
    assert_eq!(route.policy.as_ref().map(|p| p.name.as_str()), Some("Mo's writes"), "a new file is medium risk");
    assert_eq!(route.timeout_secs, Some(600));
    assert!(routed.expires_at.is_some(), "the policy's timeout");

    // The owner's own write matches no policy: decided as before, by the owner alone.
    let unrouted = app.card(None, "inbox").await;
    assert_eq!(unrouted.route.as_ref().unwrap().policy, None);
    let (status, body) = app.decide(None, &unrouted, approve()).await;
    assert_eq!((status, body["status"].as_str()), (StatusCode::OK, Some("approved")), "{body}");

    // Editing the policy later does not change the waiting card.
    let (status, listed) = app.send(None, Method::GET, "/api/policies", None).await;
    assert_eq!(status, StatusCode::OK);
    let ids: Vec<Value> = listed.as_array().unwrap().iter().map(|p| p["id"].clone()).collect();
    let last = ids[2].as_str().unwrap();
    let body = json!({"name": "Renamed", "match": {}, "approvers": {"roles": ["owner"]}});
    let (status, _) = app.send(None, Method::PUT, &format!("/api/policies/{last}"), Some(body)).await;
    assert_eq!(status, StatusCode::OK);
    let still = app.served.engine().approval(&routed.id).await.unwrap();
    assert_eq!(still.route, routed.route);
    // The order can change; every policy is named once.
    let reversed: Vec<Value> = ids.iter().rev().cloned().collect();
    let (status, order) = app.send(None, Method::PUT, "/api/policies/order", Some(json!({"ids": reversed}))).await;
    assert_eq!((status, order[0]["name"].as_str()), (StatusCode::OK, Some("Renamed")));
    let (status, _) = app.send(None, Method::PUT, "/api/policies/order", Some(json!({"ids": [ids[0]]}))).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    // A policy nobody could satisfy is refused.
    let impossible = json!({"name": "x", "approvers": {"people": [ann.id]}, "quorum": 2});
    let (status, _) = app.send(None, Method::POST, "/api/policies", Some(impossible)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let stranger = json!({"name": "x", "approvers": {"people": ["nobody"]}});
    let (status, _) = app.send(None, Method::POST, "/api/policies", Some(stranger)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn each_inbox_lists_what_is_routed_to_that_person_and_owners_see_the_rest_marked() {
    let app = App::start().await;
    let member = app.person(Role::Member, "mo").await;
    let (ann, bea) = (app.person(Role::Approver, "ann").await, app.person(Role::Approver, "bea").await);
    app.policy(json!({"name": "Ann and Bea", "match": {}, "approvers": {"people": [ann.id, bea.id]}, "quorum": 2}))
        .await;
    let card = app.card(Some(&member), "inbox").await;
    let pending = |who| app.send(who, Method::GET, "/api/approvals?status=pending", None);

    let (_, listed) = pending(Some(&ann)).await;
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "{listed}");
    assert_eq!(
        (listed[0]["routed_to_you"].as_bool(), listed[0]["progress"].as_str()),
        (Some(true), Some("0 of 2 approvals"))
    );
    let (_, owners) = pending(None).await;
    assert_eq!(owners[0]["routed_to_you"], false, "an owner sees it, marked as not theirs: {owners}");
    let (_, members) = pending(Some(&member)).await;
    assert_eq!(members, json!([]), "a member's own card is not theirs to decide");
    let cy = app.person(Role::Approver, "cy").await;
    let (_, others) = pending(Some(&cy)).await;
    assert_eq!(others, json!([]), "an approver it is not routed to");

    app.decide(Some(&ann), &card, approve()).await;
    let (_, listed) = pending(Some(&bea)).await;
    assert_eq!(listed[0]["progress"], "1 of 2 approvals");
    assert_eq!(listed[0]["votes"][0]["person"]["name"], "ann", "who approved so far");

    // The badge counts only theirs.
    let engine = app.served.engine();
    let person = |who: &Someone, login: &str| warden_types::person::ActingPerson {
        id: who.id.clone(),
        name: login.into(),
        role: Role::Approver,
    };
    let count = |threads: Vec<warden_engine::PendingInThread>| threads.iter().map(|t| t.approvals).sum::<u32>();
    assert_eq!(count(engine.pending_by_thread_for(&person(&bea, "bea")).await.unwrap()), 1);
    assert_eq!(count(engine.pending_by_thread_for(&person(&cy, "cy")).await.unwrap()), 0);
}

#[tokio::test]
async fn a_viewer_and_a_member_decide_nothing_and_an_approver_only_what_is_routed_to_them() {
    let app = App::start().await;
    let member = app.person(Role::Member, "mo").await;
    let viewer = app.person(Role::Viewer, "vi").await;
    let (ann, bea) = (app.person(Role::Approver, "ann").await, app.person(Role::Approver, "bea").await);
    app.policy(json!({"name": "Ann", "match": {}, "approvers": {"people": [ann.id], "roles": []}})).await;
    let card = app.card(Some(&member), "roles").await;
    for who in [&member, &viewer] {
        let (status, body) = app.decide(Some(who), &card, approve()).await;
        assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::FORBIDDEN, Some("role_not_allowed")));
    }
    let (status, body) = app.decide(Some(&bea), &card, approve()).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::FORBIDDEN, Some("not_routed_to_you")));
    // Policies are the owners' alone.
    for who in [&member, &viewer, &ann] {
        let (status, _) = app.send(Some(who), Method::GET, "/api/policies", None).await;
        assert_eq!(status, StatusCode::FORBIDDEN);
    }
    let (status, body) = app.decide(Some(&ann), &card, json!({"decision": "deny", "reason": "not today"})).await;
    assert_eq!((status, body["status"].as_str()), (StatusCode::OK, Some("denied")), "{body}");
    assert_eq!(body["decision"]["votes"][0]["verdict"], "deny");
}

#[tokio::test]
async fn an_approver_reads_the_private_thread_of_a_card_routed_to_them_and_no_other_approver_does() {
    let app = App::start().await;
    let member = app.person(Role::Member, "mo").await;
    let (ann, cy) = (app.person(Role::Approver, "ann").await, app.person(Role::Approver, "cy").await);
    app.policy(json!({"name": "Ann", "match": {}, "approvers": {"people": [ann.id]}})).await;
    let card = app.card(Some(&member), "judge").await;
    let path = format!("/api/threads/{}", card.thread_id);

    let (status, thread) = app.send(Some(&ann), Method::GET, &path, None).await;
    assert_eq!(status, StatusCode::OK, "the card's context is Ann's to read: {thread}");
    let (status, _) =
        app.send(Some(&ann), Method::POST, &format!("{path}/messages"), Some(json!({"content": "hi"}))).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "to read, not to write");
    let (status, _) = app.send(Some(&cy), Method::GET, &path, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "not routed to Cy: the thread is nowhere for them");
}
