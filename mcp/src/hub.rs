//! `McpHub`: the one handle the engine and server use for MCP. It keeps the configured servers
//! (SQLite), their connections (one supervisor task each) and hands out their tools.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use tokio_util::task::TaskTracker;
use warden_engine::toolbox::SourceServer;
use warden_tools::Tool;
use warden_types::connection::ServerDown;

use crate::config::Validate;
use crate::config::{validate_name, McpServerConfig, ToolPolicy};
use crate::connect;
use crate::error::{Error, Result};
use crate::mcp_servers_json;
use crate::model::{McpServerStatus, ServerProbe, ServerState};
use crate::policy::tool_status;
use crate::redact::{redact_config, restore_secrets};
use crate::registry::{Inner, Slot};
use crate::result::{ResultKeeper, ResultLimits};
use crate::store::McpStore;
use crate::supervisor;
use crate::tool::McpTool;

/// The environment variable naming an `mcpServers` file to merge at start.
pub const CONFIG_ENV: &str = "WARDEN_MCP_CONFIG";
/// How long `shutdown` waits for sessions to close.
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(15);
/// Cheap to clone; all clones share the same servers.
#[derive(Clone)]
pub struct McpHub {
    inner: Arc<Inner>,
    /// Limits on tool results and where cut ones are kept whole.
    results: Arc<ResultKeeper>,
}

impl McpHub {
    /// Does no I/O; call [`McpHub::start`] to load and connect. Cut tool results are kept only
    /// once [`McpHub::with_results_dir`] names a folder.
    pub fn new(store: McpStore) -> Self {
        Self::with_private_paths(store, Vec::new())
    }

    /// Like `new`; a server configured with `sandbox` may not read `private_paths` (pass the engine's
    /// `Config::private_paths()`: the data dir with the database and this hub's secrets).
    pub fn with_private_paths(store: McpStore, private_paths: Vec<std::path::PathBuf>) -> Self {
        Self {
            inner: Arc::new(Inner {
                store,
                servers: Mutex::new(BTreeMap::new()),
                tasks: TaskTracker::new(),
                loaded: AtomicBool::new(false),
                changed: tokio::sync::watch::Sender::new(()),
                private_paths,
            }),
            results: Arc::default(),
        }
    }

    /// Where tool results too large for the model are kept whole (e.g. `<data dir>/mcp-results`;
    /// created when first needed). Applies to every clone of this hub.
    pub fn with_results_dir(self, dir: impl Into<PathBuf>) -> Self {
        self.results.set_dir(dir.into());
        self
    }

    /// Overrides [`ResultLimits::default`] (256 KiB of text, 2 MiB of images, 16 MiB kept).
    pub fn with_result_limits(self, limits: ResultLimits) -> Self {
        self.results.set_limits(limits);
        self
    }

    /// Loads the stored servers and starts connecting the enabled ones in the background; returns
    /// without waiting for any connection. Servers already running are left alone.
    pub async fn start(&self) -> Result<()> {
        self.ensure_loaded().await?;
        let idle: Vec<String> = self
            .inner
            .servers()
            .values()
            .filter(|slot| slot.config.enabled && slot.stop.is_none())
            .map(|slot| slot.config.name.clone())
            .collect();
        for name in idle {
            supervisor::restart(&self.inner, &name);
        }
        Ok(())
    }

    /// Merges an `mcpServers` file (see [`CONFIG_ENV`]): new servers are added; for servers
    /// already configured the file's transport wins and Warden's own settings are kept.
    /// Returns the names of the servers in the file.
    pub async fn load_config_file(&self, path: &Path) -> Result<Vec<String>> {
        self.ensure_loaded().await?;
        let text = tokio::fs::read_to_string(path)
            .await
            .map_err(|source| Error::ReadFile { path: path.display().to_string(), source })?;
        // As for an import: every entry is made whole and checked before any is saved.
        let mut ready = Vec::new();
        for imported in mcp_servers_json::import(&text)? {
            let stored = self.stored_config(&imported.name);
            let mut config = match stored.clone() {
                Some(mut existing) => {
                    existing.transport = imported.transport;
                    existing
                }
                None => imported,
            };
            // A masked value in the file is filled in only for the same server, never stored.
            restore_secrets(&mut config, stored.as_ref())?;
            config.validate()?;
            ready.push(config);
        }
        let names = ready.iter().map(|c| c.name.clone()).collect();
        for config in ready {
            self.save(config).await?;
        }
        Ok(names)
    }

