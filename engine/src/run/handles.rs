//! What driving a run works with: the store, the event hub, the models, the tools, the settings, the
//! shutdown signal and a way to arm approval timers. The runtime builds this once and lends it to
//! each drive, so the driver never sees the runtime (and the runtime is the only one that wakes runs).

use std::sync::Arc;
use std::time::Duration;
use warden_types::id::ApprovalId;

use tokio_util::sync::CancellationToken;

use crate::approval::handoff::Handoff;
use crate::approval::lifecycle::Lifecycle;
use crate::config::Config;
use crate::events::EventHub;
use crate::providers::Providers;
use crate::store::Store;
use crate::toolbox::ToolBox;
use warden_tools::registry::ToolRegistry;

pub struct RunHandles {
    pub store: Store,
    pub events: Arc<EventHub>,
    /// Which model answers a run (its recorded choice, or the default).
    pub providers: Arc<Providers>,
    pub tools: ToolBox,
    pub config: Config,
    /// The approval policies a new card is routed by.
    pub policies: warden_policies::Policies,
    /// Stops background work (drivers, timers) at shutdown.
    pub shutdown: CancellationToken,
    pub timers: Arc<dyn ApprovalTimers>,
    /// Calls a person's approval claimed, for the driver to start (see `approval::handoff`).
    pub handoff: Arc<Handoff>,
}

impl RunHandles {
    /// The approval lifecycle over these handles, with the tools as they are now.
    pub fn lifecycle<'a>(&'a self, tools: &'a ToolRegistry) -> Lifecycle<'a> {
        Lifecycle { store: &self.store, events: &self.events, tools, handoff: &self.handoff }
    }
}

/// Arms the timeout of a pending approval; when it fires, the approval is settled as timed out and
/// the run woken (the runtime's job).
pub trait ApprovalTimers: Send + Sync {
    fn arm(&self, approval_id: ApprovalId, after: Duration);
}
