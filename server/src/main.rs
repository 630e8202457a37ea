//! The `warden-server` binary: reads the configuration from the environment, opens the engine and
//! serves the app until Ctrl-C or SIGTERM. Prints the sign-in link at start.

use std::process::ExitCode;

use leptos::prelude::get_configuration;
use tracing_subscriber::EnvFilter;
use warden_engine::config::Config;
use warden_engine::Engine;
use warden_mcp::McpHub;
use warden_server::access::{Access, TokenSource};
use warden_server::serve::{serve as serve_http, ServeOptions};
use warden_server::{router, shutdown, AppState};

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| EnvFilter::new("info,warden_engine=debug,warden_server=debug,tower_http=info")),
        )
        .init();
    match serve().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            tracing::error!("{message}");
            ExitCode::FAILURE
        }
    }
}

async fn serve() -> Result<(), String> {
    let config = Config::from_env()?;
    let leptos_options = get_configuration(None)
        .map_err(|e| format!("cannot read the Leptos configuration (run through cargo-leptos or set LEPTOS_* variables): {e}"))?
        .leptos_options;
    let addr = leptos_options.site_addr;
    // The token is always on: there is no switch to turn it off, so binding beyond loopback is
    // allowed (the token guards it), with a warning that plain HTTP shows the token to the network.
    let (access, token_source) =
        Access::from_env(&config.data_dir, addr).map_err(|e| format!("cannot set up access control: {e}"))?;
    let engine = Engine::open(config).await.map_err(|e| format!("cannot open the engine: {e}"))?;
    let status = engine.model_status();
    if status.configured {
        tracing::info!(provider = %status.provider, model = %status.model, "model configured");
    } else {
        tracing::warn!("no model configured: set OPENAI_BASE_URL (and OPENAI_API_KEY, WARDEN_MODEL)");
    }
    let mcp = start_mcp(&engine).await;
    let app = router(AppState { leptos_options, engine: engine.clone(), mcp: mcp.clone(), access: access.clone() });
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    tracing::info!("listening on http://{addr}");
    announce(&access, &token_source, addr);
    serve_http(listener, app, ServeOptions::default(), async move {
        shutdown::signal().await;
        // Ends open event streams so the shutdown is not held up by them.
        engine.shutdown();
        mcp.shutdown().await;
    })
    .await;
    Ok(())
}

/// Prints the sign-in link on stdout (where a person running the command looks) and says where
/// the token lives; warns when the server is reachable beyond this machine.
fn announce(access: &Access, source: &TokenSource, addr: std::net::SocketAddr) {
    let link = access.sign_in_link(addr);
    println!("\n    Warden is running. Open this link to sign in:\n\n        {link}\n");
    match source {
        TokenSource::Env => tracing::info!("access token from WARDEN_TOKEN"),
        TokenSource::File(path) => tracing::info!(file = %path.display(), "access token read from the data dir"),
        TokenSource::Generated(path) => tracing::info!(file = %path.display(), "new access token generated"),
    }
    if !addr.ip().is_loopback() {
        tracing::warn!(
            %addr,
            "listening beyond this machine over plain HTTP: the token and session cookie cross the network unencrypted; \
             put a TLS reverse proxy in front and name it in WARDEN_ALLOWED_HOSTS"
        );
        if addr.ip().is_unspecified() && std::env::var_os("WARDEN_ALLOWED_HOSTS").is_none() {
            tracing::warn!("WARDEN_ALLOWED_HOSTS is not set: only loopback host names are answered");
        }
    }
}

/// Connects the configured MCP servers in the background (start-up does not wait for them) and
/// offers their tools to the agent. `WARDEN_MCP_CONFIG` names an `mcpServers` JSON file to merge.
async fn start_mcp(engine: &Engine) -> McpHub {
    // Whole results that were cut for the model are kept in the data dir (out of any sandbox's reach).
    let hub = McpHub::with_private_paths(engine.store().pool().clone(), engine.config().private_paths())
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
    hub
}
