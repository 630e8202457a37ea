//! Crashes of the real server binary: each test starts `warden-server` as a child process on a data
//! dir of its own (a real SQLite file, the scripted fixture model over real HTTP), kills it with
//! SIGKILL at a chosen moment, starts it again on the same data and checks what a client sees:
//! mid-stream, a client that reconnects with `Last-Event-ID` ends with exactly the stored text and
//! never sees an event id twice; mid-tool-call, the call is never run again; mid-decision, the
//! approved call runs at most once and the run ends.

use crate::common;
use warden_types::id::{ApprovalId, RunId, ThreadId};

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use eventsource_stream::Eventsource;
use futures::StreamExt;
use reqwest::Client;
use serde_json::{json, Value};
use tempfile::TempDir;
use warden_testkit::{FixtureModel, Scenario, Script, ScriptedCall, Turn};

use crate::common::client;
use crate::common::process::ServerProcess as Server;

/// The fixture model's address and key, as the server reads them from the environment.
fn model_env(model: &FixtureModel) -> Vec<(&'static str, String)> {
    vec![
        ("OPENAI_BASE_URL", model.base_url()),
        ("OPENAI_API_KEY", "fixture-key".to_string()),
        ("WARDEN_MODEL", "fixture".to_string()),
    ]
}

/// One SSE event as a client keeps it.
#[derive(Debug, Clone)]
struct Seen {
    id: u64,
    event: String,
    data: Value,
}