    /// Every server with its state, identity and tools; secrets redacted.
    pub fn list(&self) -> Vec<McpServerStatus> {
        self.inner.servers().values().map(status_of).collect()
    }

    pub fn get(&self, name: &str) -> Option<McpServerStatus> {
        self.inner.servers().get(name).map(status_of)
    }

    /// Adds or replaces a server by name. Masked secrets (as `list` shows them) mean "keep the
    /// stored value", for the same command and arguments or URL only (see `redact`). Reconnects only if the transport or `enabled` changed.
    /// Renaming is `remove` plus `upsert`.
    pub async fn upsert(&self, mut config: McpServerConfig) -> Result<()> {
        self.ensure_loaded().await?;
        let stored = self.stored_config(&config.name);
        restore_secrets(&mut config, stored.as_ref())?;
        self.save(config).await
    }

    /// Disconnects and forgets a server.
    pub async fn remove(&self, name: &str) -> Result<()> {
        self.ensure_loaded().await?;
        let known = self.inner.servers().contains_key(name);
        let deleted = self.inner.store.delete(name).await?;
        if !known && !deleted {
            return Err(Error::NotFound(name.to_owned()));
        }
        supervisor::stop(&self.inner, name);
        self.inner.servers().remove(name);
        Ok(())
    }

    pub async fn set_enabled(&self, name: &str, enabled: bool) -> Result<()> {
        self.ensure_loaded().await?;
        let mut config = self.stored_config(name).ok_or_else(|| Error::NotFound(name.to_owned()))?;
        config.enabled = enabled;
        self.save(config).await
    }

    /// Drops the current session (if any) and connects again now, without backoff.
    pub fn reconnect(&self, name: &str) -> Result<()> {
        if !self.inner.servers().contains_key(name) {
            return Err(Error::NotFound(name.to_owned()));
        }
        supervisor::restart(&self.inner, name);
        Ok(())
    }

    /// Reconnects `name` now and waits until that attempt has connected or failed, at most `wait`;
    /// returns the server as it is then (still `connecting` if the wait ran out).
    pub async fn reconnect_and_wait(&self, name: &str, wait: Duration) -> Result<McpServerStatus> {
        // Subscribed before the attempt starts, so its outcome cannot slip by unseen.
        let changes = self.inner.changed.subscribe();
        self.reconnect(name)?;
        self.attempt_outcome(name, changes, wait).await
    }

    /// Enables `name` if it is disabled (stored, as Settings would) and connects it now, then waits
    /// like [`McpHub::reconnect_and_wait`]: a chat's "Connect" on a connection check.
    pub async fn enable_and_connect(&self, name: &str, wait: Duration) -> Result<McpServerStatus> {
        self.ensure_loaded().await?;
        let config = self.stored_config(name).ok_or_else(|| Error::NotFound(name.to_owned()))?;
        let changes = self.inner.changed.subscribe();
        if config.enabled {
            self.reconnect(name)?;
        } else {
            // Saving it enabled starts its connection.
            self.set_enabled(name, true).await?;
        }
        self.attempt_outcome(name, changes, wait).await
    }

    /// Waits until the attempt just started on `name` has connected or failed, at most `wait`.
    async fn attempt_outcome(
        &self,
        name: &str,
        mut changes: tokio::sync::watch::Receiver<()>,
        wait: Duration,
    ) -> Result<McpServerStatus> {
        let deadline = tokio::time::sleep(wait);
        tokio::pin!(deadline);
        loop {
            let status = self.get(name).ok_or_else(|| Error::NotFound(name.to_owned()))?;
            if status.state != ServerState::Connecting {
                return Ok(status);
            }
            tokio::select! {
                _ = &mut deadline => return self.get(name).ok_or_else(|| Error::NotFound(name.to_owned())),
                // The sender lives in `self.inner`, so this only ends with a change.
                _ = changes.changed() => {}
            }
        }
    }

