//! What every handler and server function can reach: the Leptos options, the engine, the MCP hub,
//! the outside-approvals hub, and the access policy the router applies. [`AppState::open`] is the one way to build it, for the
//! binary and the tests alike.

use std::sync::Arc;

use axum::extract::FromRef;
use leptos::prelude::LeptosOptions;
use warden_engine::config::Config;
use warden_engine::Engine;
use warden_llm::Provider;
use warden_mcp::{McpHub, McpStore};
use warden_notify::{Notifier, NotifierOptions};
use warden_outside::{Backoff, Dialer, OutsideHub};
use warden_people::People;
use warden_reach::Reach;
use warden_sessions::Sessions;

use crate::access::Access;
use crate::api::outside_mcp::OutsideMcp;
use crate::notifying::Dispatcher;
use crate::public_url::public_url;

#[derive(Clone, FromRef)]
pub struct AppState {
    pub leptos_options: LeptosOptions,
    pub engine: Engine,
    pub mcp: McpHub,
    pub outside: OutsideHub,
    /// The MCP endpoint for coding agents, on the outside hub.
    pub outside_mcp: OutsideMcp,
    /// The executors Warden dials.
    pub dialer: Dialer,
    /// The signed-in browsers (the access gate checks them; Settings lists and signs them out).
    pub sessions: Sessions,
    /// The people of this Warden and their roles (the access gate finds who asks among them).
    pub people: People,
    /// Decision links and the delivery log of notifications.
    pub reach: Reach,
    /// Notification channels and sending to them (Settings manages them; the dispatcher sends).
    pub notifier: Notifier,
    pub access: Access,
}

/// Why the state could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("cannot open the engine: {0}")]
    Engine(#[from] warden_engine::Error),
    #[error("cannot open the MCP store: {0}")]
    Mcp(#[from] warden_mcp::Error),
    #[error("cannot open the outside approvals: {0}")]
    Outside(#[from] warden_outside::Error),
    #[error("cannot open the signed-in browsers: {0}")]
    Sessions(#[from] warden_sessions::Error),
    #[error("cannot open the people: {0}")]
    People(#[from] warden_people::Error),
    #[error("cannot open the decision links and notifications: {0}")]
    Reach(#[from] warden_reach::Error),
    #[error("cannot open the notification channels: {0}")]
    Notify(#[from] warden_notify::Error),
    #[error(transparent)]
    PublicUrl(#[from] crate::public_url::PublicUrlError),
}

impl AppState {
    /// Opens the engine on `config` (database, model, built-in tools, runs to resume), then warden-mcp
    /// on the same database with its own migrations; merges the `mcpServers` file the config names,
    /// starts connecting the MCP servers in the background and offers their tools to the agent; then
    /// the outside approvals on the same database (their own migrations; overdue requests expire; a
    /// request naming a running call of the engine's runs belongs to it), and starts dialling the
    /// enabled executors. The signed-in browsers, the people and the notification channels are kept in the same database (`access`
    /// gets the first two; the founding owner is made on first start).
    pub async fn open(config: Config, leptos_options: LeptosOptions, access: Access) -> Result<Self, OpenError> {
        let local = built_in_model(&config);
        let engine = Engine::open_with_local(config, local).await?;
        let mcp = start_mcp(&engine).await?;
        let outside = OutsideHub::open_with(&engine.database(), warden_outside::Limits::from_env()?).await?;
        outside.follow_runs(engine.clone());
        let outside_mcp = OutsideMcp::new(outside.clone());
        let dialer = Dialer::start(&engine.database(), outside.clone(), Backoff::default()).await?;
        let sessions = Sessions::open(&engine.database(), warden_sessions::Policy::default()).await?;
        let people = People::open(&engine.database()).await?;
        let owner = people.founding_owner().await?;
        sessions.adopt_unowned(&owner.id).await?;
        // Threads from before people were the founding owner's, as their sessions were.
        engine.adopt_unowned_threads(&owner.id).await?;
        outside.adopt_unowned_clients(&owner.id).await?;
        // Outside requests are routed by the same policies as chats' approvals, asked by the client's owner.
        outside.route_by(engine.policies().clone(), people.clone());
        let reach = Reach::open(&engine.database()).await?;
        let notifier = Notifier::open(&engine.database(), NotifierOptions::from_env()).await?;
        let base_url = public_url(std::env::var("WARDEN_PUBLIC_URL").ok().as_deref(), access.hosts())?;
        Dispatcher::new(engine.clone(), outside.clone(), people.clone(), notifier.clone(), reach.clone(), &base_url)
            .start();
        let access = access.with_sessions(sessions.clone()).with_people(people.clone(), owner.id);
        Ok(Self {
            leptos_options,
            engine,
            mcp,
            outside,
            outside_mcp,
            dialer,
            sessions,
            people,
            reach,
            notifier,
            access,
        })
    }
}

/// The built-in model (warden-local, llama.cpp) when the config wants it and its file is there. A file
/// that does not load leaves the app without it (the page says what to set) rather than not starting.
fn built_in_model(config: &Config) -> Option<Arc<dyn Provider>> {
    let path = config.local_model_to_load()?;
    match warden_local::provider(path) {
        Ok(model) => Some(model),
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "the built-in model did not load");
            None
        }
    }
}

/// Start-up does not wait for any MCP server to connect; a bad config file or a server that cannot
/// start is logged, not fatal. Only an unusable MCP table is.
async fn start_mcp(engine: &Engine) -> Result<McpHub, warden_mcp::Error> {
    let store = McpStore::open(&engine.database()).await?;
    // Whole results that were cut for the model are kept in the data dir (out of any sandbox's reach).
    let hub = McpHub::with_private_paths(store, engine.config().private_paths())
        .with_results_dir(engine.config().data_dir.join("mcp-results"));
    if let Some(path) = engine.config().mcp_config_file.clone() {
        match hub.load_config_file(&path).await {
            Ok(names) => tracing::info!(servers = ?names, file = %path.display(), "MCP servers loaded from file"),
            Err(e) => tracing::error!(file = %path.display(), error = %e, "could not load the MCP config file"),
        }
    }
    if let Err(e) = hub.start().await {
        tracing::error!(error = %e, "could not start the MCP servers");
    }
    engine.add_tool_source(std::sync::Arc::new(hub.clone()));
    Ok(hub)
}
