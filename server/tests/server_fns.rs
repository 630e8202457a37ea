//! The server functions the pages call, over real HTTP on the real router (the whole app behind the
//! access gate), a real SQLite file and the scripted fixture model: each one's error statuses for
//! bad input and unknown ids, a cross-origin POST refused before it changes anything, and a thread
//! whose run was stopped while a card waited still opens in the app's own types.

use crate::common;
use warden_types::id::ThreadId;

use std::time::Duration;

use leptos::prelude::LeptosOptions;
use leptos::server_fn::ServerFn;
use reqwest::header::{CONTENT_TYPE, COOKIE, ORIGIN, SET_COOKIE};
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};
use tempfile::TempDir;
use warden_app::server_fns::{self as fns, mcp};
use warden_engine::config::{Config, ModelConfig};
use warden_engine::Engine;
use warden_testkit::{FixtureModel, Scenario, Script, ScriptedCall, Turn};
use warden_types::approval::ApprovalStatus;

use crate::common::{anonymous, client, Served, TOKEN};

struct App {
    _dir: TempDir,
    _model: FixtureModel,
    engine: Engine,
    served: Served,
    http: Client,
}

/// A server function's arguments: a JSON body (the only kind they take).
enum Body {
    Json(Value),
}

impl App {
    async fn start(script: Script) -> App {
        let dir = tempfile::tempdir().expect("temp dir");
        let model = FixtureModel::start(script).await.expect("fixture model");
        let mut config = Config::with_data_dir(dir.path());
        config.model = Some(ModelConfig { base_url: model.base_url(), api_key: None, model: "fixture".into() });
        let served = common::serve_app(config, LeptosOptions::builder().output_name("warden").build()).await;
        let engine = served.engine().clone();
        App { _dir: dir, _model: model, engine, served, http: client() }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{}", self.served.base, path)
    }

    /// Calls the server function at `path` with the token; returns the status and the JSON answer.
    async fn call(&self, path: &str, body: Body) -> (StatusCode, Value) {
        let req = self.http.post(self.url(path));
        send(with_body(req, body)).await
    }

    /// Signs in the way a browser does; the `name=value` pair of the session cookie.
    async fn sign_in(&self) -> String {
        let res = anonymous().get(self.url(&format!("/?token={TOKEN}"))).send().await.expect("request");
        assert_eq!(res.status(), StatusCode::SEE_OTHER);
        let set = res.headers()[SET_COOKIE].to_str().expect("ascii").to_string();
        set.split(';').next().expect("cookie pair").to_string()
    }

    async fn thread_count(&self) -> usize {
        let query = warden_types::thread::ThreadQuery { archived: false, before: None, limit: 100, pinned: None };
        self.engine.list_threads(query).await.expect("threads").len()
    }
}

fn with_body(req: reqwest::RequestBuilder, body: Body) -> reqwest::RequestBuilder {
    match body {
        Body::Json(value) => req.header(CONTENT_TYPE, "application/json").body(value.to_string()),
    }
}