    /// Connects with `config` without saving anything, lists its tools and disconnects.
    /// Masked secrets are filled in from the stored server of the same name, and only while its
    /// command, arguments and environment, or URL, are unchanged (see `redact`).
    pub async fn test_connection(&self, mut config: McpServerConfig) -> Result<ServerProbe> {
        self.ensure_loaded().await?;
        let stored = self.stored_config(&config.name);
        restore_secrets(&mut config, stored.as_ref())?;
        config.validate()?;
        let connection = connect::connect(&config, &self.inner.private_paths).await?;
        let probe = ServerProbe {
            server_info: connection.server_info.clone(),
            tools: connection.tools.iter().map(|tool| tool_status(&config, tool, false)).collect(),
            tools_notice: connection.tools_notice.clone(),
        };
        let mut service = connection.service;
        let _ = service.close_with_timeout(Duration::from_secs(10)).await;
        Ok(probe)
    }

    /// Overrides approval for one tool (by its name on the server). Takes effect for the next
    /// `tools()` snapshot; no reconnect.
    pub async fn set_tool_policy(&self, server: &str, tool: &str, policy: ToolPolicy) -> Result<()> {
        self.ensure_loaded().await?;
        let mut config = self.stored_config(server).ok_or_else(|| Error::NotFound(server.to_owned()))?;
        if policy == ToolPolicy::Default {
            config.tool_policies.remove(tool);
        } else {
            config.tool_policies.insert(tool.to_owned(), policy);
        }
        self.save(config).await
    }

    /// Imports an `mcpServers` document like `upsert`: masked secrets keep the stored values, for
    /// the same command, arguments and environment, or URL only.
    pub async fn import_json(&self, json: &str) -> Result<Vec<String>> {
        self.ensure_loaded().await?;
        // Every entry is made whole (secrets restored) and checked before any is saved, so a
        // document with one bad entry changes nothing.
        let mut ready = Vec::new();
        for config in mcp_servers_json::import(json)? {
            let mut merged = match self.stored_config(&config.name) {
                // Keep Warden's own settings of a server that is already configured.
                Some(mut existing) => {
                    existing.transport = config.transport;
                    existing.enabled = config.enabled;
                    existing
                }
                None => config,
            };
            let stored = self.stored_config(&merged.name);
            restore_secrets(&mut merged, stored.as_ref())?;
            validate_name(&merged.name)?;
            merged.validate()?;
            ready.push(merged);
        }
        let names = ready.iter().map(|c| c.name.clone()).collect();
        for config in ready {
            self.save(config).await?;
        }
        Ok(names)
    }

    /// All servers as an `mcpServers` document, secrets redacted (it is meant for the browser).
    pub fn export_json(&self) -> String {
        let configs: Vec<McpServerConfig> = self.inner.servers().values().map(|s| redact_config(&s.config)).collect();
        mcp_servers_json::export(&configs)
    }

