//! The public HTTP API over real HTTP: the real router on port 0, a real SQLite file, the scripted
//! fixture model, SSE read with a real client. Every route and its error cases.

use crate::common;
use warden_types::id::ApprovalId;

use std::time::Duration;

use eventsource_stream::Eventsource;
use futures::StreamExt;
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};
use tempfile::TempDir;
use warden_engine::config::{Config, ModelConfig};
use warden_engine::Engine;
use warden_testkit::{FixtureModel, Scenario, Script, ScriptedCall, Turn};

struct Api {
    _dir: TempDir,
    _model: FixtureModel,
    engine: Engine,
    base: String,
    http: Client,
}

impl Api {
    async fn start(script: Script) -> Api {
        let dir = tempfile::tempdir().unwrap();
        let model = FixtureModel::start(script).await.unwrap();
        let mut config = Config::with_data_dir(dir.path());
        config.model = Some(ModelConfig { base_url: model.base_url(), api_key: None, model: "fixture".into() });
        let served = common::serve_api(config).await;
        Api { _dir: dir, _model: model, engine: served.engine().clone(), base: served.base, http: common::client() }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    async fn json(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        common::send_json(&self.http, method, self.url(path), body).await
    }

    async fn new_thread(&self) -> String {
        let (s, t) = self.json(reqwest::Method::POST, "/api/threads", Some(json!({}))).await;
        assert_eq!(s, StatusCode::CREATED);
        t["id"].as_str().unwrap().to_string()
    }
}

/// Reads SSE events (id, type, data) until `stop` says so or the stream ends.
async fn read_sse(res: reqwest::Response, stop: impl Fn(&str) -> bool) -> Vec<(u64, String, Value)> {
    assert_eq!(res.headers()["content-type"], "text/event-stream");
    let mut stream = res.bytes_stream().eventsource();
    let mut out = Vec::new();
    let read = async {
        while let Some(Ok(e)) = stream.next().await {
            let done = stop(&e.event);
            out.push((e.id.parse().unwrap(), e.event, serde_json::from_str(&e.data).unwrap()));
            if done {
                break;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(30), read).await.expect("stream ended in time");
    out
}

fn ends(kind: &str) -> bool {
    kind == "run_finished" || kind == "run_failed"
}

#[tokio::test]
async fn health_answers_ok() {
    let api = Api::start(Script::default()).await;
    let (s, body) = api.json(reqwest::Method::GET, "/api/health", None).await;
    assert_eq!((s, body), (StatusCode::OK, json!({"status": "ok"})));
}

#[tokio::test]
async fn thread_routes_create_list_read_patch_delete() {
    let api = Api::start(Script::default()).await;
    let (s, t) = api.json(reqwest::Method::POST, "/api/threads", Some(json!({"title": "Plans"}))).await;
    assert_eq!(s, StatusCode::CREATED);
    for key in ["id", "title", "archived", "created_at", "updated_at"] {
        assert!(t.get(key).is_some(), "thread has {key}");
    }
    let id = t["id"].as_str().unwrap();
    let (s, list) = api.json(reqwest::Method::GET, "/api/threads", None).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(list[0]["id"], id);

    let (s, t) = api
        .json(
            reqwest::Method::PATCH,
            &format!("/api/threads/{id}"),
            Some(json!({"title": "Renamed", "archived": true})),
        )
        .await;
    assert_eq!((s, t["title"].clone(), t["archived"].clone()), (StatusCode::OK, json!("Renamed"), json!(true)));
    let (_, list) = api.json(reqwest::Method::GET, "/api/threads", None).await;
    assert_eq!(list.as_array().unwrap().len(), 0);
    let (_, list) = api.json(reqwest::Method::GET, "/api/threads?archived=true", None).await;
    assert_eq!(list[0]["id"], id);

    let (s, detail) = api.json(reqwest::Method::GET, &format!("/api/threads/{id}"), None).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(detail["messages"], json!([]));

    // Pinned (without moving it), listed by `pinned`, and found by a search of its title.
    let (s, t) = api.json(reqwest::Method::PATCH, &format!("/api/threads/{id}"), Some(json!({"pinned": true}))).await;
    assert_eq!((s, t["pinned"].clone()), (StatusCode::OK, json!(true)));
    let (_, list) = api.json(reqwest::Method::GET, "/api/threads?archived=true&pinned=true", None).await;
    assert_eq!(list[0]["id"], id);
    let (_, list) = api.json(reqwest::Method::GET, "/api/threads?archived=true&pinned=false", None).await;
    assert_eq!(list, json!([]));
    let (s, hits) = api.json(reqwest::Method::GET, "/api/search?q=renam", None).await;
    assert_eq!((s, hits[0]["thread"]["id"].clone()), (StatusCode::OK, json!(id)));
    assert_eq!(hits[0]["snippet"], json!([{"text": "Renamed", "hit": true}]));
    let (s, body) = api.json(reqwest::Method::GET, "/api/search", None).await;
    assert_eq!((s, body["error"]["code"].clone()), (StatusCode::BAD_REQUEST, json!("bad_request")), "{body}");
    // A NUL, quotes and FTS5's own syntax are only text: 200 with what matches (FTS5 once read the
    // NUL as the end of its query and the search answered 500).
    for q in ["a%00b", "renam%00", "%22%00%22", "NEAR(%00)*", "%01%02%1f", "%00"] {
        let (s, hits) = api.json(reqwest::Method::GET, &format!("/api/search?q={q}"), None).await;
        assert_eq!(s, StatusCode::OK, "{q}: {hits}");
    }
    let (s, hits) = api.json(reqwest::Method::GET, "/api/search?q=%00renam%00", None).await;
    assert_eq!((s, hits[0]["thread"]["id"].clone()), (StatusCode::OK, json!(id)));

    let res = api.http.delete(api.url(&format!("/api/threads/{id}"))).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    let (s, body) = api.json(reqwest::Method::GET, &format!("/api/threads/{id}"), None).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert_eq!(body["error"]["code"], "not_found");
}

#[tokio::test]
async fn a_thread_downloads_as_json_and_markdown_and_the_json_imports_as_a_new_thread() {
    let api = Api::start(Script::default()).await;
    let (_, t) = api.json(reqwest::Method::POST, "/api/threads", Some(json!({"title": "Carried over"}))).await;
    let id = t["id"].as_str().unwrap();

    let res = api.http.get(api.url(&format!("/api/threads/{id}/export.json"))).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let disposition = res.headers()["content-disposition"].to_str().unwrap().to_string();
    assert_eq!(disposition, format!("attachment; filename=\"warden-thread-{id}.json\""));
    let export: Value = res.json().await.unwrap();
    assert_eq!(export["format"], "warden.thread.v1");

    let res = api.http.get(api.url(&format!("/api/threads/{id}/export.md"))).send().await.unwrap();
    assert_eq!(res.headers()["content-type"], "text/markdown; charset=utf-8");
    assert!(res.text().await.unwrap().starts_with("# Carried over\n"));

    let (s, imported) = api.json(reqwest::Method::POST, "/api/threads/import", Some(export.clone())).await;
    assert_eq!(s, StatusCode::CREATED, "{imported}");
    assert_ne!(imported["id"], json!(id));
    assert_eq!(imported["title"], "Carried over");
    assert!(imported["imported_at"].is_string());

    let mut bad = export;
    bad["format"] = json!("other");
    let (s, body) = api.json(reqwest::Method::POST, "/api/threads/import", Some(bad)).await;
    assert_eq!(
        (s, body["error"]["code"].clone()),
        (StatusCode::UNPROCESSABLE_ENTITY, json!("invalid_request")),
        "{body}"
    );
    let (_, list) = api.json(reqwest::Method::GET, "/api/threads", None).await;
    assert_eq!(list.as_array().unwrap().len(), 2);
}

/// An export larger than the 2 MiB every other request may send still imports (32 MiB); a larger
/// one is a 413 and imports nothing. (The padding is JSON whitespace: the file stays valid.)
#[tokio::test]
async fn a_thread_export_over_2_mib_imports_and_one_over_32_mib_is_refused() {
    let api = Api::start(Script::default()).await;
    let (_, t) = api.json(reqwest::Method::POST, "/api/threads", Some(json!({"title": "Large"}))).await;
    let id = t["id"].as_str().unwrap();
    let export = api.http.get(api.url(&format!("/api/threads/{id}/export.json"))).send().await.unwrap();
    let export = export.text().await.unwrap();
    let import = |padding: usize| {
        let body = format!("{export}{}", " ".repeat(padding));
        api.http.post(api.url("/api/threads/import")).header("content-type", "application/json").body(body).send()
    };

    let res = import(3 * 1024 * 1024).await.unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
    assert_eq!(res.json::<Value>().await.unwrap()["title"], "Large");

    let res = import(33 * 1024 * 1024).await.unwrap();
    assert_eq!(res.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let (_, list) = api.json(reqwest::Method::GET, "/api/threads", None).await;
    assert_eq!(list.as_array().unwrap().len(), 2);

    // Anything else keeps the 2 MiB limit.
    let res = api
        .http
        .post(api.url("/api/threads"))
        .header("content-type", "application/json")
        .body(format!("{{}}{}", " ".repeat(3 * 1024 * 1024)))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::PAYLOAD_TOO_LARGE);
}

#[tokio::test]
async fn a_client_chosen_id_creates_a_thread_once_and_its_runs_and_title_have_routes() {
    let api = Api::start(Script::default()).await;
    let id = "1f0e2d9b-0b6c-4a59-9a55-3c1f7d7e1a52";
    let (s, t) = api.json(reqwest::Method::POST, "/api/threads", Some(json!({"id": id}))).await;
    assert_eq!((s, t["id"].clone()), (StatusCode::CREATED, json!(id)));
    let (s, t) = api.json(reqwest::Method::POST, "/api/threads", Some(json!({"id": id, "title": "x"}))).await;
    assert_eq!((s, t["title"].clone()), (StatusCode::OK, json!("New chat")));
    let (s, body) = api.json(reqwest::Method::POST, "/api/threads", Some(json!({"id": "no"}))).await;
    assert_eq!((s, body["error"]["code"].clone()), (StatusCode::UNPROCESSABLE_ENTITY, json!("invalid_request")));

    let (s, runs) = api.json(reqwest::Method::GET, &format!("/api/threads/{id}/runs"), None).await;
    assert_eq!((s, runs), (StatusCode::OK, json!([])));
    let (s, _) = api.json(reqwest::Method::GET, "/api/threads/not-a-thread/runs", None).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    // Nothing said yet: nothing to name it by.
    let (s, body) = api.json(reqwest::Method::POST, &format!("/api/threads/{id}/title"), None).await;
    assert_eq!((s, body["error"]["code"].clone()), (StatusCode::UNPROCESSABLE_ENTITY, json!("invalid_request")));
}

#[tokio::test]
async fn bad_input_gets_clear_errors_and_changes_nothing() {
    let api = Api::start(Script::default()).await;
    let id = api.new_thread().await;
    let cases = [
        (reqwest::Method::GET, "/api/threads/nope".to_string(), None, StatusCode::NOT_FOUND),
        (reqwest::Method::PATCH, "/api/threads/nope".to_string(), Some(json!({"title": "x"})), StatusCode::NOT_FOUND),
        (reqwest::Method::DELETE, "/api/threads/nope".to_string(), None, StatusCode::NOT_FOUND),
        (
            reqwest::Method::PATCH,
            format!("/api/threads/{id}"),
            Some(json!({"title": 7})),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            reqwest::Method::PATCH,
            format!("/api/threads/{id}"),
            Some(json!({"colour": "red"})),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            reqwest::Method::PATCH,
            format!("/api/threads/{id}"),
            Some(json!({"title": ""})),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            reqwest::Method::POST,
            format!("/api/threads/{id}/messages"),
            Some(json!({"text": "hi"})),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            reqwest::Method::POST,
            format!("/api/threads/{id}/messages"),
            Some(json!({"content": "   "})),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            reqwest::Method::POST,
            "/api/threads/nope/messages".to_string(),
            Some(json!({"content": "hi"})),
            StatusCode::NOT_FOUND,
        ),
        (reqwest::Method::GET, "/api/runs/nope/events".to_string(), None, StatusCode::NOT_FOUND),
        (reqwest::Method::GET, "/api/runs/nope".to_string(), None, StatusCode::NOT_FOUND),
        (
            reqwest::Method::POST,
            "/api/approvals/nope".to_string(),
            Some(json!({"decision": "approve"})),
            StatusCode::NOT_FOUND,
        ),
        (reqwest::Method::GET, "/api/approvals?status=maybe".to_string(), None, StatusCode::UNPROCESSABLE_ENTITY),
        (reqwest::Method::GET, "/api/threads?before=garbage".to_string(), None, StatusCode::UNPROCESSABLE_ENTITY),
    ];
    for (method, path, body, want) in cases {
        let (s, b) = api.json(method.clone(), &path, body).await;
        assert_eq!(s, want, "{method} {path}");
        assert!(b["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{method} {path} explains itself: {b}");
    }
    let res = api
        .http
        .post(api.url("/api/threads"))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let (_, detail) = api.json(reqwest::Method::GET, &format!("/api/threads/{id}"), None).await;
    assert_eq!(detail["messages"], json!([]), "nothing half-written");
    let (_, list) = api.json(reqwest::Method::GET, "/api/threads", None).await;
    assert_eq!(list.as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn posting_a_message_streams_the_run_and_reconnect_misses_nothing() {
    let api = Api::start(Script {
        scenarios: vec![Scenario::new("hi", vec![Turn::text("Hello from the fixture model, streamed.")])],
        default_title: None,
    })
    .await;
    let id = api.new_thread().await;
    let res = api
        .http
        .post(api.url(&format!("/api/threads/{id}/messages")))
        .json(&json!({"content": "hi"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    // Disconnect after the first delta.
    let first = read_sse(res, |k| k == "text_delta").await;
    assert_eq!(first[0].1, "run_started");
    let run_id = first[0].2["run_id"].as_str().unwrap().to_string();
    let last_id = first.last().unwrap().0;

    let res = api
        .http
        .get(api.url(&format!("/api/runs/{run_id}/events")))
        .header("Last-Event-ID", last_id.to_string())
        .send()
        .await
        .unwrap();
    let rest = read_sse(res, ends).await;
    assert!(rest.iter().all(|e| e.0 > last_id));
    let text: String = first
        .iter()
        .chain(rest.iter())
        .filter(|e| e.1 == "text_delta")
        .map(|e| e.2["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(text, "Hello from the fixture model, streamed.");
    assert_eq!(rest.last().unwrap().1, "run_finished");

    let full = read_sse(api.http.get(api.url(&format!("/api/runs/{run_id}/events"))).send().await.unwrap(), ends).await;
    assert_eq!(full.len(), first.len() + rest.len(), "a replay from the start has every event once");
    let (_, detail) = api.json(reqwest::Method::GET, &format!("/api/threads/{id}"), None).await;
    assert_eq!(detail["messages"][1]["content"], "Hello from the fixture model, streamed.");

    let res = api
        .http
        .get(api.url(&format!("/api/runs/{run_id}/events")))
        .header("Last-Event-ID", "abc")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn the_run_finishes_and_is_stored_when_the_client_goes_away() {
    let mut turn = Turn::text("one two three four five six seven eight nine ten");
    turn.chunk_delay_ms = 20;
    let api = Api::start(Script { scenarios: vec![Scenario::new("bye", vec![turn])], default_title: None }).await;
    let id = api.new_thread().await;
    let res = api
        .http
        .post(api.url(&format!("/api/threads/{id}/messages")))
        .json(&json!({"content": "bye"}))
        .send()
        .await
        .unwrap();
    let first = read_sse(res, |k| k == "text_delta").await;
    let run_id = first[0].2["run_id"].as_str().unwrap().to_string();
    // The response is dropped here; the run goes on.
    let rest = read_sse(api.http.get(api.url(&format!("/api/runs/{run_id}/events"))).send().await.unwrap(), ends).await;
    assert_eq!(rest.last().unwrap().1, "run_finished");
    let (_, detail) = api.json(reqwest::Method::GET, &format!("/api/threads/{id}"), None).await;
    assert_eq!(detail["messages"][1]["content"], "one two three four five six seven eight nine ten");
}

/// A server whose model asks for one shell call, a thread where that call waits: the API, the
/// thread id and the `approval_request`'s approval.
async fn waiting_shell_card(command: &str) -> (Api, String, Value) {
    let turn = Turn::calls(vec![ScriptedCall::new("shell", json!({ "command": command }))]);
    let api = Api::start(Script {
        scenarios: vec![Scenario::new("run", vec![turn, Turn::text("done")])],
        default_title: None,
    })
    .await;
    let id = api.new_thread().await;
    let res = api
        .http
        .post(api.url(&format!("/api/threads/{id}/messages")))
        .json(&json!({"content": "run it"}))
        .send()
        .await
        .unwrap();
    let events = read_sse(res, |k| k == "approval_request").await;
    let approval = events.last().unwrap().2["approval"].clone();
    (api, id, approval)
}

#[tokio::test]
async fn approvals_are_listed_decided_once_and_only_from_the_same_origin() {
    let (api, _, approval) = waiting_shell_card("echo hi >> decided.txt").await;
    let approval_id = approval["id"].as_str().unwrap().to_string();
    assert_eq!(approval["risk"], "high", "a redirect over a file is high risk");
    assert_eq!(approval["status"], "pending");

    let (s, pending) = api.json(reqwest::Method::GET, "/api/approvals?status=pending", None).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(pending.as_array().unwrap().len(), 1);
    for key in [
        "id",
        "run_id",
        "thread_id",
        "tool",
        "arguments",
        "summary",
        "risk",
        "status",
        "created_at",
        "decided_at",
        "decision",
    ] {
        assert!(pending[0].get(key).is_some(), "approval has {key}");
    }

    let url = api.url(&format!("/api/approvals/{approval_id}"));
    let res = api
        .http
        .post(&url)
        .header("Origin", "https://evil.example")
        .json(&json!({"decision": "approve"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let (s, _) = api
        .json(reqwest::Method::POST, &format!("/api/approvals/{approval_id}"), Some(json!({"decision": "maybe"})))
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        api.engine.approval(&ApprovalId::from(approval_id.as_str())).await.unwrap().status,
        warden_types::approval::ApprovalStatus::Pending
    );

    let same_origin = api.base.clone();
    let posts = (0..50).map(|_| {
        let req = api.http.post(&url).header("Origin", same_origin.clone()).json(&json!({"decision": "approve"}));
        async move { req.send().await.unwrap().status() }
    });
    let statuses = futures::future::join_all(posts).await;
    assert_eq!(statuses.iter().filter(|s| **s == StatusCode::OK).count(), 1);
    assert_eq!(statuses.iter().filter(|s| **s == StatusCode::CONFLICT).count(), 49);

    let run_id = approval["run_id"].as_str().unwrap();
    read_sse(api.http.get(api.url(&format!("/api/runs/{run_id}/events"))).send().await.unwrap(), ends).await;
    let ws = api.engine.config().workspace.join("decided.txt");
    assert_eq!(std::fs::read_to_string(ws).unwrap(), "hi\n");
    let (_, decided) = api.json(reqwest::Method::GET, "/api/approvals?status=approved", None).await;
    assert_eq!(decided[0]["decision"]["by"], "user");
}

#[tokio::test]
async fn stop_ends_a_run_and_retry_starts_a_new_one() {
    let mut turn = Turn::text("slow slow slow");
    turn.stall_after_tokens = Some(1);
    let api = Api::start(Script { scenarios: vec![Scenario::new("slow", vec![turn])], default_title: None }).await;
    let id = api.new_thread().await;
    let res = api
        .http
        .post(api.url(&format!("/api/threads/{id}/messages")))
        .json(&json!({"content": "slow"}))
        .send()
        .await
        .unwrap();
    let first = read_sse(res, |k| k == "text_delta").await;
    let run_id = first[0].2["run_id"].as_str().unwrap().to_string();
    let (s, _) = api
        .json(reqwest::Method::POST, &format!("/api/threads/{id}/messages"), Some(json!({"content": "again"})))
        .await;
    assert_eq!(s, StatusCode::CONFLICT);
    let res = api.http.post(api.url(&format!("/api/runs/{run_id}/stop"))).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::ACCEPTED);
    let rest = read_sse(api.http.get(api.url(&format!("/api/runs/{run_id}/events"))).send().await.unwrap(), ends).await;
    assert_eq!(rest.last().unwrap().2["stopped"], true);
    let (s, run) = api.json(reqwest::Method::GET, &format!("/api/runs/{run_id}"), None).await;
    assert_eq!((s, run["status"].clone()), (StatusCode::OK, json!("cancelled")));

    let res = api.http.post(api.url(&format!("/api/threads/{id}/retry"))).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let events = read_sse(res, |k| k == "text_delta").await;
    assert_eq!(events[0].1, "run_started");
    assert_ne!(events[0].2["run_id"], json!(run_id));
}

#[tokio::test]
async fn without_a_model_sending_says_what_to_set() {
    let dir = tempfile::tempdir().unwrap();
    let served = common::serve_api(Config::with_data_dir(dir.path())).await;
    assert!(!served.engine().model_status().configured);
    let base = served.base;
    let http = common::client();
    let t: Value =
        http.post(format!("{base}/api/threads")).json(&json!({})).send().await.unwrap().json().await.unwrap();
    let res = http
        .post(format!("{base}/api/threads/{}/messages", t["id"].as_str().unwrap()))
        .json(&json!({"content": "hi"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE);
    let body: Value = res.json().await.unwrap();
    assert!(body["error"]["message"].as_str().unwrap().contains("OPENAI_BASE_URL"));
}

#[tokio::test]
async fn an_approval_and_its_tool_call_are_read_by_id_and_a_thread_rule_is_revoked() {
    let (api, id, requested) = waiting_shell_card("echo by id").await;
    let approval_id = requested["id"].as_str().unwrap().to_string();
    let call_id = requested["tool_call_id"].as_str().unwrap().to_string();

    // GET /api/approvals/{id}: the card as it waits.
    let (s, approval) = api.json(reqwest::Method::GET, &format!("/api/approvals/{approval_id}"), None).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!((approval["id"].as_str(), approval["status"].as_str()), (Some(approval_id.as_str()), Some("pending")));
    assert_eq!(approval["arguments"]["command"], "echo by id");
    // GET /api/tool_calls/{id}: the call the card is about, not yet run.
    let (s, call) = api.json(reqwest::Method::GET, &format!("/api/tool_calls/{call_id}"), None).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!((call["id"].as_str(), call["name"].as_str()), (Some(call_id.as_str()), Some("shell")));
    assert_eq!(call["output"], Value::Null);

    let decision = json!({"decision": "approve", "scope": "thread", "prefix": "echo"});
    let (s, _) = api.json(reqwest::Method::POST, &format!("/api/approvals/{approval_id}"), Some(decision)).await;
    assert_eq!(s, StatusCode::OK);
    let run_id = requested["run_id"].as_str().unwrap();
    read_sse(api.http.get(api.url(&format!("/api/runs/{run_id}/events"))).send().await.unwrap(), ends).await;

    let (_, approval) = api.json(reqwest::Method::GET, &format!("/api/approvals/{approval_id}"), None).await;
    assert_eq!((approval["status"].as_str(), approval["decision"]["by"].as_str()), (Some("approved"), Some("user")));
    let (_, call) = api.json(reqwest::Method::GET, &format!("/api/tool_calls/{call_id}"), None).await;
    assert_eq!(
        (call["status"].as_str(), call["output"][0]["text"].as_str()),
        (Some("done"), Some("by id\nexit code: 0")),
        "the call ran: {call}"
    );

    // DELETE /api/rules/{id}: the thread's rule goes, once.
    let (_, detail) = api.json(reqwest::Method::GET, &format!("/api/threads/{id}"), None).await;
    let rule_id = detail["rules"][0]["id"].as_str().expect("the decision made a thread rule").to_string();
    let res = api.http.delete(api.url(&format!("/api/rules/{rule_id}"))).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    let (_, detail) = api.json(reqwest::Method::GET, &format!("/api/threads/{id}"), None).await;
    assert_eq!(detail["rules"], json!([]));

    for path in [format!("/api/rules/{rule_id}"), "/api/rules/nope".to_string()] {
        let (s, body) = api.json(reqwest::Method::DELETE, &path, None).await;
        assert_eq!((s, body["error"]["code"].as_str()), (StatusCode::NOT_FOUND, Some("not_found")), "{path}");
    }
    for path in ["/api/approvals/nope", "/api/tool_calls/nope"] {
        let (s, body) = api.json(reqwest::Method::GET, path, None).await;
        assert_eq!((s, body["error"]["code"].as_str()), (StatusCode::NOT_FOUND, Some("not_found")), "{path}");
    }
}

#[tokio::test]
async fn providers_are_listed_added_tested_chosen_and_removed_and_keys_never_come_back() {
    let api = Api::start(Script::default()).await;
    let other = FixtureModel::start_with_key(Script::default(), "sk-api-test-key-9876").await.unwrap();
    let (s, list) = api.json(reqwest::Method::GET, "/api/providers", None).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(list["default"]["provider_id"], "env-openai");

    let entry = json!({"name": "Other", "kind": "openai_compatible", "base_url": other.base_url(),
        "api_key": "sk-api-test-key-9876", "default_model": "other-model"});
    let (s, tested) = api.json(reqwest::Method::POST, "/api/providers/test", Some(entry.clone())).await;
    assert_eq!((s, &tested["ok"], &tested["models"]), (StatusCode::OK, &json!(true), &json!(["fixture-model"])));
    let (s, added) = api.json(reqwest::Method::POST, "/api/providers", Some(entry)).await;
    assert_eq!(s, StatusCode::CREATED);
    assert_eq!(added["key"], "••••9876");
    let id = added["id"].as_str().unwrap().to_string();
    let (_, list) = api.json(reqwest::Method::GET, "/api/providers", None).await;
    assert!(!list.to_string().contains("sk-api-test-key-9876"), "{list}");

    let thread = api.new_thread().await;
    let choice = json!({"model": {"provider_id": id, "model": "other-model"}});
    let (s, _) = api.json(reqwest::Method::PUT, &format!("/api/threads/{thread}/model"), Some(choice)).await;
    assert_eq!(s, StatusCode::NO_CONTENT);
    let (_, detail) = api.json(reqwest::Method::GET, &format!("/api/threads/{thread}"), None).await;
    assert_eq!(detail["model"]["model"], "other-model");
    let bad = json!({"model": {"provider_id": "nope", "model": "m"}});
    let (s, _) = api.json(reqwest::Method::PUT, &format!("/api/threads/{thread}/model"), Some(bad)).await;
    assert_eq!(s, StatusCode::NOT_FOUND);

    let (s, _) = api.json(reqwest::Method::DELETE, &format!("/api/providers/{id}"), None).await;
    assert_eq!(s, StatusCode::NO_CONTENT);
    let (s, _) = api.json(reqwest::Method::DELETE, "/api/providers/env-openai", None).await;
    assert_eq!(s, StatusCode::NOT_FOUND, "environment entries are read-only");
}

#[tokio::test]
async fn strangers_cannot_read_change_or_test_providers() {
    let api = Api::start(Script::default()).await;
    let stranger = common::anonymous();
    let entry = json!({"name": "X", "kind": "openai_compatible", "base_url": "http://127.0.0.1:9/v1",
        "default_model": "m"});
    for (method, path, body) in [
        (reqwest::Method::GET, "/api/providers", None),
        (reqwest::Method::POST, "/api/providers", Some(entry.clone())),
        (reqwest::Method::POST, "/api/providers/test", Some(entry.clone())),
        (reqwest::Method::POST, "/api/providers/env-openai/test", None),
        (reqwest::Method::PUT, "/api/threads/t/model", Some(json!({"model": null}))),
    ] {
        let (s, _) = common::send_json(&stranger, method.clone(), api.url(path), body.clone()).await;
        assert_eq!(s, StatusCode::UNAUTHORIZED, "{method} {path} without the token");
        // With the token but from another site's page: state changes are refused.
        if method != reqwest::Method::GET {
            let mut req = api.http.request(method.clone(), api.url(path)).header("Origin", "https://evil.example");
            if let Some(b) = &body {
                req = req.json(b);
            }
            let s = req.send().await.unwrap().status();
            assert_eq!(s, StatusCode::FORBIDDEN, "{method} {path} from another origin");
        }
    }
    assert!(api.engine.providers().entries.iter().all(|e| e.read_only), "nothing was added");
}
