//! Threads belong to who started them, over HTTP with people signed in by their own browsers: another
//! member finds nothing of a private thread (404 everywhere: list, read, search, export, runs, their
//! events), reads it once it is shared with them but writes nothing (403), owners by role read every
//! thread, and a viewer reads only what is shared.

use std::time::Duration;

use eventsource_stream::Eventsource;
use futures::StreamExt;
use leptos::prelude::LeptosOptions;
use reqwest::header::COOKIE;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use tempfile::TempDir;
use warden_engine::config::{Config, ModelConfig};
use warden_people::NewInvitation;
use warden_testkit::{FixtureModel, Scenario, Script, Turn};
use warden_types::person::Role;

use crate::common::{self, anonymous, Served};

const PASSWORD: &str = "correct horse battery staple";

/// Someone signed in: their id and their browser's `Cookie` header (`None`: the founding owner by the token).
struct Person {
    id: String,
    cookie: Option<String>,
}

struct Team {
    _dir: TempDir,
    _model: FixtureModel,
    served: Served,
    owner: Person,
    ada: Person,
    bob: Person,
    vic: Person,
}

impl Team {
    async fn start() -> Team {
        let dir = tempfile::tempdir().unwrap();
        let script = Script {
            scenarios: vec![Scenario::new("plan", vec![Turn::text("Here is the secret plan.")])],
            default_title: None,
        };
        let model = FixtureModel::start(script).await.unwrap();
        let mut config = Config::with_data_dir(dir.path());
        config.model = Some(ModelConfig { base_url: model.base_url(), api_key: None, model: "fixture".into() });
        let served = common::serve_app(config, LeptosOptions::builder().output_name("warden").build()).await;
        let owner_id = served.state.access.founding_owner().unwrap().to_string();
        let ada = join(&served, Role::Member, "ada").await;
        let bob = join(&served, Role::Member, "bob").await;
        let vic = join(&served, Role::Viewer, "vic").await;
        Team { _dir: dir, _model: model, served, owner: Person { id: owner_id, cookie: None }, ada, bob, vic }
    }

