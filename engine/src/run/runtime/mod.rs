//! The engine's shared state, and the table of runs being driven right now. A run is driven by at
//! most one task at a time; `wake` starts that task or asks the running one to look again.

pub mod approvals;
pub mod connection_checks;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use warden_types::id::RunId;

use tokio_util::sync::CancellationToken;

use crate::config::Config;
use crate::events::EventHub;
use crate::providers::Providers;
use crate::run::driver::{self, Known, Outcome};
use crate::run::handles::RunHandles;
use crate::run_thread::RunThread;
use crate::store::Store;
use crate::toolbox::ToolBox;
use warden_types::run::{RunSummary, ToolCallRecord};

struct ActiveRun {
    cancel: CancellationToken,
    /// Something changed while the driver worked (a decision came in): look again before pausing.
    rewake: bool,
}

pub struct Runtime {
    /// What drives work with, lent to each drive.
    pub handles: RunHandles,
    active: Mutex<HashMap<RunId, ActiveRun>>,
    /// Where drivers run (see `run_thread`).
    runs: RunThread,
}

impl Runtime {
    pub fn new(
        store: Store,
        events: Arc<EventHub>,
        providers: Arc<Providers>,
        tools: ToolBox,
        config: Config,
        policies: warden_policies::Policies,
    ) -> std::io::Result<Arc<Self>> {
        let shutdown = CancellationToken::new();
        let runs = RunThread::start(shutdown.clone())?;
        Ok(Arc::new_cyclic(|runtime| Self {
            handles: RunHandles {
                store,
                events,
                providers,
                tools,
                config,
                policies,
                shutdown,
                timers: Arc::new(approvals::Timers(runtime.clone())),
                handoff: Arc::default(),
            },
            active: Mutex::new(HashMap::new()),
            runs,
        }))
    }

    fn active(&self) -> std::sync::MutexGuard<'_, HashMap<RunId, ActiveRun>> {
        self.active.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Drives the run if no task does yet; otherwise tells that task to look again.
    pub fn wake(self: &Arc<Self>, run_id: &RunId) {
        self.start_or_flag(run_id, false, None);
    }

    /// `wake`, with the run and its latest turn's calls as the decision that resumed it left them
    /// (`None`: the run was not waiting; the driver reads what it needs).
    pub fn resume(self: &Arc<Self>, run_id: &RunId, resumed: Option<(RunSummary, Vec<ToolCallRecord>)>) {
        let known = resumed.map(|(run, calls)| Known { run, turn_calls: Some(calls) });
        self.start_or_flag(run_id, false, known);
    }

    /// Drives a run just started, as `start_run` stored it: its driver does not read the row back.
    pub fn start(self: &Arc<Self>, run: RunSummary) {
        let run_id = run.id.clone();
        self.start_or_flag(&run_id, false, Some(Known { run, turn_calls: None }));
    }

    /// Stops a run: cancels its driver, or starts one that only records the stop.
    pub fn stop(self: &Arc<Self>, run_id: &RunId) {
        self.start_or_flag(run_id, true, None);
    }

    fn start_or_flag(self: &Arc<Self>, run_id: &RunId, stop: bool, stored: Option<Known>) {
        let mut active = self.active();
        if let Some(run) = active.get_mut(run_id) {
            run.rewake = true;
            if stop {
                run.cancel.cancel();
            }
            return;
        }
        let cancel = self.handles.shutdown.child_token();
        if stop {
            cancel.cancel();
        }
        active.insert(run_id.clone(), ActiveRun { cancel: cancel.clone(), rewake: false });
        drop(active);
        let rt = self.clone();
        let run_id = run_id.clone();
        self.runs.spawn(async move { rt.drive_until_idle(run_id, cancel, stored).await });
    }

    pub fn is_driving(&self, run_id: &RunId) -> bool {
        self.active().contains_key(run_id)
    }

    /// `stored`: the run as its start or a decision wrote it, for the first drive (later ones read it).
    async fn drive_until_idle(self: Arc<Self>, run_id: RunId, cancel: CancellationToken, stored: Option<Known>) {
        let mut stored = stored;
        loop {
            let outcome = match driver::drive(&self.handles, &run_id, stored.take(), &cancel).await {
                Ok(o) => o,
                Err(e) => {
                    tracing::error!(%run_id, error = %e, "run driver failed");
                    driver::fail_after_internal_error(&self.handles, &run_id, &e).await;
                    Outcome::Ended
                }
            };
            let mut active = self.active();
            let again = match active.get_mut(&run_id) {
                Some(run) if outcome == Outcome::Waiting && !self.handles.shutdown.is_cancelled() && run.rewake => {
                    run.rewake = false;
                    true
                }
                _ => false,
            };
            if !again {
                active.remove(&run_id);
                return;
            }
        }
    }
}
