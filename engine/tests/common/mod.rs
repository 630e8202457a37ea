//! Shared helpers for the engine's integration tests: an engine on a real SQLite file in a temp
//! dir, talking over real HTTP to the scripted fixture model, and readers of a run's events.
#![allow(dead_code)]

use std::time::Duration;

use serde_json::Value;
use tempfile::TempDir;
use warden_engine::config::{Config, ModelConfig};
use warden_engine::Engine;
use warden_engine::RunEventRecord;
use warden_testkit::{FixtureModel, Script};
use warden_types::id::{ApprovalId, RunId, ThreadId};

pub struct Harness {
    pub dir: TempDir,
    pub model: FixtureModel,
    pub engine: Engine,
}

pub fn config_for(dir: &TempDir, model: &FixtureModel) -> Config {
    let mut config = Config::with_data_dir(dir.path());
    config.model = Some(ModelConfig { base_url: model.base_url(), api_key: None, model: "fixture".into() });
    // Scripted failures reach the run as they are; `chat` tests the retries themselves.
    config.model_retries = 0;
    config
}

impl Harness {
    pub async fn start(script: Script) -> Harness {
        Self::start_with(script, |_| {}).await
    }

    pub async fn start_with(script: Script, tweak: impl FnOnce(&mut Config)) -> Harness {
        let dir = tempfile::tempdir().expect("temp dir");
        let model = FixtureModel::start(script).await.expect("fixture model starts");
        let mut config = config_for(&dir, &model);
        tweak(&mut config);
        let engine = Engine::open(config).await.expect("engine opens");
        Harness { dir, model, engine }
    }

    /// Shuts the engine down and opens a new one on the same database, like a process restart.
    pub async fn restart(&mut self, tweak: impl FnOnce(&mut Config)) {
        self.engine.shutdown();
        let mut config = config_for(&self.dir, &self.model);
        tweak(&mut config);
        self.engine = Engine::open(config).await.expect("engine reopens");
    }

    pub fn workspace(&self) -> std::path::PathBuf {
        self.engine.config().workspace.clone()
    }

    /// Starts a thread and sends a message; returns (thread_id, run_id).
    pub async fn send(&self, text: &str) -> (ThreadId, RunId) {
        let thread = self.engine.create_thread(None).await.expect("thread");
        let started = self.engine.send_message(&thread.id, text.into(), &crate::common::owner()).await.expect("send");
        (thread.id, started.run_id)
    }
}

/// Reads the run's events (from the start) until one satisfies `until`; returns all read so far.
pub async fn events_until(
    engine: &Engine,
    run_id: &RunId,
    until: impl Fn(&RunEventRecord) -> bool,
) -> Vec<RunEventRecord> {
    events_until_within(engine, run_id, Duration::from_secs(30), until).await
}

/// `events_until` with its own guard: the built-in model on a loaded 2-core machine needs longer than
/// the scripted one. The guard only stops a hung test; it measures nothing.
pub async fn events_until_within(
    engine: &Engine,
    run_id: &RunId,
    guard: Duration,
    until: impl Fn(&RunEventRecord) -> bool,
) -> Vec<RunEventRecord> {
    let stream = engine.subscribe(run_id, 0).await.expect("subscribe");
    warden_testkit::events::read_until(stream, guard, until, |e| e.kind.to_string()).await
}

pub async fn run_to_end(engine: &Engine, run_id: &RunId) -> Vec<RunEventRecord> {
    let events = events_until(engine, run_id, |e| e.is_terminal()).await;
    if let Some(failed) = events.last().filter(|e| e.kind == "run_failed") {
        eprintln!("(the run failed: {})", data(failed));
    }
    events
}

/// The title the model gave `thread_id`, as told after its run ended (`titles`: from
/// `Engine::watch_titles`, subscribed before the run began). The guard only stops a hung test.
pub async fn named(
    titles: &mut tokio::sync::broadcast::Receiver<warden_types::inbox::Titled>,
    thread_id: &ThreadId,
) -> String {
    let wait = async {
        loop {
            match titles.recv().await {
                Ok(titled) if titled.thread_id == thread_id => return titled.title,
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(e) => panic!("the titles closed: {e}"),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(30), wait).await.expect("the thread was named")
}

pub fn kinds(events: &[RunEventRecord]) -> Vec<String> {
    events.iter().map(|e| e.kind.to_string()).collect()
}

pub fn data(e: &RunEventRecord) -> Value {
    serde_json::from_str(&e.data).expect("event data is JSON")
}

pub fn of_kind(events: &[RunEventRecord], kind: &str) -> Vec<Value> {
    events.iter().filter(|e| e.kind == kind).map(data).collect()
}

pub fn text_of(events: &[RunEventRecord]) -> String {
    of_kind(events, "text_delta").iter().filter_map(|d| d["text"].as_str().map(str::to_string)).collect()
}

/// The approval ids requested so far in the run.
pub async fn pending_approvals(engine: &Engine, run_id: &RunId, n: usize) -> Vec<ApprovalId> {
    let seen = std::sync::atomic::AtomicUsize::new(0);
    let events = events_until(engine, run_id, move |e| {
        e.kind == "approval_request" && seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1 >= n
    })
    .await;
    of_kind(&events, "approval_request").iter().map(|d| d["approval"]["id"].as_str().unwrap().into()).collect()
}

/// The tool messages (role "tool") the model was sent in request `index`.
pub fn tool_messages(model: &FixtureModel, index: usize) -> Vec<Value> {
    let requests = model.requests();
    let streamed: Vec<&Value> = requests.iter().filter(|r| r["stream"] == Value::Bool(true)).collect();
    streamed
        .get(index)
        .map(|r| r["messages"].as_array().cloned().unwrap_or_default())
        .unwrap_or_default()
        .into_iter()
        .filter(|m| m["role"] == "tool")
        .collect()
}

pub fn streamed_requests(model: &FixtureModel) -> usize {
    model.requests().iter().filter(|r| r["stream"] == Value::Bool(true)).count()
}

pub use warden_testkit::people::owner;
