//! The inbox over real HTTP on the whole app (pages, server functions and API behind the access
//! gate), a real SQLite file and the scripted fixture model: the live feed counts what waits from
//! chats and outside clients and tells of each arrival; the list merges both, newest first, and
//! filters; a batch decision spans one client (mixing is refused before anything is decided); the
//! full-screen view highlights the code, and an edited approval reaches the client.

use crate::common;
use warden_types::id::{ApprovalId, OutsideRequestId, RunId, ThreadId};

use std::time::Duration;

use eventsource_stream::{Event, Eventsource};
use futures::stream::BoxStream;
use futures::StreamExt;
use leptos::prelude::LeptosOptions;
use leptos::server_fn::ServerFn;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use tempfile::TempDir;
use warden_app::server_fns::{self as fns, inbox};
use warden_engine::config::{Config, ModelConfig};
use warden_engine::Engine;
use warden_testkit::{FixtureModel, Scenario, Script, ScriptedCall, Turn};
use warden_types::approval::{ApprovalStatus, DecisionInput};

use crate::common::outside::{evaluation, register};
use crate::common::{anonymous, client, Served};

struct App {
    _dir: TempDir,
    model: FixtureModel,
    engine: Engine,
    served: Served,
}

impl App {
    async fn start() -> App {
        let dir = tempfile::tempdir().expect("temp dir");
        let write = Turn::calls(vec![ScriptedCall::new("write_file", json!({"path": "inbox.txt", "content": "x"}))]);
        let mut hello = Scenario::new("hello", vec![Turn::text("Hello there")]);
        hello.title = Some("A friendly hello".into());
        let script = Script {
            scenarios: vec![Scenario::new("save", vec![write, Turn::text("saved")]), hello],
            default_title: None,
        };
        let model = FixtureModel::start(script).await.expect("fixture model");
        let mut config = Config::with_data_dir(dir.path());
        config.model = Some(ModelConfig { base_url: model.base_url(), api_key: None, model: "fixture".into() });
        let served = common::serve_app(config, LeptosOptions::builder().output_name("warden").build()).await;
        App { _dir: dir, model, engine: served.engine().clone(), served }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{}", self.served.base, path)
    }

