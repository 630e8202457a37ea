//! The connection check: a run that needs an MCP server that is offline or disabled (the model
//! called one of its tools, or the person's message named it with `@name`) waits for the person to
//! Connect it or Continue anyway, and a thread that continued without a server is not asked again
//! for an hour. The real engine on a SQLite file, the scripted model over HTTP (its answers repeat
//! the tool results it was sent), and the rmcp fixture server.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use warden_types::id::{RunId, ThreadId};

use serde_json::{json, Value};
use warden_engine::config::{Config, ModelConfig};
use warden_engine::{Engine, PendingInThread};
use warden_mcp::{McpHub, McpStore, ToolPolicy};
use warden_testkit::{FixtureModel, Scenario, Script, ScriptedCall, Turn};
use warden_types::approval::DecisionInput;
use warden_types::connection::{CheckDecision, CheckReason, CheckStatus, ConnectionCheck, ServerDown};
use warden_types::run::{RunStatus, ToolCallStatus};
use warden_types::thread::ThreadQuery;

use crate::common::{stdio_config, wait_connected, wait_for, PATIENCE};

/// A turn that answers with `text` and the tool results it was sent (`[tool said: …]`).
fn echoing(text: &str) -> Turn {
    Turn { echo_tool_results: true, ..Turn::text(text) }
}

fn script() -> Script {
    Script {
        scenarios: vec![
            Scenario::new(
                "echo please",
                vec![Turn::calls(vec![ScriptedCall::new("fx__echo", json!({"text": "hi"}))]), echoing("Echoed.")],
            ),
            Scenario::new(
                "delete item 42",
                vec![Turn::calls(vec![ScriptedCall::new("fx__delete_item", json!({"id": "42"}))]), echoing("Deleted.")],
            ),
        ],
        default_title: None,
    }
}

async fn model() -> FixtureModel {
    FixtureModel::start(script()).await.expect("fixture model")
}

/// The engine and the hub on the database in `dir`, the hub's servers loaded and connecting.
async fn open(dir: &Path, model: &FixtureModel) -> (Engine, McpHub) {
    let mut config = Config::with_data_dir(dir);
    config.model = Some(ModelConfig { base_url: model.base_url(), api_key: None, model: "fixture".into() });
    let engine = Engine::open(config).await.expect("engine opens");
    let hub = McpHub::new(McpStore::open(&engine.database()).await.expect("mcp store"));
    hub.start().await.expect("hub starts");
    engine.add_tool_source(Arc::new(hub.clone()));
    (engine, hub)
}

/// The fixture as `fx`, connected once (so its tools are known, as a server used before is) and
/// then disabled in Settings.
async fn disabled_fixture(hub: &McpHub) {
    hub.upsert(stdio_config("fx", &[])).await.expect("saved");
    wait_connected(hub, "fx").await;
    hub.set_tool_policy("fx", "echo", ToolPolicy::NeverAsk).await.expect("policy");
    hub.set_enabled("fx", false).await.expect("disabled");
    wait_for(hub, "fx", "disabled", |s| !s.enabled).await;
}