/// Reads the run's events (after `after`, if given) until `stop` says so or the stream ends.
async fn read_events(
    http: &Client,
    base: &str,
    run_id: &RunId,
    after: Option<u64>,
    mut stop: impl FnMut(&[Seen]) -> bool,
) -> Vec<Seen> {
    let mut req = http.get(format!("{base}/api/runs/{run_id}/events"));
    if let Some(after) = after {
        req = req.header("last-event-id", after.to_string());
    }
    let res = req.send().await.expect("event stream");
    assert!(res.status().is_success(), "events: {}", res.status());
    let mut stream = res.bytes_stream().eventsource();
    let mut seen = Vec::new();
    let read = async {
        while let Some(Ok(e)) = stream.next().await {
            let id = e.id.parse().expect("a numeric event id");
            seen.push(Seen { id, event: e.event.clone(), data: serde_json::from_str(&e.data).expect("JSON data") });
            if stop(&seen) {
                return;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(120), read).await.expect("the events arrive");
    seen
}

fn ended(seen: &[Seen]) -> bool {
    seen.last().is_some_and(|e| e.event == "run_finished" || e.event == "run_failed")
}

/// What a client shows of the run's current text, applying the protocol: deltas append,
/// `turn_restarted` drops what was streamed since the last stored message.
fn shown_text(events: &[Seen]) -> String {
    let mut text = String::new();
    for e in events {
        match e.event.as_str() {
            "text_delta" => text.push_str(e.data["text"].as_str().unwrap_or_default()),
            "turn_restarted" => text.clear(),
            _ => {}
        }
    }
    text
}

async fn start_run(http: &Client, base: &str, prompt: &str) -> (String, String) {
    let (_, thread) =
        common::send_json(http, reqwest::Method::POST, format!("{base}/api/threads"), Some(json!({}))).await;
    let thread_id = thread["id"].as_str().expect("thread id").to_string();
    let run_id = send_in(http, base, &ThreadId::from(thread_id.as_str()), prompt).await;
    (thread_id, run_id)
}

async fn thread(http: &Client, base: &str, thread_id: &ThreadId) -> Value {
    common::send_json(http, reqwest::Method::GET, format!("{base}/api/threads/{thread_id}"), None).await.1
}

async fn wait_until(what: &str, mut done: impl AsyncFnMut() -> bool) {
    let waited = tokio::time::timeout(Duration::from_secs(60), async {
        while !done().await {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    assert!(waited.is_ok(), "{what} never happened");
}

fn workspace(data: &TempDir) -> PathBuf {
    data.path().join("workspace")
}

#[tokio::test]
async fn a_client_reconnecting_after_a_sigkill_mid_stream_ends_with_exactly_the_stored_text_and_no_id_twice() {
    let mut long = Turn::text("Counting:");
    long.repeat_tokens = Some(60);
    long.chunk_delay_ms = 25;
    let model =
        FixtureModel::start(Script { scenarios: vec![Scenario::new("count", vec![long])], default_title: None })
            .await
            .expect("fixture model");
    let data = tempfile::tempdir().expect("data dir");
    let http = client();

    let first = Server::start(data.path(), &model_env(&model)).await;
    let (thread_id, run_id) = start_run(&http, &first.base, "count please").await;
    // The client reads part of the answer, then the server dies.
    let before = read_events(&http, &first.base, &RunId::from(run_id.as_str()), None, |seen| {
        seen.iter().filter(|e| e.event == "text_delta").count() >= 20
    })
    .await;
    first.kill();
    let partial = shown_text(&before);
    assert!(!partial.is_empty(), "the client showed part of the answer before the kill");

    let second = Server::start(data.path(), &model_env(&model)).await;
    let last_seen = before.last().expect("events seen").id;
    let after = read_events(&http, &second.base, &RunId::from(run_id.as_str()), Some(last_seen), ended).await;
    assert_eq!(after.last().map(|e| e.event.as_str()), Some("run_finished"), "{after:?}");
    assert!(after.iter().any(|e| e.event == "turn_restarted"), "the client is told to drop the partial turn");

    // Ids only grow, across the crash too: none the client saw is given to another event.
    let ids: Vec<u64> = before.iter().chain(&after).map(|e| e.id).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "ids strictly increase across the restart: {ids:?}");
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), ids.len());

    // What the client ends with is exactly what was stored.
    let detail = thread(&http, &second.base, &ThreadId::from(thread_id.as_str())).await;
    let stored = detail["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .rev()
        .find(|m| m["role"] == "assistant")
        .and_then(|m| m["content"].as_str())
        .expect("a stored answer")
        .to_string();
    let shown = shown_text(&before.iter().chain(&after).cloned().collect::<Vec<_>>());
    assert_eq!(shown, stored, "the client shows exactly the stored answer");
    // A client that opens the run afresh replays the log to the same text.
    let replay = read_events(&http, &second.base, &RunId::from(run_id.as_str()), None, ended).await;
    assert_eq!(shown_text(&replay), stored);
}

/// A turn that asks for one shell call, then answers with whatever the tool said.
fn shell_script(command: &str) -> Script {
    let call = Turn::calls(vec![ScriptedCall::new("shell", json!({"command": command}))]);
    let mut reply = Turn::text("Done.");
    reply.echo_tool_results = true;
    Script { scenarios: vec![Scenario::new("shell", vec![call, reply])], default_title: None }
}

async fn pending_approval(http: &Client, base: &str, thread_id: &ThreadId) -> String {
    let mut id = None;
    wait_until("the approval card", async || {
        let detail = thread(http, base, thread_id).await;
        id = detail["approvals"]
            .as_array()
            .and_then(|a| a.iter().find(|a| a["status"] == "pending"))
            .and_then(|a| a["id"].as_str())
            .map(String::from);
        id.is_some()
    })
    .await;
    id.expect("a pending approval")
}

async fn approve(http: &Client, base: &str, approval_id: &ApprovalId) {
    let (status, body) = common::send_json(
        http,
        reqwest::Method::POST,
        format!("{base}/api/approvals/{approval_id}"),
        Some(json!({"decision": "approve"})),
    )
    .await;
    assert!(status.is_success(), "approve: {status} {body}");
}

async fn run_status(http: &Client, base: &str, run_id: &RunId) -> String {
    let (_, run) = common::send_json(http, reqwest::Method::GET, format!("{base}/api/runs/{run_id}"), None).await;
    run["status"].as_str().unwrap_or_default().to_string()
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map(|s| s.lines().count()).unwrap_or(0)
}

#[tokio::test]
async fn a_call_running_when_the_server_is_killed_is_interrupted_and_never_run_again() {
    let model = FixtureModel::start(shell_script("echo started >> log.txt; sleep 30; echo finished >> log.txt"))
        .await
        .expect("fixture model");
    let data = tempfile::tempdir().expect("data dir");
    std::fs::create_dir_all(workspace(&data)).expect("workspace");
    let http = client();

    let first = Server::start(data.path(), &model_env(&model)).await;
    let (thread_id, run_id) = start_run(&http, &first.base, "shell please").await;
    let approval = pending_approval(&http, &first.base, &ThreadId::from(thread_id.as_str())).await;
    approve(&http, &first.base, &ApprovalId::from(approval.as_str())).await;
    let log = workspace(&data).join("log.txt");
    wait_until("the command started", async || lines(&log) == 1).await;
    first.kill();

    let second = Server::start(data.path(), &model_env(&model)).await;
    wait_until("the run ended", async || {
        run_status(&http, &second.base, &RunId::from(run_id.as_str())).await == "finished"
    })
    .await;
    let detail = thread(&http, &second.base, &ThreadId::from(thread_id.as_str())).await;
    let call = &detail["tool_calls"][0];
    assert_eq!(call["status"], "interrupted", "{call}");
    let text = std::fs::read_to_string(&log).expect("log");
    assert_eq!(text.matches("started").count(), 1, "the command ran once, never again after the restart: {text:?}");
}

/// Sends `prompt` in the thread and gives the run it started.
async fn send_in(http: &Client, base: &str, thread_id: &ThreadId, prompt: &str) -> String {
    let res = http
        .post(format!("{base}/api/threads/{thread_id}/messages"))
        .json(&json!({"content": prompt}))
        .send()
        .await
        .expect("message sent");
    assert!(res.status().is_success(), "message: {}", res.status());
    let mut stream = res.bytes_stream().eventsource();
    loop {
        let e = tokio::time::timeout(Duration::from_secs(30), stream.next()).await.expect("run_started");
        let e = e.expect("an event").expect("a well-formed event");
        if e.event == "run_started" {
            let data: Value = serde_json::from_str(&e.data).expect("JSON");
            return data["run_id"].as_str().expect("run id").to_string();
        }
    }
}

fn call_status(detail: &Value, command: &str) -> String {
    let calls = detail["tool_calls"].as_array().cloned().unwrap_or_default();
    let call = calls.iter().find(|c| c["arguments"]["command"] == command);
    call.and_then(|c| c["status"].as_str()).unwrap_or_default().to_string()
}

#[tokio::test]
async fn calls_a_rule_cleared_come_back_as_cards_after_it_is_revoked_and_the_server_is_killed() {
    let shell = |command: &str| ScriptedCall::new("shell", json!({ "command": command }));
    let batch = vec![shell("cat fifo"), shell("cat b.txt"), shell("cat c.txt")];
    let script = Script {
        scenarios: vec![
            Scenario::new("make-rule", vec![Turn::calls(vec![shell("cat a.txt")]), Turn::text("ok")]),
            Scenario::new("batch", vec![Turn::calls(batch), Turn::text("ok")]),
        ],
        default_title: None,
    };
    let model = FixtureModel::start(script).await.expect("fixture model");
    let data = tempfile::tempdir().expect("data dir");
    let dir = workspace(&data);
    std::fs::create_dir_all(&dir).expect("workspace");
    for file in ["a.txt", "b.txt", "c.txt"] {
        std::fs::write(dir.join(file), "text\n").expect("file");
    }
    // The turn's first call reads the FIFO: it runs until something writes to it.
    let fifo = dir.join("fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
    assert!(made.success());
    let http = client();

    let first = Server::start(data.path(), &model_env(&model)).await;
    let (thread_id, run_id) = start_run(&http, &first.base, "make-rule").await;
    let approval = pending_approval(&http, &first.base, &ThreadId::from(thread_id.as_str())).await;
    let (status, body) = common::send_json(
        &http,
        reqwest::Method::POST,
        format!("{}/api/approvals/{approval}", first.base),
        Some(json!({"decision": "approve", "scope": "thread", "prefix": "cat"})),
    )
    .await;
    assert!(status.is_success(), "approve for the thread: {status} {body}");
    wait_until("the first run ended", async || {
        run_status(&http, &first.base, &RunId::from(run_id.as_str())).await == "finished"
    })
    .await;
    let rule_id = thread(&http, &first.base, &ThreadId::from(thread_id.as_str())).await["rules"][0]["id"]
        .as_str()
        .expect("a rule")
        .to_string();

    send_in(&http, &first.base, &ThreadId::from(thread_id.as_str()), "batch").await;
    wait_until("the first call runs", async || {
        call_status(&thread(&http, &first.base, &ThreadId::from(thread_id.as_str())).await, "cat fifo") == "running"
    })
    .await;
    let detail = thread(&http, &first.base, &ThreadId::from(thread_id.as_str())).await;
    assert_eq!(call_status(&detail, "cat b.txt"), "approved", "the rule cleared the rest of the turn too");
    let revoked = http.delete(format!("{}/api/rules/{rule_id}", first.base)).send().await.expect("revoke");
    assert!(revoked.status().is_success(), "revoke: {}", revoked.status());
    first.kill();

    let second = Server::start(data.path(), &model_env(&model)).await;
    wait_until("both calls ask again", async || {
        let detail = thread(&http, &second.base, &ThreadId::from(thread_id.as_str())).await;
        ["cat b.txt", "cat c.txt"].iter().all(|c| call_status(&detail, c) == "pending")
    })
    .await;
    let detail = thread(&http, &second.base, &ThreadId::from(thread_id.as_str())).await;
    let approvals = detail["approvals"].as_array().cloned().unwrap_or_default();
    let pending = approvals.iter().filter(|a| a["status"] == "pending").count();
    assert_eq!(pending, 2, "a card for each call the revoked rule had cleared: {approvals:#?}");
    let replaced: Vec<&Value> = approvals.iter().filter(|a| a["decision"]["by"] == "rule_revoked").collect();
    assert_eq!(replaced.len(), 2, "{approvals:#?}");
    assert!(replaced.iter().all(|a| a["decision"]["rule_id"] == rule_id.as_str()));
    assert_eq!(call_status(&detail, "cat fifo"), "interrupted", "the call that had started is not run again");

    // Release the FIFO's reader, should the killed server have left it behind (opening a FIFO for
    // reading and writing does not wait for the other end on Linux).
    if let Ok(mut end) = std::fs::OpenOptions::new().read(true).write(true).open(&fifo) {
        use std::io::Write;
        let _ = end.write_all(b"released\n");
    }
}

#[tokio::test]
async fn a_decision_taken_just_before_a_sigkill_runs_the_call_at_most_once_and_the_run_ends() {
    let model = FixtureModel::start(shell_script("echo ran >> once.txt")).await.expect("fixture model");
    let data = tempfile::tempdir().expect("data dir");
    std::fs::create_dir_all(workspace(&data)).expect("workspace");
    let http = client();

    let first = Server::start(data.path(), &model_env(&model)).await;
    let (thread_id, run_id) = start_run(&http, &first.base, "shell please").await;
    let approval = pending_approval(&http, &first.base, &ThreadId::from(thread_id.as_str())).await;
    approve(&http, &first.base, &ApprovalId::from(approval.as_str())).await;
    first.kill();

    let second = Server::start(data.path(), &model_env(&model)).await;
    wait_until("the run ended", async || {
        run_status(&http, &second.base, &RunId::from(run_id.as_str())).await == "finished"
    })
    .await;
    let detail = thread(&http, &second.base, &ThreadId::from(thread_id.as_str())).await;
    assert_eq!(detail["approvals"][0]["status"], "approved", "the decision survived the kill");
    let call = &detail["tool_calls"][0];
    let ran = lines(&workspace(&data).join("once.txt"));
    // Done: it ran exactly once. Interrupted: the kill came while it ran, and it was not run again.
    match call["status"].as_str() {
        Some("done") => assert_eq!(ran, 1, "ran exactly once"),
        Some("interrupted") => assert!(ran <= 1, "never run twice"),
        other => panic!("the approved call ended as {other:?}"),
    }
}