    /// Calls a server function with a JSON body; the status and the JSON answer.
    async fn call(&self, path: &str, body: Value) -> (StatusCode, Value) {
        let res = client()
            .post(self.url(path))
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .expect("sent");
        let status = res.status();
        let text = res.text().await.expect("body");
        (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
    }

    /// An outside request sent over HTTP with the client's token; Warden's id of it.
    async fn ask(&self, token: &str, frame: Value) -> String {
        let res = anonymous()
            .post(self.url("/api/outside/requests"))
            .bearer_auth(token)
            .json(&frame)
            .send()
            .await
            .expect("sent");
        assert_eq!(res.status(), StatusCode::ACCEPTED, "stored and waiting");
        let ack: Value = res.json().await.expect("ack");
        ack["request_id"].as_str().expect("request id").to_string()
    }

    /// Starts a chat whose model asks to write a file; the pending approval's id.
    async fn chat_approval(&self) -> String {
        let res = client()
            .post(self.url(fns::StartChat::PATH))
            .json(&json!({"prompt": "save the file"}))
            .send()
            .await
            .expect("sent");
        assert_eq!(res.status(), StatusCode::OK);
        let engine = self.engine.clone();
        let waited = tokio::time::timeout(Duration::from_secs(30), async move {
            loop {
                let pending = engine.list_approvals(Some(ApprovalStatus::Pending)).await.expect("approvals");
                if let Some(approval) = pending.first() {
                    return approval.id.clone();
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await;
        (waited.expect("the approval card in time")).to_string()
    }

    async fn decision(&self, token: &str, request_id: &str) -> Value {
        let res = anonymous()
            .get(self.url(&format!("/api/outside/requests/{request_id}/decision?wait=30")))
            .bearer_auth(token)
            .send()
            .await
            .expect("sent");
        assert_eq!(res.status(), StatusCode::OK, "decided");
        res.json().await.expect("decision")
    }

    async fn feed(&self) -> BoxStream<'static, Result<Event, eventsource_stream::EventStreamError<reqwest::Error>>> {
        let res = client().get(self.url("/api/inbox/events")).send().await.expect("sent");
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(res.headers()["content-type"], "text/event-stream");
        res.bytes_stream().eventsource().boxed()
    }
}

/// The next event of the feed (its name and data).
async fn next(
    feed: &mut BoxStream<'static, Result<Event, eventsource_stream::EventStreamError<reqwest::Error>>>,
) -> (String, Value) {
    let event = tokio::time::timeout(Duration::from_secs(30), feed.next())
        .await
        .expect("an event in time")
        .expect("the feed is open")
        .expect("a readable event");
    (event.event, serde_json::from_str(&event.data).expect("JSON data"))
}

fn default_filter() -> Value {
    json!({"source": {"kind": "all"}, "risk": null, "status": "pending"})
}

#[tokio::test]
async fn the_feed_counts_what_waits_from_chats_and_clients_and_tells_of_each_arrival() {
    let app = App::start().await;
    let res = anonymous().get(app.url("/api/inbox/events")).send().await.expect("sent");
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "the feed is behind the access gate");

    let mut feed = app.feed().await;
    assert_eq!(next(&mut feed).await, ("count".into(), json!({"chat": 0, "outside": 0, "checks": 0})));
    assert_eq!(next(&mut feed).await, ("threads".into(), json!({})), "then what waits per thread");

    let (_, token) = register(&app.served.base, "runner", Value::Null).await;
    let request_id = app.ask(&token, evaluation("r1", "ls -la", "medium")).await;
    let (name, arrived) = next(&mut feed).await;
    assert_eq!(name, "arrived");
    assert_eq!(arrived, json!({"source": "outside", "id": request_id, "summary": "Security evaluation from runner"}));
    assert_eq!(next(&mut feed).await, ("count".into(), json!({"chat": 0, "outside": 1, "checks": 0})));

    let approval_id = app.chat_approval().await;
    let approval = app.engine.approval(&ApprovalId::from(approval_id.as_str())).await.expect("approval");
    let thread_id = approval.thread_id;
    assert_eq!(
        next(&mut feed).await,
        ("run".into(), json!({"thread_id": thread_id, "run_id": approval.run_id})),
        "the run, as it started (a page open on its thread follows it)"
    );
    let (name, arrived) = next(&mut feed).await;
    assert_eq!((name.as_str(), &arrived["source"], &arrived["id"]), ("arrived", &json!("chat"), &json!(approval_id)));
    assert_eq!(next(&mut feed).await, ("count".into(), json!({"chat": 1, "outside": 1, "checks": 0})));
    assert_eq!(next(&mut feed).await, ("threads".into(), json!({ (thread_id.clone()): 1 })), "its thread's badge");

    let (status, _) = common::outside::decide(&app.served.base, &request_id, json!({"decision": "approved"})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        next(&mut feed).await,
        ("count".into(), json!({"chat": 1, "outside": 0, "checks": 0})),
        "an outside change leaves the threads' counts alone"
    );
    app.engine
        .decide(&ApprovalId::from(approval_id.as_str()), DecisionInput::deny(None), &crate::common::owner())
        .await
        .expect("decided");
    assert_eq!(next(&mut feed).await, ("count".into(), json!({"chat": 0, "outside": 0, "checks": 0})));
    assert_eq!(next(&mut feed).await, ("threads".into(), json!({})));
}

#[tokio::test]
async fn the_feed_tells_of_a_thread_the_model_named_after_its_run_ended() {
    let app = App::start().await;
    let mut feed = app.feed().await;
    assert_eq!(next(&mut feed).await.0, "count");
    assert_eq!(next(&mut feed).await.0, "threads");
    // The model holds its title back: the run ends with the prompt's words as the title.
    app.model.hold_titles();
    let res = client().post(app.url(fns::StartChat::PATH)).json(&json!({"prompt": "hello from the test"})).send().await;
    let started: Value = res.expect("sent").json().await.expect("the new chat");
    let (thread_id, run_id) = (started["thread_id"].as_str().unwrap(), started["run_id"].as_str().unwrap());
    let mut events = app.engine.subscribe(&RunId::from(run_id), 0).await.expect("the run's stream");
    let ended = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(event) = events.next().await {
            if event.is_terminal() {
                return Some(event.kind.to_string());
            }
        }
        None
    });
    assert_eq!(ended.await.expect("the run ended in time").as_deref(), Some("run_finished"));
    assert_eq!(next(&mut feed).await, ("run".into(), json!({"thread_id": thread_id, "run_id": run_id})));
    assert_eq!(
        app.engine.thread(&ThreadId::from(thread_id)).await.expect("thread").thread.title,
        "hello from the test"
    );

    app.model.release_titles();
    assert_eq!(
        next(&mut feed).await,
        ("titled".into(), json!({"thread_id": thread_id, "title": "A friendly hello"})),
        "told once the model named it, stored by then"
    );
    assert_eq!(app.engine.thread(&ThreadId::from(thread_id)).await.expect("thread").thread.title, "A friendly hello");
}

#[tokio::test]
async fn the_list_merges_chats_and_clients_newest_first_and_filters_by_source_risk_and_status() {
    let app = App::start().await;
    let (one, one_token) = register(&app.served.base, "one", Value::Null).await;
    let (_, two_token) = register(&app.served.base, "two", Value::Null).await;
    let approval = app.chat_approval().await;
    let low = app.ask(&one_token, evaluation("a", "ls", "low")).await;
    let high = app.ask(&two_token, evaluation("b", "rm -rf /tmp/x", "high")).await;

    let list = |filter: Value| app.call(inbox::ListInbox::PATH, json!({ "filter": filter }));
    let ids = |answer: &Value| -> Vec<String> {
        answer["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|i| i["item"]["id"].as_str().unwrap().to_string())
            .collect()
    };
    let (status, all) = list(default_filter()).await;
    assert_eq!(status, StatusCode::OK, "{all}");
    assert_eq!(ids(&all), [high.clone(), low.clone(), approval.clone()], "newest first across sources");
    assert_eq!(all["items"][2]["source"], "chat");
    let names: Vec<&str> = all["clients"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 2, "{names:?}");

    let (_, of_one) = list(json!({"source": {"kind": "client", "id": one}, "risk": null, "status": "pending"})).await;
    assert_eq!(ids(&of_one), [low.as_str()]);
    let (_, chats) = list(json!({"source": {"kind": "chat"}, "risk": null, "status": "pending"})).await;
    assert_eq!(ids(&chats), [approval.as_str()]);
    let (_, risky) = list(json!({"source": {"kind": "all"}, "risk": "high", "status": "pending"})).await;
    assert_eq!(ids(&risky), [high.as_str()]);

    common::outside::decide(&app.served.base, &low, json!({"decision": "rejected"})).await;
    let (_, pending) = list(default_filter()).await;
    assert_eq!(ids(&pending), [high.clone(), approval.clone()], "a decided request leaves the pending view");
    let (_, decided) = list(json!({"source": {"kind": "all"}, "risk": null, "status": "decided"})).await;
    assert_eq!(ids(&decided), [low]);
    // Who decided it comes by name: the request names them by id alone.
    let owner = app.served.state.access.founding_owner().unwrap().clone();
    let name = app.served.state.people.person(&owner).await.unwrap().name;
    assert_eq!(decided["deciders"], json!([{"id": owner, "name": name}]), "{decided}");
    assert_eq!(all["deciders"], json!([]), "nothing pending was decided");
}

#[tokio::test]
async fn a_batch_spans_runs_and_clients_and_one_with_a_connection_check_is_refused_before_anything_is_decided() {
    let app = App::start().await;
    let (_, one_token) = register(&app.served.base, "one", Value::Null).await;
    let (_, two_token) = register(&app.served.base, "two", Value::Null).await;
    let first = app.ask(&one_token, evaluation("a", "ls", "low")).await;
    let second = app.ask(&one_token, evaluation("b", "pwd", "low")).await;
    let other = app.ask(&two_token, evaluation("c", "id", "low")).await;
    let approval = app.chat_approval().await;

    // A connection check is no approval: refused in a batch before anything is decided.
    let with_check = json!({
        "keys": [{"source": "chat", "id": approval}, {"source": "check", "id": "some-check"}],
        "verdict": "approve",
        "reason": null,
    });
    let (status, refused) = app.call(inbox::DecideBatch::PATH, with_check).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert!(refused["Invalid"].as_str().unwrap().contains("on its own"), "{refused}");
    assert_eq!(
        app.engine.approval(&ApprovalId::from(approval.as_str())).await.unwrap().status,
        ApprovalStatus::Pending
    );

    // Two clients and a chat's run in one batch: each decided as on its own.
    let mixed = json!({
        "keys": [{"source": "outside", "id": second}, {"source": "outside", "id": other}, {"source": "chat", "id": approval}],
        "verdict": "approve",
        "reason": null,
    });
    let (status, outcome) = app.call(inbox::DecideBatch::PATH, mixed).await;
    assert_eq!(
        (status, outcome),
        (StatusCode::OK, json!({"decided": 3, "already_decided": 0, "changed": 0, "already_voted": 0}))
    );
    for id in [&second, &other] {
        assert_eq!(
            app.served.state.outside.request(&OutsideRequestId::from(id.as_str())).await.unwrap().status,
            warden_outside::RequestStatus::Approved
        );
    }
    assert_eq!(
        app.engine.approval(&ApprovalId::from(approval.as_str())).await.unwrap().status,
        ApprovalStatus::Approved
    );

    let batch = json!({
        "keys": [{"source": "outside", "id": first}],
        "verdict": "deny",
        "reason": "not now",
    });
    let (status, outcome) = app.call(inbox::DecideBatch::PATH, batch.clone()).await;
    assert_eq!(
        (status, outcome),
        (StatusCode::OK, json!({"decided": 1, "already_decided": 0, "changed": 0, "already_voted": 0}))
    );
    let decision = app.decision(&one_token, &first).await;
    assert_eq!((&decision["decision"], &decision["reason"]), (&json!("rejected"), &json!("not now")));
    // The same batch again: refused as a whole, saying they are decided already.
    let (status, refused) = app.call(inbox::DecideBatch::PATH, batch).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert!(refused["Invalid"].as_str().unwrap().contains("already"), "{refused}");
}

#[tokio::test]
async fn the_full_view_highlights_the_code_and_an_edited_approval_reaches_the_client() {
    let app = App::start().await;
    let (_, token) = register(&app.served.base, "runner", Value::Null).await;
    let frame = json!({"type": "security_evaluation", "id": "py", "language": "python", "risk_level": "medium",
        "code": "import os\nprint('<script>alert(1)</script>')\n", "explanation": "prints <b>a tag</b>"});
    let id = app.ask(&token, frame).await;

    let (status, shown) = app.call(inbox::GetOutsideRequest::PATH, json!({ "id": id })).await;
    assert_eq!(status, StatusCode::OK, "{shown}");
    assert_eq!(shown["syntax"], "Python");
    let html = shown["code_html"].as_str().expect("highlighted");
    assert!(html.contains(r#"<span class="hl-keyword">import</span>"#), "{html}");
    assert!(!html.contains("<script") && html.contains("&lt;script&gt;"), "the code stays text: {html}");
    let (status, missing) = app.call(inbox::GetOutsideRequest::PATH, json!({"id": "nope"})).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{missing}");

    let edited = json!({"id": id, "decision": {"decision": "approved", "edited_code": "print('safe')\n"}});
    let (status, decided) = app.call(inbox::DecideOutside::PATH, edited.clone()).await;
    assert_eq!((status, &decided["status"]), (StatusCode::OK, &json!("approved")), "{decided}");
    let decision = app.decision(&token, &id).await;
    assert_eq!(decision["edited_code"], "print('safe')\n");
    assert_eq!(decision["decided_by"]["kind"], "person");
    assert_eq!(shown["decider"], Value::Null, "nobody had decided it");
    // The full view names who decided it (the request names them by id alone).
    let (_, shown) = app.call(inbox::GetOutsideRequest::PATH, json!({ "id": id })).await;
    let owner = app.served.state.access.founding_owner().unwrap().clone();
    assert_eq!(shown["decider"], json!(app.served.state.people.person(&owner).await.unwrap().name), "{shown}");
    let (status, again) = app.call(inbox::DecideOutside::PATH, edited).await;
    assert_eq!(status, StatusCode::CONFLICT, "{again}");

    let (status, extended) = app.call(inbox::ExtendOutside::PATH, json!({"id": id, "secs": 60})).await;
    assert_eq!(status, StatusCode::CONFLICT, "a decided request has no deadline to extend: {extended}");
    let (_, list) = common::send_json(&client(), Method::GET, app.url("/api/outside/requests"), None).await;
    assert_eq!(list.as_array().map(Vec::len), Some(1));
}

#[tokio::test]
async fn an_edit_in_progress_is_previewed_for_who_may_decide_and_decides_nothing() {
    let app = App::start().await;
    let approval = app.chat_approval().await;
    let id = ApprovalId::from(approval.as_str());
    assert_eq!(app.engine.approval(&id).await.unwrap().summary, "Write 1 byte to `inbox.txt` (new file)");
    let ask = |arguments: Value| json!({"id": approval, "arguments": arguments});

    let (status, shown) =
        app.call(fns::PreviewEdit::PATH, ask(json!({"path": "edited.txt", "content": "hello\n"}))).await;
    assert_eq!(status, StatusCode::OK, "{shown}");
    assert_eq!(shown["summary"], "Write 6 bytes to `edited.txt` (new file)");
    assert!(shown["preview"].to_string().contains("+hello"), "the diff of the edit: {shown}");
    assert_eq!(app.engine.approval(&id).await.unwrap().status, ApprovalStatus::Pending, "nothing decided");

    let (status, refused) = app.call(fns::PreviewEdit::PATH, ask(json!({"path": 5}))).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "arguments the tool does not take: {refused}");

    let edited = DecisionInput {
        arguments: Some(json!({"path": "edited.txt", "content": "hello\n"})),
        ..DecisionInput::approve()
    };
    let decided = app.engine.decide(&id, edited, &crate::common::owner()).await.expect("approved with the edit");
    let call = app.engine.tool_call(&decided.tool_call_id).await.expect("the call");
    assert_eq!(call.summary, "Write 6 bytes to `edited.txt` (new file)", "the call's header names what runs");
    let (status, refused) = app.call(fns::PreviewEdit::PATH, ask(json!({"path": "x.txt", "content": ""}))).await;
    assert_eq!(status, StatusCode::CONFLICT, "a decided card previews nothing: {refused}");
}