    /// The tools to offer the model now: those of every enabled server, including the
    /// last-known tools of servers that are offline (calling them answers `ToolError::Offline`),
    /// minus tools the person disabled.
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        let servers = self.inner.servers();
        let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for slot in servers.values().filter(|slot| slot.config.enabled) {
            for tool in &slot.tools {
                if slot.config.policy(&tool.name) == ToolPolicy::Disabled {
                    continue;
                }
                // Two names that differ only in characters providers reject would clash.
                if !seen.insert(crate::policy::qualified_name(&slot.config.name, &tool.name)) {
                    continue;
                }
                tools.push(Arc::new(McpTool {
                    inner: self.inner.clone(),
                    results: self.results.clone(),
                    config: slot.config.clone(),
                    tool: tool.clone(),
                }));
            }
        }
        tools
    }

    /// Stops every supervisor and waits (bounded) for sessions and child processes to close.
    pub async fn shutdown(&self) {
        let names: Vec<String> = self.inner.servers().keys().cloned().collect();
        for name in names {
            supervisor::stop(&self.inner, &name);
        }
        self.inner.tasks.close();
        let _ = tokio::time::timeout(SHUTDOWN_TIMEOUT, self.inner.tasks.wait()).await;
        self.inner.tasks.reopen();
    }

    /// Reads the stored servers into memory once, so edits made before `start` see them.
    async fn ensure_loaded(&self) -> Result<()> {
        if self.inner.loaded.load(Ordering::Acquire) {
            return Ok(());
        }
        let stored = self.inner.store.load_all().await?;
        let mut servers = self.inner.servers();
        if !self.inner.loaded.swap(true, Ordering::AcqRel) {
            for server in stored {
                servers
                    .entry(server.config.name.clone())
                    .or_insert_with(|| Slot::new(server.config, server.known_tools, server.server_info));
            }
        }
        Ok(())
    }

    fn stored_config(&self, name: &str) -> Option<McpServerConfig> {
        self.inner.servers().get(name).map(|slot| slot.config.clone())
    }

    /// Validates, persists and applies a complete config (secrets already restored).
    async fn save(&self, config: McpServerConfig) -> Result<()> {
        self.ensure_loaded().await?;
        validate_name(&config.name)?;
        config.validate()?;
        let previous = self.stored_config(&config.name);
        let transport_changed = previous.as_ref().is_some_and(|p| p.transport != config.transport);
        let needs_restart = match &previous {
            None => true,
            Some(p) => transport_changed || p.enabled != config.enabled,
        };
        self.inner.store.save_config(&config, transport_changed).await?;
        let name = config.name.clone();
        {
            let mut servers = self.inner.servers();
            match servers.get_mut(&name) {
                Some(slot) => {
                    if transport_changed {
                        slot.tools.clear();
                        slot.tools_notice = None;
                        slot.server_info = None;
                    }
                    slot.config = config;
                }
                None => {
                    servers.insert(name.clone(), Slot::new(config, Vec::new(), None));
                }
            }
        }
        if needs_restart {
            supervisor::restart(&self.inner, &name);
        }
        Ok(())
    }
}

fn status_of(slot: &Slot) -> McpServerStatus {
    let offline = slot.live.is_none();
    McpServerStatus {
        name: slot.config.name.clone(),
        enabled: slot.config.enabled,
        state: if slot.config.enabled { slot.state.clone() } else { ServerState::Disabled },
        server_info: slot.server_info.clone(),
        tools: slot.tools.iter().map(|tool| tool_status(&slot.config, tool, offline)).collect(),
        tools_notice: slot.tools_notice.clone(),
        config: redact_config(&slot.config),
    }
}

/// How long a chat's "Connect" waits for the server to connect.
const CONNECT_WAIT: Duration = Duration::from_secs(15);

/// The engine asks the hub for its current tools at every model turn, and for its servers' state
/// when a run needs one (the connection check).
impl warden_engine::toolbox::ToolSource for McpHub {
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        McpHub::tools(self)
    }

    fn servers(&self) -> Vec<SourceServer> {
        self.inner.servers().values().map(source_server).collect()
    }

    fn connect<'a>(&'a self, server: &'a str) -> BoxFuture<'a, std::result::Result<(), String>> {
        Box::pin(async move {
            let status = match self.enable_and_connect(server, CONNECT_WAIT).await {
                Ok(status) => status,
                Err(e @ Error::NotFound(_)) => return Err(e.to_string()),
                Err(e) => {
                    tracing::error!(mcp_server = server, error = %e, "could not enable an MCP server");
                    return Err("the server could not be enabled; the details are in Warden's log".into());
                }
            };
            match status.state {
                ServerState::Connected => Ok(()),
                ServerState::Connecting => {
                    Err(format!("still connecting after {} s; try again in a moment", CONNECT_WAIT.as_secs()))
                }
                ServerState::Disabled => Err("the server is disabled".into()),
                ServerState::Failed { error } | ServerState::Offline { error } => Err(error),
            }
        })
    }
}

/// A server as the connection check sees it: down or not, and the names of the tools it offers.
fn source_server(slot: &Slot) -> SourceServer {
    let down = match (&slot.config.enabled, &slot.state) {
        (false, _) | (true, ServerState::Disabled) => Some(ServerDown::Disabled),
        (true, ServerState::Failed { .. } | ServerState::Offline { .. }) => Some(ServerDown::Offline),
        (true, ServerState::Connected | ServerState::Connecting) => None,
    };
    let tools = slot
        .tools
        .iter()
        .filter(|tool| slot.config.policy(&tool.name) != ToolPolicy::Disabled)
        .map(|tool| crate::policy::qualified_name(&slot.config.name, &tool.name))
        .collect();
    SourceServer { name: slot.config.name.clone(), down, tools }
}