async fn send(req: reqwest::RequestBuilder) -> (StatusCode, Value) {
    let res = req.send().await.expect("request sent");
    let status = res.status();
    let text = res.text().await.expect("body read");
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

/// The variant of the app's error type a server function answered with (`{"NotFound": "..."}`).
fn kind(body: &Value) -> String {
    body.as_object().and_then(|o| o.keys().next().cloned()).unwrap_or_else(|| format!("<not an AppError: {body}>"))
}

fn script() -> Script {
    let write = Turn::calls(vec![ScriptedCall::new("write_file", json!({"path": "waited.txt", "content": "x"}))]);
    let mut slow = Turn::text("slow slow slow");
    slow.stall_after_tokens = Some(1);
    Script {
        scenarios: vec![Scenario::new("save", vec![write, Turn::text("never")]), Scenario::new("slow", vec![slow])],
        default_title: None,
    }
}

/// Polls until `done` holds for the run's stored state (no timing is asserted, only the outcome).
async fn wait_for(what: &str, mut done: impl AsyncFnMut() -> bool) {
    let waited = tokio::time::timeout(Duration::from_secs(30), async {
        while !done().await {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert!(waited.is_ok(), "{what} never happened");
}

#[tokio::test]
async fn thread_and_run_server_functions_answer_unknown_ids_with_404_and_bad_input_with_422() {
    let app = App::start(script()).await;
    let (s, chat) = app.call(fns::StartChat::PATH, Body::Json(json!({"prompt": "slow please"}))).await;
    assert_eq!(s, StatusCode::OK, "{chat}");
    let thread = chat["thread_id"].as_str().expect("thread id").to_string();
    let thread = thread.as_str();

    let cases: Vec<(&str, Body, StatusCode, &str)> = vec![
        (fns::StartChat::PATH, Body::Json(json!({"prompt": "   "})), StatusCode::UNPROCESSABLE_ENTITY, "Invalid"),
        (
            fns::SendMessage::PATH,
            Body::Json(json!({"thread_id": "nope", "content": "hi"})),
            StatusCode::NOT_FOUND,
            "NotFound",
        ),
        (
            fns::SendMessage::PATH,
            Body::Json(json!({"thread_id": thread, "content": " \n "})),
            StatusCode::UNPROCESSABLE_ENTITY,
            "Invalid",
        ),
        (
            fns::SendMessage::PATH,
            Body::Json(json!({"thread_id": thread, "content": "again"})),
            StatusCode::CONFLICT,
            "Conflict",
        ),
        (fns::RetryRun::PATH, Body::Json(json!({"thread_id": "nope"})), StatusCode::NOT_FOUND, "NotFound"),
        (fns::StopRun::PATH, Body::Json(json!({"run_id": "nope"})), StatusCode::NOT_FOUND, "NotFound"),
        (fns::RevokeRule::PATH, Body::Json(json!({"rule_id": "nope"})), StatusCode::NOT_FOUND, "NotFound"),
        (fns::GetThread::PATH, Body::Json(json!({"id": "nope"})), StatusCode::NOT_FOUND, "NotFound"),
        (
            fns::EarlierMessages::PATH,
            Body::Json(json!({"thread_id": "nope", "before": "x"})),
            StatusCode::NOT_FOUND,
            "NotFound",
        ),
        (
            fns::EarlierMessages::PATH,
            Body::Json(json!({"thread_id": thread, "before": "nope"})),
            StatusCode::NOT_FOUND,
            "NotFound",
        ),
        (fns::RenameThread::PATH, Body::Json(json!({"id": "nope", "title": "New"})), StatusCode::NOT_FOUND, "NotFound"),
        (
            fns::RenameThread::PATH,
            Body::Json(json!({"id": thread, "title": "  "})),
            StatusCode::UNPROCESSABLE_ENTITY,
            "Invalid",
        ),
        (
            fns::SetArchived::PATH,
            Body::Json(json!({"id": "nope", "archived": true})),
            StatusCode::NOT_FOUND,
            "NotFound",
        ),
        (fns::DeleteThread::PATH, Body::Json(json!({"id": "nope"})), StatusCode::NOT_FOUND, "NotFound"),
    ];
    for (path, body, status, expected) in cases {
        let (s, answer) = app.call(path, body).await;
        assert_eq!((s, kind(&answer)), (status, expected.to_string()), "{path}: {answer}");
    }

    // None of it changed the thread: its title and its one message are as they were.
    let (s, detail) = app.call(fns::GetThread::PATH, Body::Json(json!({"id": thread}))).await;
    assert_eq!(s, StatusCode::OK);
    let detail: warden_app::model::ThreadDetail = serde_json::from_value(detail).expect("the app's ThreadDetail");
    assert_eq!(detail.messages.iter().filter(|m| m.content == "slow please").count(), 1);
    assert_eq!(app.thread_count().await, 1, "a refused start_chat created no thread");
}

#[tokio::test]
async fn arguments_that_do_not_parse_are_a_422_not_a_server_failure_and_change_nothing() {
    let app = App::start(script()).await;
    let (_, chat) = app.call(fns::StartChat::PATH, Body::Json(json!({"prompt": "slow please"}))).await;
    let thread = chat["thread_id"].as_str().expect("thread id").to_string();
    for (path, body) in [
        (fns::SetArchived::PATH, Body::Json(json!({"id": thread.as_str(), "archived": "maybe"}))),
        (fns::SendMessage::PATH, Body::Json(json!({"thread_id": thread.as_str()}))),
        (fns::GetThread::PATH, Body::Json(json!({}))),
        (fns::GetThread::PATH, Body::Json(json!({"id": thread.as_str(), "at_least": -1}))),
        (fns::EarlierMessages::PATH, Body::Json(json!({"thread_id": thread.as_str()}))),
        (mcp::SetMcpToolPolicy::PATH, Body::Json(json!({"name": "x", "tool": "y", "policy": "sometimes"}))),
    ] {
        let (s, answer) = app.call(path, body).await;
        assert_eq!((s, kind(&answer)), (StatusCode::UNPROCESSABLE_ENTITY, "Invalid".to_string()), "{path}: {answer}");
    }
    let detail = app.engine.thread(&ThreadId::from(thread.as_str())).await.expect("thread");
    assert!(!detail.thread.archived, "archived=maybe archived nothing");
}

#[tokio::test]
async fn mcp_server_functions_answer_unknown_servers_with_404_and_bad_configs_with_422() {
    let app = App::start(script()).await;
    let config = |name: &str, command: &str| json!({"config": {"name": name, "enabled": true, "transport": {"type": "stdio", "command": command}, "call_timeout_secs": 5}});
    let (no_command, bad_name) = (config("probe", ""), config("bad__name", "true"));
    let cases: Vec<(&str, Body, StatusCode, &str)> = vec![
        (mcp::RemoveMcpServer::PATH, Body::Json(json!({"name": "nope"})), StatusCode::NOT_FOUND, "NotFound"),
        (
            mcp::SetMcpEnabled::PATH,
            Body::Json(json!({"name": "nope", "enabled": true})),
            StatusCode::NOT_FOUND,
            "NotFound",
        ),
        (
            mcp::SetMcpTrustReadOnly::PATH,
            Body::Json(json!({"name": "nope", "trust": true})),
            StatusCode::NOT_FOUND,
            "NotFound",
        ),
        (mcp::ReconnectMcpServer::PATH, Body::Json(json!({"name": "nope"})), StatusCode::NOT_FOUND, "NotFound"),
        (
            mcp::SetMcpToolPolicy::PATH,
            Body::Json(json!({"name": "nope", "tool": "echo", "policy": "always_ask"})),
            StatusCode::NOT_FOUND,
            "NotFound",
        ),
        (mcp::SaveMcpServer::PATH, Body::Json(no_command), StatusCode::UNPROCESSABLE_ENTITY, "Invalid"),
        (mcp::TestMcpConnection::PATH, Body::Json(bad_name.clone()), StatusCode::UNPROCESSABLE_ENTITY, "Invalid"),
        (mcp::SaveMcpServer::PATH, Body::Json(bad_name), StatusCode::UNPROCESSABLE_ENTITY, "Invalid"),
        (
            mcp::ImportMcpServers::PATH,
            Body::Json(json!({"json": "{not json"})),
            StatusCode::UNPROCESSABLE_ENTITY,
            "Invalid",
        ),
    ];
    for (path, body, status, expected) in cases {
        let (s, answer) = app.call(path, body).await;
        assert_eq!((s, kind(&answer)), (status, expected.to_string()), "{path}: {answer}");
    }
    let (s, listed) = app.call(mcp::ListMcpServers::PATH, Body::Json(json!({}))).await;
    assert_eq!((s, listed), (StatusCode::OK, json!([])), "nothing was saved");
}

#[tokio::test]
async fn a_cross_origin_post_to_a_server_function_is_refused_before_it_changes_anything() {
    let app = App::start(script()).await;
    let cookie = app.sign_in().await;
    let (_, chat) = app.call(fns::StartChat::PATH, Body::Json(json!({"prompt": "slow please"}))).await;
    let thread = chat["thread_id"].as_str().expect("thread id").to_string();
    let other_port = format!("http://127.0.0.1:{}", app.served.addr.port().wrapping_add(1).max(1));

    let attempts: Vec<(&str, Vec<(&'static str, &str)>)> = vec![
        (fns::StartChat::PATH, vec![("prompt", "an attacker's prompt")]),
        (fns::RenameThread::PATH, vec![("id", thread.as_str()), ("title", "renamed by an attacker")]),
        (fns::DeleteThread::PATH, vec![("id", thread.as_str())]),
        (mcp::ImportMcpServers::PATH, vec![("json", r#"{"mcpServers": {"evil": {"command": "true"}}}"#)]),
        // JSON-encoded, but a cross-site form post still reaches the route: refused by origin first.
        (fns::DecideApproval::PATH, vec![("id", "any"), ("decision", "approve")]),
    ];
    for (path, pairs) in &attempts {
        for (name, value) in [
            ("origin", "http://evil.example"),
            ("origin", other_port.as_str()),
            ("origin", "null"),
            ("sec-fetch-site", "cross-site"),
        ] {
            // A signed-in browser on another site: the session cookie comes along, a form needs no preflight.
            let req = anonymous().post(app.url(path)).header(COOKIE, &cookie).header(name, value).form(pairs);
            let res = req.send().await.expect("request");
            let status = res.status();
            let body: Value = res.json().await.unwrap_or(Value::Null);
            assert_eq!(
                (status, body["error"]["code"].as_str()),
                (StatusCode::FORBIDDEN, Some("cross_origin")),
                "{path} {name}: {value}"
            );
        }
    }
    assert_eq!(app.thread_count().await, 1, "no thread was started");
    let detail = app.engine.thread(&ThreadId::from(thread.as_str())).await.expect("the thread was not deleted");
    assert_ne!(detail.thread.title, "renamed by an attacker");
    let (_, listed) = app.call(mcp::ListMcpServers::PATH, Body::Json(json!({}))).await;
    assert_eq!(listed, json!([]), "no MCP server was imported");

    // From Warden's own page a form is still refused (server functions take JSON only), and the same
    // request as JSON is served: the refusals above were the origin's doing.
    let own_page = || {
        anonymous()
            .post(app.url(fns::RenameThread::PATH))
            .header(COOKIE, &cookie)
            .header(ORIGIN, app.served.base.clone())
    };
    let (status, body) = send(own_page().form(&[("id", thread.as_str()), ("title", "renamed by a form")])).await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (StatusCode::UNSUPPORTED_MEDIA_TYPE, &json!("unsupported_media_type"))
    );
    let res = own_page().json(&json!({"id": thread, "title": "renamed by the person"})).send().await.expect("request");
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(
        app.engine.thread(&ThreadId::from(thread.as_str())).await.expect("thread").thread.title,
        "renamed by the person"
    );
}

#[tokio::test]
async fn get_thread_opens_a_thread_stopped_while_a_card_waited() {
    use warden_app::model::{ApprovalStatus as ViewStatus, DecidedBy as ViewBy, ThreadDetail};

    let app = App::start(script()).await;
    let (s, chat) = app.call(fns::StartChat::PATH, Body::Json(json!({"prompt": "save a file"}))).await;
    assert_eq!(s, StatusCode::OK, "{chat}");
    let (thread, run) =
        (chat["thread_id"].as_str().expect("thread").to_string(), chat["run_id"].as_str().expect("run").to_string());
    let engine = app.engine.clone();
    wait_for("the approval card", async || {
        engine
            .thread(&ThreadId::from(thread.as_str()))
            .await
            .is_ok_and(|d| d.approvals.iter().any(|a| a.status == ApprovalStatus::Pending))
    })
    .await;

    let (s, answer) = app.call(fns::StopRun::PATH, Body::Json(json!({"run_id": run.as_str()}))).await;
    assert_eq!(s, StatusCode::OK, "{answer}");
    wait_for("the end of the stopped run", async || {
        engine.thread(&ThreadId::from(thread.as_str())).await.is_ok_and(|d| d.active_run.is_none())
    })
    .await;

    let (s, body) = app.call(fns::GetThread::PATH, Body::Json(json!({"id": thread.as_str()}))).await;
    assert_eq!(s, StatusCode::OK, "get_thread answers: {body}");
    let detail: ThreadDetail = serde_json::from_value(body).expect("the answer is the app's ThreadDetail");
    let approval = &detail.approvals[0];
    assert_eq!(approval.status, ViewStatus::Cancelled);
    let decision = approval.decision.as_ref().expect("the card records how it ended");
    assert_eq!(decision.by, ViewBy::RunStopped);
    assert!(!app.engine.config().workspace.join("waited.txt").exists(), "the stopped call never ran");
}

#[tokio::test]
async fn a_decision_through_the_server_function_runs_the_call_once_and_a_second_one_is_a_conflict_as_in_the_api() {
    let app = App::start(script()).await;
    let (s, chat) = app.call(fns::StartChat::PATH, Body::Json(json!({"prompt": "save a file"}))).await;
    assert_eq!(s, StatusCode::OK, "{chat}");
    let thread = chat["thread_id"].as_str().expect("thread").to_string();
    let engine = app.engine.clone();
    wait_for("the approval card", async || {
        engine
            .thread(&ThreadId::from(thread.as_str()))
            .await
            .is_ok_and(|d| d.approvals.iter().any(|a| a.status == ApprovalStatus::Pending))
    })
    .await;
    let approval = engine.thread(&ThreadId::from(thread.as_str())).await.expect("thread").approvals[0].id.clone();

    // Edited arguments that do not fit the tool: refused as the API refuses them, nothing decided.
    let bad = json!({"id": approval, "decision": {"decision": "approve", "arguments": {"path": 7}}});
    let (s, answer) = app.call(fns::DecideApproval::PATH, Body::Json(bad)).await;
    assert_eq!((s, kind(&answer).as_str()), (StatusCode::UNPROCESSABLE_ENTITY, "Invalid"), "{answer}");
    assert_eq!(engine.approval(&approval).await.expect("approval").status, ApprovalStatus::Pending);

    let approve = json!({"id": approval, "decision": {"decision": "approve"}});
    let (s, decided) = app.call(fns::DecideApproval::PATH, Body::Json(approve.clone())).await;
    assert_eq!(s, StatusCode::OK, "{decided}");
    assert_eq!(decided["status"], "approved", "the answer is the decided approval: {decided}");
    let workspace = app.engine.config().workspace.clone();
    wait_for("the approved write", async || workspace.join("waited.txt").exists()).await;

    // Deciding again: 409 from the server function, and the same status from the public API.
    let (s, again) = app.call(fns::DecideApproval::PATH, Body::Json(approve)).await;
    assert_eq!((s, kind(&again).as_str()), (StatusCode::CONFLICT, "Conflict"), "{again}");
    let api = app.http.post(app.url(&format!("/api/approvals/{approval}"))).json(&json!({"decision": "approve"}));
    let (api_status, api_answer) = send(api).await;
    assert_eq!(api_status, StatusCode::CONFLICT, "{api_answer}");
    assert_eq!(std::fs::read_to_string(workspace.join("waited.txt")).expect("written"), "x", "written once");
}

#[tokio::test]
async fn provider_server_functions_never_answer_with_a_key_and_refuse_bad_input_and_other_origins() {
    use warden_app::server_fns::providers as p;
    let app = App::start(script()).await;
    let key = "sk-server-fn-secret-5151";
    let base_url = app._model.base_url();
    let provider = |id: Option<&str>, base_url: &str, api_key: &str| {
        json!({"provider": {"id": id, "name": "Keyed", "kind": "openai_compatible", "base_url": base_url,
                            "api_key": api_key, "default_model": "keyed-model"}})
    };

    // Another site's page, with the signed-in browser's cookie, cannot add one.
    let cookie = app.sign_in().await;
    let res = anonymous()
        .post(app.url(p::SaveProvider::PATH))
        .header(COOKIE, &cookie)
        .header(ORIGIN, "http://evil.example")
        .header(CONTENT_TYPE, "application/json")
        .body(provider(None, &base_url, key).to_string())
        .send()
        .await
        .expect("request");
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    // Nor can a caller without the token.
    let res = anonymous().post(app.url(p::ListProviders::PATH)).form(&[("", "")]).send().await.expect("request");
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    assert!(app.engine.providers().entries.iter().all(|e| e.name != "Keyed"));

    let (s, saved) = app.call(p::SaveProvider::PATH, Body::Json(provider(None, &base_url, key))).await;
    assert_eq!(s, StatusCode::OK, "{saved}");
    let id = saved["id"].as_str().expect("an id").to_string();
    let (s, tested) = app.call(p::TestProvider::PATH, Body::Json(provider(Some(&id), &base_url, "••••5151"))).await;
    assert_eq!((s, tested["ok"].as_bool()), (StatusCode::OK, Some(true)), "{tested}");
    let (s, listed) = app.call(p::ListProviders::PATH, Body::Json(json!({}))).await;
    assert_eq!(s, StatusCode::OK);
    let (_, entry_test) = app.call(p::TestProviderEntry::PATH, Body::Json(json!({"id": id.as_str()}))).await;
    for answer in [&saved, &tested, &listed, &entry_test] {
        assert!(!answer.to_string().contains(key), "a key came back: {answer}");
    }
    assert_eq!(saved["key"], "••••5151");

    let moved = provider(Some(&id), "http://127.0.0.1:9/v1", "••••5151");
    let (_, chat) = app.call(fns::StartChat::PATH, Body::Json(json!({"prompt": "slow please"}))).await;
    let thread = chat["thread_id"].as_str().expect("thread id").to_string();
    let cases: Vec<(&str, Body, StatusCode, &str)> = vec![
        (p::SaveProvider::PATH, Body::Json(moved.clone()), StatusCode::UNPROCESSABLE_ENTITY, "Invalid"),
        (p::TestProvider::PATH, Body::Json(moved), StatusCode::UNPROCESSABLE_ENTITY, "Invalid"),
        (p::RemoveProvider::PATH, Body::Json(json!({"id": "nope"})), StatusCode::NOT_FOUND, "NotFound"),
        (p::TestProviderEntry::PATH, Body::Json(json!({"id": "nope"})), StatusCode::NOT_FOUND, "NotFound"),
        (
            p::SetThreadModel::PATH,
            Body::Json(json!({"thread_id": thread, "model": {"provider_id": "nope", "model": "m"}})),
            StatusCode::NOT_FOUND,
            "NotFound",
        ),
        (
            fns::SetThreadOptions::PATH,
            Body::Json(json!({"thread_id": thread, "options": {"tools": true, "mcp": true, "max_steps": 101}})),
            StatusCode::UNPROCESSABLE_ENTITY,
            "Invalid",
        ),
        (
            fns::StartChat::PATH,
            Body::Json(json!({"prompt": "hi", "choice": {"provider_id": "nope", "model": "m"}})),
            StatusCode::NOT_FOUND,
            "NotFound",
        ),
        (
            fns::StartChat::PATH,
            Body::Json(json!({"prompt": "hi", "choice": {"model": "m"}})),
            StatusCode::UNPROCESSABLE_ENTITY,
            "Invalid",
        ),
    ];
    for (path, body, status, expected) in cases {
        let (s, answer) = app.call(path, body).await;
        assert_eq!((s, kind(&answer)), (status, expected.to_string()), "{path}: {answer}");
    }
    assert_eq!(app.thread_count().await, 1, "a refused choice started no chat");

    // A good choice is kept, and shows in the thread.
    let choice = json!({"provider_id": id, "model": "keyed-model"});
    let (s, answer) =
        app.call(p::SetThreadModel::PATH, Body::Json(json!({"thread_id": thread, "model": choice}))).await;
    assert_eq!(s, StatusCode::OK, "{answer}");
    let detail = app.engine.thread(&ThreadId::from(thread.as_str())).await.expect("thread");
    assert_eq!(detail.model.map(|m| m.model).as_deref(), Some("keyed-model"));
    let (s, _) = app.call(p::RemoveProvider::PATH, Body::Json(json!({"id": id.as_str()}))).await;
    assert_eq!(s, StatusCode::OK);
}

/// The sidebar's import takes a file over the 2 MiB other server functions may send.
#[tokio::test]
async fn the_import_server_function_takes_an_export_over_2_mib() {
    let app = App::start(Script::default()).await;
    let thread = app.engine.create_thread(Some("Large file".into())).await.expect("thread");
    let res = app.http.get(app.url(&format!("/api/threads/{}/export.json", thread.id))).send().await.expect("export");
    let export = res.text().await.expect("body");
    let text = format!("{export}{}", " ".repeat(3 * 1024 * 1024));
    let (status, imported) = app.call(fns::ImportThread::PATH, Body::Json(json!({"text": text}))).await;
    assert_eq!(status, StatusCode::OK, "{imported}");
    assert_eq!(imported["title"], "Large file");
    assert_eq!(app.thread_count().await, 2);
}

/// Settings' executors: the bearer token goes in and never comes back, bad input and unknown ids are
/// refused as in the API, and neither a caller without the token nor another site's page can add one.
#[tokio::test]
async fn executor_server_functions_never_answer_with_the_bearer_token_and_refuse_bad_input_and_other_origins() {
    use warden_app::server_fns::outside_executors as x;
    let app = App::start(script()).await;
    let secret = "exec-server-fn-secret-7711";
    // Nothing listens on port 9: the executor is dialled and retried, which this test does not wait for.
    let add = |name: &str, url: &str| Body::Json(json!({"name": name, "url": url, "bearer_token": secret}));

    let cookie = app.sign_in().await;
    let res = anonymous()
        .post(app.url(x::AddOutsideExecutor::PATH))
        .header(COOKIE, &cookie)
        .header(ORIGIN, "http://evil.example")
        .form(&[("name", "evil"), ("url", "ws://127.0.0.1:9/")])
        .send()
        .await
        .expect("request");
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let res = anonymous().post(app.url(x::ListOutsideExecutors::PATH)).form(&[("", "")]).send().await.expect("request");
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    let (s, listed) = app.call(x::ListOutsideExecutors::PATH, Body::Json(json!({}))).await;
    assert_eq!((s, listed), (StatusCode::OK, json!([])), "nothing was added");

    let (s, added) = app.call(x::AddOutsideExecutor::PATH, add("runner", "ws://127.0.0.1:9/approver")).await;
    assert_eq!(s, StatusCode::OK, "{added}");
    assert_eq!(
        (&added["name"], &added["has_bearer_token"], &added["enabled"]),
        (&json!("runner"), &json!(true), &json!(true))
    );
    let id = added["id"].as_str().expect("an id").to_string();
    let (s, switched) =
        app.call(x::SetOutsideExecutorEnabled::PATH, Body::Json(json!({"id": id.as_str(), "enabled": false}))).await;
    assert_eq!(
        (s, &switched["enabled"], &switched["state"]["status"]),
        (StatusCode::OK, &json!(false), &json!("disabled"))
    );
    let (_, listed) = app.call(x::ListOutsideExecutors::PATH, Body::Json(json!({}))).await;
    for answer in [&added, &switched, &listed] {
        assert!(!answer.to_string().contains(secret), "the token came back: {answer}");
    }

    let cases: Vec<(&str, Body, StatusCode, &str)> = vec![
        (
            x::AddOutsideExecutor::PATH,
            add("spy", "ws://user:pw@127.0.0.1:9/"),
            StatusCode::UNPROCESSABLE_ENTITY,
            "Invalid",
        ),
        (x::AddOutsideExecutor::PATH, add("web", "http://127.0.0.1:9/"), StatusCode::UNPROCESSABLE_ENTITY, "Invalid"),
        (
            x::SetOutsideExecutorEnabled::PATH,
            Body::Json(json!({"id": "nope", "enabled": true})),
            StatusCode::NOT_FOUND,
            "NotFound",
        ),
        (x::RemoveOutsideExecutor::PATH, Body::Json(json!({"id": "nope"})), StatusCode::NOT_FOUND, "NotFound"),
    ];
    for (path, body, status, expected) in cases {
        let (s, answer) = app.call(path, body).await;
        assert_eq!((s, kind(&answer)), (status, expected.to_string()), "{path}: {answer}");
    }

    let (s, _) = app.call(x::RemoveOutsideExecutor::PATH, Body::Json(json!({"id": id.as_str()}))).await;
    assert_eq!(s, StatusCode::OK);
    let (_, listed) = app.call(x::ListOutsideExecutors::PATH, Body::Json(json!({}))).await;
    assert_eq!(listed, json!([]), "removed");
}