/// Polls until the thread has a check that `done` accepts.
async fn check_where(
    engine: &Engine,
    thread_id: &ThreadId,
    done: impl Fn(&ConnectionCheck) -> bool,
) -> ConnectionCheck {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let checks = engine.thread(thread_id).await.expect("thread").connection_checks;
        if let Some(check) = checks.iter().find(|c| done(c)) {
            return check.clone();
        }
        assert!(tokio::time::Instant::now() < deadline, "no such check: {checks:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn pending_check(engine: &Engine, thread_id: &ThreadId) -> ConnectionCheck {
    check_where(engine, thread_id, |c| c.status == CheckStatus::Pending).await
}

/// Polls until the run has `status`.
async fn run_reaches(engine: &Engine, run_id: &RunId, status: RunStatus) {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let run = engine.run(run_id).await.expect("run");
        if run.status == status {
            return;
        }
        assert!(!run.status.is_terminal(), "the run ended as {run:?}, not {status:?}");
        assert!(tokio::time::Instant::now() < deadline, "the run never became {status:?}: {run:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The text of the model's last message in the thread.
async fn last_answer(engine: &Engine, thread_id: &ThreadId) -> String {
    let thread = engine.thread(thread_id).await.expect("thread");
    thread.messages.last().map(|m| m.content.clone()).unwrap_or_default()
}

/// The model turns the fixture model was asked for (title requests are not streamed).
fn turns_asked(model: &FixtureModel) -> usize {
    model.requests().iter().filter(|r| r["stream"] == Value::Bool(true)).count()
}

#[tokio::test]
async fn a_call_to_a_disabled_server_waits_and_continue_anyway_tells_the_model_and_holds_for_the_hour() {
    let dir = tempfile::tempdir().expect("temp dir");
    let model = model().await;
    let (engine, hub) = open(dir.path(), &model).await;
    disabled_fixture(&hub).await;

    let thread = engine.create_thread(None).await.expect("thread");
    let run_id = engine
        .send_message(&thread.id, "echo please".into(), &warden_testkit::people::owner())
        .await
        .expect("sent")
        .run_id;
    let check = pending_check(&engine, &thread.id).await;
    assert_eq!(check.server, "fx");
    assert_eq!(check.down, ServerDown::Disabled);
    assert_eq!(check.reason, CheckReason::CalledTool { tool: "fx__echo".into() });
    assert_eq!(check.run_id, run_id);
    run_reaches(&engine, &run_id, RunStatus::Waiting).await;
    let call = engine.thread(&thread.id).await.expect("thread").tool_calls.pop().expect("the call is recorded");
    assert_eq!(call.status, ToolCallStatus::Pending, "it waits for its server: {call:?}");

    let decided = engine.decide_connection_check(&check.id, CheckDecision::ContinueWithout).await.expect("decided");
    assert_eq!(decided.status, CheckStatus::ContinuedWithout);
    run_reaches(&engine, &run_id, RunStatus::Finished).await;
    let answer = last_answer(&engine, &thread.id).await;
    assert!(answer.starts_with("Echoed."), "{answer}");
    assert!(
        answer.contains(
            "The MCP server `fx` is disabled, and the user chose to continue without it, so this call did not run"
        ),
        "the model was told the server is unavailable: {answer}"
    );
    assert!(!hub.get("fx").expect("fx").enabled, "Continue anyway changes nothing in Settings");

    // A decision applies only while the check is pending.
    let again = engine.decide_connection_check(&check.id, CheckDecision::Connect).await;
    assert!(matches!(again, Err(warden_engine::Error::CheckDecided(_))), "{again:?}");

    // Within the hour the same thread is not asked again about `fx`: the call is answered at once.
    let second = engine
        .send_message(&thread.id, "echo please".into(), &warden_testkit::people::owner())
        .await
        .expect("sent")
        .run_id;
    run_reaches(&engine, &second, RunStatus::Finished).await;
    let detail = engine.thread(&thread.id).await.expect("thread");
    assert_eq!(detail.connection_checks.len(), 1, "asked once: {:?}", detail.connection_checks);
    let answer = last_answer(&engine, &thread.id).await;
    assert!(answer.contains("chose to continue without it"), "{answer}");
    let calls: Vec<_> = detail.tool_calls.iter().filter(|c| c.run_id == second).collect();
    assert_eq!(calls.len(), 1);
    assert_eq!((calls[0].status, calls[0].is_error), (ToolCallStatus::Done, true), "{calls:?}");

    // Another thread is asked.
    let other = engine.create_thread(None).await.expect("thread");
    engine.send_message(&other.id, "echo please".into(), &warden_testkit::people::owner()).await.expect("sent");
    let asked = pending_check(&engine, &other.id).await;
    assert_eq!(asked.server, "fx");

    hub.shutdown().await;
    engine.shutdown();
}

#[tokio::test]
async fn connect_enables_the_server_and_the_call_goes_through_the_usual_approval() {
    let dir = tempfile::tempdir().expect("temp dir");
    let model = model().await;
    let (engine, hub) = open(dir.path(), &model).await;
    disabled_fixture(&hub).await;

    let thread = engine.create_thread(None).await.expect("thread");
    let run_id = engine
        .send_message(&thread.id, "please delete item 42".into(), &warden_testkit::people::owner())
        .await
        .expect("sent")
        .run_id;
    let check = pending_check(&engine, &thread.id).await;
    assert_eq!(check.reason, CheckReason::CalledTool { tool: "fx__delete_item".into() });

    let decided = engine.decide_connection_check(&check.id, CheckDecision::Connect).await.expect("decided");
    assert_eq!((decided.status, decided.error), (CheckStatus::Connected, None));
    let fx = hub.get("fx").expect("fx");
    assert!(fx.enabled, "Connect enabled it in Settings");
    assert_eq!(fx.state, warden_mcp::ServerState::Connected);

    // The destructive tool still asks first, now with the tool's own card.
    let approval = tokio::time::timeout(PATIENCE, async {
        loop {
            let detail = engine.thread(&thread.id).await.expect("thread");
            if let Some(a) = detail.approvals.into_iter().find(|a| a.status == warden_types::ApprovalStatus::Pending) {
                return a;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("an approval card");
    assert_eq!(approval.tool, "fx__delete_item");
    assert_eq!(approval.risk, warden_types::Risk::High, "described by the tool once connected");
    engine.decide(&approval.id, DecisionInput::approve(), &warden_testkit::people::owner()).await.expect("approved");
    run_reaches(&engine, &run_id, RunStatus::Finished).await;
    let answer = last_answer(&engine, &thread.id).await;
    assert!(answer.contains("[tool said: deleted 42]"), "the call ran and the model saw it: {answer}");

    hub.shutdown().await;
    engine.shutdown();
}

#[tokio::test]
async fn a_mentioned_offline_server_is_asked_about_before_the_model_and_a_failed_connect_keeps_the_card() {
    let dir = tempfile::tempdir().expect("temp dir");
    let model = model().await;
    let (engine, hub) = open(dir.path(), &model).await;
    // It refuses to start while this file exists: offline from the start.
    let down = dir.path().join("down");
    std::fs::write(&down, "").expect("flag file");
    hub.upsert(stdio_config("Notes", &["--down-while", &down.display().to_string()])).await.expect("saved");
    wait_for(&hub, "Notes", "failed", |s| matches!(s.state, warden_mcp::ServerState::Failed { .. })).await;

    let thread = engine.create_thread(None).await.expect("thread");
    let run_id = engine
        .send_message(&thread.id, "what is in @notes today?".into(), &warden_testkit::people::owner())
        .await
        .expect("sent")
        .run_id;
    let check = pending_check(&engine, &thread.id).await;
    assert_eq!(
        (check.server.as_str(), check.down, &check.reason),
        ("Notes", ServerDown::Offline, &CheckReason::Mentioned)
    );
    run_reaches(&engine, &run_id, RunStatus::Waiting).await;
    assert_eq!(turns_asked(&model), 0, "the model is not asked while the check waits");

    // Still down: the check stays, with the reason.
    let failed = engine.decide_connection_check(&check.id, CheckDecision::Connect).await.expect("tried");
    assert_eq!(failed.status, CheckStatus::Pending);
    assert!(failed.error.as_deref().is_some_and(|e| !e.is_empty()), "{failed:?}");
    assert_eq!(pending_check(&engine, &thread.id).await.error, failed.error, "stored for the card");
    assert_eq!(turns_asked(&model), 0);

    std::fs::remove_file(&down).expect("flag file removed");
    let connected = engine.decide_connection_check(&check.id, CheckDecision::Connect).await.expect("connected");
    assert_eq!(connected.status, CheckStatus::Connected);
    run_reaches(&engine, &run_id, RunStatus::Finished).await;
    assert_eq!(turns_asked(&model), 1);
    assert_eq!(last_answer(&engine, &thread.id).await, "You said: what is in @notes today?");

    hub.shutdown().await;
    engine.shutdown();
}

#[tokio::test]
async fn a_waiting_check_survives_a_restart_and_is_decided_after_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let model = model().await;
    let (engine, hub) = open(dir.path(), &model).await;
    disabled_fixture(&hub).await;
    let thread = engine.create_thread(None).await.expect("thread");
    let run_id = engine
        .send_message(&thread.id, "echo please".into(), &warden_testkit::people::owner())
        .await
        .expect("sent")
        .run_id;
    let check = pending_check(&engine, &thread.id).await;
    run_reaches(&engine, &run_id, RunStatus::Waiting).await;
    hub.shutdown().await;
    engine.shutdown();
    drop((engine, hub));

    let (engine, hub) = open(dir.path(), &model).await;
    let still = pending_check(&engine, &thread.id).await;
    assert_eq!(still.id, check.id);
    assert_eq!(engine.run(&run_id).await.expect("run").status, RunStatus::Waiting);
    engine.decide_connection_check(&check.id, CheckDecision::ContinueWithout).await.expect("decided");
    run_reaches(&engine, &run_id, RunStatus::Finished).await;
    assert!(last_answer(&engine, &thread.id).await.contains("chose to continue without it"));

    hub.shutdown().await;
    engine.shutdown();
}

#[tokio::test]
async fn stopping_a_run_cancels_its_check() {
    let dir = tempfile::tempdir().expect("temp dir");
    let model = model().await;
    let (engine, hub) = open(dir.path(), &model).await;
    disabled_fixture(&hub).await;
    let thread = engine.create_thread(None).await.expect("thread");
    let run_id = engine
        .send_message(&thread.id, "echo please".into(), &warden_testkit::people::owner())
        .await
        .expect("sent")
        .run_id;
    let check = pending_check(&engine, &thread.id).await;
    engine.stop_run(&run_id).await.expect("stopped");
    let cancelled = check_where(&engine, &thread.id, |c| c.id == check.id && c.status == CheckStatus::Cancelled).await;
    assert!(cancelled.decided_at.is_some());
    let decided = engine.decide_connection_check(&check.id, CheckDecision::ContinueWithout).await;
    assert!(matches!(decided, Err(warden_engine::Error::CheckDecided(_))), "{decided:?}");

    hub.shutdown().await;
    engine.shutdown();
}

/// The next check the engine tells the inbox of.
async fn heard(watched: &mut tokio::sync::broadcast::Receiver<ConnectionCheck>) -> ConnectionCheck {
    tokio::time::timeout(PATIENCE, watched.recv()).await.expect("a check in time").expect("the feed is open")
}

/// What the inbox and the sidebar are told waits: per thread, and the thread's own row.
async fn waiting(engine: &Engine, thread_id: &ThreadId) -> (Vec<PendingInThread>, u32) {
    let by_thread = engine.pending_by_thread().await.expect("counted");
    let threads = engine.list_threads(ThreadQuery::default()).await.expect("threads");
    let row = threads.iter().find(|t| t.id == thread_id).expect("the thread is listed");
    (by_thread, row.pending_approvals)
}

#[tokio::test]
async fn a_pending_check_is_counted_and_listed_for_the_inbox_until_it_is_decided_or_its_run_stops() {
    let dir = tempfile::tempdir().expect("temp dir");
    let model = model().await;
    let (engine, hub) = open(dir.path(), &model).await;
    disabled_fixture(&hub).await;
    let mut watched = engine.watch_connection_checks();

    let thread = engine.create_thread(Some("Echo thread".into())).await.expect("thread");
    engine.send_message(&thread.id, "echo please".into(), &warden_testkit::people::owner()).await.expect("sent");
    let check = pending_check(&engine, &thread.id).await;
    let asked = heard(&mut watched).await;
    assert_eq!((asked.id.as_str(), asked.status), (check.id.as_str(), CheckStatus::Pending));
    let in_thread = PendingInThread { thread_id: thread.id.clone(), approvals: 0, checks: 1 };
    assert_eq!(waiting(&engine, &thread.id).await, (vec![in_thread], 1), "counted, and on the thread's row");
    let listed = engine.list_connection_checks(Some(CheckStatus::Pending)).await.expect("listed");
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!((&listed[0].check, listed[0].thread_title.as_str()), (&check, "Echo thread"));

    engine.decide_connection_check(&check.id, CheckDecision::ContinueWithout).await.expect("decided");
    assert_eq!(heard(&mut watched).await.status, CheckStatus::ContinuedWithout, "the inbox is told");
    assert_eq!(waiting(&engine, &thread.id).await, (vec![], 0), "nothing waits any more");
    assert!(engine.list_connection_checks(Some(CheckStatus::Pending)).await.expect("listed").is_empty());
    let decided = engine.list_connection_checks(Some(CheckStatus::ContinuedWithout)).await.expect("listed");
    assert_eq!(decided.iter().map(|c| c.check.id.as_str()).collect::<Vec<_>>(), [check.id.as_str()]);

    // Another thread's check leaves the inbox when its run is stopped.
    let other = engine.create_thread(Some("Stopped thread".into())).await.expect("thread");
    let run_id = engine
        .send_message(&other.id, "echo please".into(), &warden_testkit::people::owner())
        .await
        .expect("sent")
        .run_id;
    let check = pending_check(&engine, &other.id).await;
    assert_eq!(heard(&mut watched).await.id, check.id);
    assert_eq!(waiting(&engine, &other.id).await.1, 1);
    engine.stop_run(&run_id).await.expect("stopped");
    let cancelled = heard(&mut watched).await;
    assert_eq!((cancelled.id.as_str(), cancelled.status), (check.id.as_str(), CheckStatus::Cancelled));
    assert_eq!(waiting(&engine, &other.id).await, (vec![], 0));
    assert!(engine.list_connection_checks(Some(CheckStatus::Pending)).await.expect("listed").is_empty());
}
