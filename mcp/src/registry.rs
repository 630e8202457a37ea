//! The hub's shared state: one slot per configured server with its config, state, last-known tools
//! and live session. Locked only briefly and never across an `.await`.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rmcp::service::RoleClient;
use rmcp::Peer;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::client::WardenClient;
use crate::config::McpServerConfig;
use crate::model::{RemoteTool, ServerInfo, ServerState};
use crate::store::McpStore;

pub(crate) struct Inner {
    pub store: McpStore,
    pub servers: Mutex<BTreeMap<String, Slot>>,
    pub tasks: TaskTracker,
    /// The stored servers have been read into `servers`.
    pub loaded: AtomicBool,
    /// Ticks whenever a supervisor changes a slot, for whoever waits on a connection attempt.
    pub changed: watch::Sender<()>,
    /// What a sandboxed server may not read (Warden's data dir).
    pub private_paths: Vec<std::path::PathBuf>,
}

pub(crate) struct Slot {
    pub config: McpServerConfig,
    pub state: ServerState,
    pub server_info: Option<ServerInfo>,
    pub tools: Vec<RemoteTool>,
    /// Why some of the server's tools were left out of `tools`, if any were (this connection's).
    pub tools_notice: Option<String>,
    pub live: Option<Live>,
    /// Bumped whenever a new supervisor takes over, so an old one cannot write over it.
    pub generation: u64,
    /// Stops the current supervisor.
    pub stop: Option<CancellationToken>,
}

/// A connected session, as a tool call needs it.
#[derive(Clone)]
pub(crate) struct Live {
    pub peer: Peer<RoleClient>,
    pub client: Arc<WardenClient>,
}

impl Slot {
    pub fn new(config: McpServerConfig, tools: Vec<RemoteTool>, server_info: Option<ServerInfo>) -> Self {
        let state = if config.enabled { ServerState::Connecting } else { ServerState::Disabled };
        Self { config, state, server_info, tools, tools_notice: None, live: None, generation: 0, stop: None }
    }
}

impl Inner {
    pub fn servers(&self) -> MutexGuard<'_, BTreeMap<String, Slot>> {
        self.servers.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Changes the slot only if `generation` is still the current supervisor's.
    pub fn update_if_current(&self, name: &str, generation: u64, change: impl FnOnce(&mut Slot)) -> bool {
        let mut servers = self.servers();
        match servers.get_mut(name) {
            Some(slot) if slot.generation == generation => {
                change(slot);
                drop(servers);
                self.changed.send_modify(|_| {});
                true
            }
            _ => false,
        }
    }
}