    /// `method path` as `who`, with `body` as JSON; the status and the body (`Null` if not JSON).
    async fn call(&self, who: &Person, method: Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        let http = if who.cookie.is_some() { anonymous() } else { common::client() };
        let mut request = http.request(method, format!("{}{path}", self.served.base)).timeout(Duration::from_secs(60));
        if let Some(cookie) = &who.cookie {
            request = request.header(COOKIE, cookie);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        let text = response.text().await.unwrap_or_default();
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    /// Only the head of an answer (an event stream that is let in does not end).
    async fn status(&self, who: &Person, method: Method, path: &str) -> StatusCode {
        let mut request = anonymous().request(method, format!("{}{path}", self.served.base));
        request = match &who.cookie {
            Some(cookie) => request.header(COOKIE, cookie),
            None => request.bearer_auth(common::TOKEN),
        };
        request.timeout(Duration::from_secs(60)).send().await.unwrap().status()
    }

    /// A thread `who` starts, with one message and its answer; the thread's and the run's ids.
    async fn thread_with_a_run(&self, who: &Person, title: &str) -> (String, String) {
        let (status, thread) = self.call(who, Method::POST, "/api/threads", Some(json!({ "title": title }))).await;
        assert_eq!(status, StatusCode::CREATED, "{thread}");
        let id = thread["id"].as_str().unwrap().to_string();
        let mut request = anonymous()
            .post(format!("{}/api/threads/{id}/messages", self.served.base))
            .json(&json!({ "content": "What is the plan?" }));
        request = match &who.cookie {
            Some(cookie) => request.header(COOKIE, cookie),
            None => request.bearer_auth(common::TOKEN),
        };
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let mut events = response.bytes_stream().eventsource();
        let mut run = None;
        let read = async {
            while let Some(Ok(event)) = events.next().await {
                let data: Value = serde_json::from_str(&event.data).unwrap();
                if event.event == "run_started" {
                    run = data["run_id"].as_str().map(str::to_string);
                }
                if event.event == "run_finished" || event.event == "run_failed" {
                    assert_eq!(event.event, "run_finished", "{data}");
                    break;
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(30), read).await.expect("the run ended in time");
        (id, run.expect("a run started"))
    }

    async fn share(&self, who: &Person, thread: &str, sharing: Value) -> (StatusCode, Value) {
        self.call(who, Method::PUT, &format!("/api/threads/{thread}/sharing"), Some(sharing)).await
    }

    /// The ids of the threads `who` lists.
    async fn listed(&self, who: &Person) -> Vec<String> {
        let (status, list) = self.call(who, Method::GET, "/api/threads", None).await;
        assert_eq!(status, StatusCode::OK, "{list}");
        list.as_array().unwrap().iter().map(|t| t["id"].as_str().unwrap().to_string()).collect()
    }

    /// Whether `who`'s list marks `thread` as theirs to delete (`None`: not listed).
    async fn may_delete(&self, who: &Person, thread: &str) -> Option<bool> {
        let (status, list) = self.call(who, Method::GET, "/api/threads", None).await;
        assert_eq!(status, StatusCode::OK, "{list}");
        let listed = list.as_array().unwrap().iter().find(|t| t["id"] == thread)?;
        Some(listed["may_delete"].as_bool().unwrap_or(false))
    }

    /// The ids of the threads `who` finds searching for "secret".
    async fn found(&self, who: &Person) -> Vec<String> {
        let (status, hits) = self.call(who, Method::GET, "/api/search?q=secret", None).await;
        assert_eq!(status, StatusCode::OK, "{hits}");
        hits.as_array().unwrap().iter().map(|h| h["thread"]["id"].as_str().unwrap().to_string()).collect()
    }

    /// Every read of the thread and its run: the status each answers `who`.
    async fn reads(&self, who: &Person, thread: &str, run: &str) -> Vec<(String, StatusCode)> {
        let paths = [
            format!("/api/threads/{thread}"),
            format!("/api/threads/{thread}/runs"),
            format!("/api/threads/{thread}/export.json"),
            format!("/api/threads/{thread}/export.md"),
            format!("/api/runs/{run}"),
            format!("/api/runs/{run}/events"),
        ];
        let mut out = Vec::new();
        for path in paths {
            let status = self.status(who, Method::GET, &path).await;
            out.push((path, status));
        }
        out
    }

    /// Every write to the thread: the status and error code each answers `who`. None of them succeeds
    /// for a reader (each is refused before it changes anything).
    async fn writes(&self, who: &Person, thread: &str, run: &str) -> Vec<(String, StatusCode, Option<String>)> {
        let calls: Vec<(Method, String, Option<Value>)> = vec![
            (Method::POST, format!("/api/threads/{thread}/messages"), Some(json!({ "content": "mine now" }))),
            (Method::POST, format!("/api/threads/{thread}/retry"), None),
            (Method::PATCH, format!("/api/threads/{thread}"), Some(json!({ "title": "renamed" }))),
            (Method::POST, format!("/api/threads/{thread}/title"), None),
            (Method::PUT, format!("/api/threads/{thread}/model"), Some(json!({ "model": null }))),
            (Method::PUT, format!("/api/threads/{thread}/sharing"), Some(json!({ "with": "everyone" }))),
            (Method::GET, format!("/api/threads/{thread}/sharing"), None),
            (Method::POST, format!("/api/runs/{run}/stop"), None),
            (Method::DELETE, format!("/api/threads/{thread}"), None),
        ];
        let mut out = Vec::new();
        for (method, path, body) in calls {
            let (status, answer) = self.call(who, method.clone(), &path, body).await;
            let code = answer["error"]["code"].as_str().map(str::to_string);
            out.push((format!("{method} {path}"), status, code));
        }
        out
    }
}

/// A person of `role` who joined by an invitation, with a signed-in browser.
async fn join(served: &Served, role: Role, login: &str) -> Person {
    let state = &served.state;
    let owner = state.access.founding_owner().unwrap().clone();
    let (_, secret) = state.people.invite(&owner, NewInvitation::new(role)).await.unwrap();
    let person = state.people.accept_invitation(secret.expose(), login, login, PASSWORD).await.unwrap();
    let started = state.sessions.start(&person.id, None, None).await.unwrap();
    let cookie = format!("{}={}", state.access.cookie().name(false), started.secret.expose());
    Person { id: person.id.to_string(), cookie: Some(cookie) }
}

fn all(statuses: &[(String, StatusCode)], expected: StatusCode) -> bool {
    statuses.iter().all(|(_, s)| *s == expected)
}

#[tokio::test]
async fn a_private_thread_is_nowhere_for_another_member_and_a_shared_one_is_theirs_to_read_only() {
    let team = Team::start().await;
    let (thread, run) = team.thread_with_a_run(&team.ada, "Ada's plan").await;
    let (_, detail) = team.call(&team.ada, Method::GET, &format!("/api/threads/{thread}"), None).await;
    assert_eq!((detail["owner_id"].as_str(), detail["writable"].as_bool()), (Some(team.ada.id.as_str()), Some(true)));

    // Bob and Vic: not in the list, not found by search, and every read of it or its run is a 404.
    for stranger in [&team.bob, &team.vic] {
        assert!(!team.listed(stranger).await.contains(&thread));
        assert!(team.found(stranger).await.is_empty());
        let reads = team.reads(stranger, &thread, &run).await;
        assert!(all(&reads, StatusCode::NOT_FOUND), "{reads:?}");
    }
    // Bob's writes are 404s too: the thread does not exist for him.
    for (call, status, _) in team.writes(&team.bob, &thread, &run).await {
        assert_eq!(status, StatusCode::NOT_FOUND, "{call}");
    }
    assert!(team.found(&team.ada).await.contains(&thread), "its owner finds it");

    // The owner by role reads everything, but writes only to their own threads.
    assert!(team.listed(&team.owner).await.contains(&thread));
    assert!(team.found(&team.owner).await.contains(&thread));
    assert!(all(&team.reads(&team.owner, &thread, &run).await, StatusCode::OK));
    let (_, seen) = team.call(&team.owner, Method::GET, &format!("/api/threads/{thread}"), None).await;
    assert_eq!(seen["writable"], json!(false));
    // The list says who may delete it, as the delete route decides: its owner, and the owner by role.
    assert_eq!(team.may_delete(&team.ada, &thread).await, Some(true));
    assert_eq!(team.may_delete(&team.owner, &thread).await, Some(true));
    let (status, refused) = team
        .call(&team.owner, Method::POST, &format!("/api/threads/{thread}/messages"), Some(json!({"content": "hi"})))
        .await;
    assert_eq!((status, refused["error"]["code"].as_str()), (StatusCode::FORBIDDEN, Some("not_thread_owner")));

    // Shared with Bob by name: he reads it (read-only), Vic still finds nothing.
    let (status, stored) = team.share(&team.ada, &thread, json!({ "with": "people", "people": [team.bob.id] })).await;
    assert_eq!((status, stored.clone()), (StatusCode::OK, json!({ "with": "people", "people": [team.bob.id] })));
    let (_, sharing) = team.call(&team.ada, Method::GET, &format!("/api/threads/{thread}/sharing"), None).await;
    assert_eq!(sharing, stored);
    assert!(team.listed(&team.bob).await.contains(&thread));
    assert_eq!(team.may_delete(&team.bob, &thread).await, Some(false), "a reader deletes nothing");
    assert_eq!(team.found(&team.bob).await, vec![thread.clone()]);
    let reads = team.reads(&team.bob, &thread, &run).await;
    assert!(all(&reads, StatusCode::OK), "{reads:?}");
    let (_, seen) = team.call(&team.bob, Method::GET, &format!("/api/threads/{thread}"), None).await;
    assert_eq!((seen["writable"].as_bool(), seen["messages"].as_array().map(Vec::len)), (Some(false), Some(2)));
    for (call, status, code) in team.writes(&team.bob, &thread, &run).await {
        assert_eq!((status, code.as_deref()), (StatusCode::FORBIDDEN, Some("not_thread_owner")), "{call}");
    }
    assert!(all(&team.reads(&team.vic, &thread, &run).await, StatusCode::NOT_FOUND));

    // Shared with everyone: the viewer reads it; the route refuses a viewer any write.
    team.share(&team.ada, &thread, json!({ "with": "everyone" })).await;
    assert!(team.listed(&team.vic).await.contains(&thread));
    assert!(all(&team.reads(&team.vic, &thread, &run).await, StatusCode::OK));
    let (status, refused) = team
        .call(&team.vic, Method::POST, &format!("/api/threads/{thread}/messages"), Some(json!({"content": "hi"})))
        .await;
    assert_eq!((status, refused["error"]["code"].as_str()), (StatusCode::FORBIDDEN, Some("role_not_allowed")));

    // Private again: gone for both. Nothing of the readers' attempts changed it.
    team.share(&team.ada, &thread, json!({ "with": "private" })).await;
    assert!(all(&team.reads(&team.bob, &thread, &run).await, StatusCode::NOT_FOUND));
    assert!(!team.listed(&team.vic).await.contains(&thread));
    let (_, detail) = team.call(&team.ada, Method::GET, &format!("/api/threads/{thread}"), None).await;
    assert_eq!(detail["title"], json!("Ada's plan"));
    assert_eq!(detail["messages"].as_array().map(Vec::len), Some(2));
}

#[tokio::test]
async fn sharing_names_only_people_who_exist_and_leaves_the_owner_out() {
    let team = Team::start().await;
    let (status, thread) = team.call(&team.ada, Method::POST, "/api/threads", Some(json!({}))).await;
    assert_eq!(status, StatusCode::CREATED);
    let thread = thread["id"].as_str().unwrap().to_string();
    let (status, refused) =
        team.share(&team.ada, &thread, json!({ "with": "people", "people": ["nobody-at-all"] })).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    let (status, stored) = team.share(&team.ada, &thread, json!({ "with": "people", "people": [team.ada.id] })).await;
    assert_eq!((status, stored), (StatusCode::OK, json!({ "with": "private" })));
    let (status, refused) = team.share(&team.ada, &thread, json!({ "with": "someone" })).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    // An imported thread is the importer's.
    let (_, export) = team.call(&team.ada, Method::GET, &format!("/api/threads/{thread}/export.json"), None).await;
    let (status, imported) = team.call(&team.bob, Method::POST, "/api/threads/import", Some(export)).await;
    assert_eq!(status, StatusCode::CREATED, "{imported}");
    assert_eq!(imported["owner_id"].as_str(), Some(team.bob.id.as_str()));
    assert!(!team.listed(&team.ada).await.contains(&imported["id"].as_str().unwrap().to_string()));
}

#[tokio::test]
async fn threads_from_before_people_are_the_founding_owners() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::with_data_dir(dir.path());
    // A thread made by the engine alone, as before people: nobody's.
    let engine = warden_engine::Engine::open(config.clone()).await.unwrap();
    let old = engine.create_thread(Some("Before people".into())).await.unwrap();
    assert_eq!(old.owner_id, None);
    engine.shutdown();
    drop(engine);
    let served = common::serve_app(config, LeptosOptions::builder().output_name("warden").build()).await;
    let owner = served.state.access.founding_owner().unwrap().to_string();
    let (status, detail) =
        common::send_json(&common::client(), Method::GET, format!("{}/api/threads/{}", served.base, old.id), None)
            .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!((detail["owner_id"].as_str(), detail["writable"].as_bool()), (Some(owner.as_str()), Some(true)));
}
