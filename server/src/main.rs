//! The `warden-server` binary: reads the configuration from the environment, opens the engine and
//! serves the app until Ctrl-C or SIGTERM. Prints the sign-in link at start.

use std::process::ExitCode;

use leptos::prelude::get_configuration;
use tracing_subscriber::EnvFilter;
use warden_engine::config::Config;
use warden_server::access::{Access, TokenSource};
use warden_server::serve::{serve as serve_http, ServeOptions};
use warden_server::{router, shutdown, AppState};

fn main() -> ExitCode {
    // First, while this process has one thread: the small process that starts the shell's commands
    // (forking the running server for each costs milliseconds; see `warden_sandbox::spawner`).
    let spawner = warden_sandbox::spawner::start();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(run(spawner))
}

async fn run(spawner: std::io::Result<()>) -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| EnvFilter::new("info,warden_engine=debug,warden_server=debug,tower_http=info")),
        )
        .init();
    if let Err(error) = spawner {
        tracing::warn!(%error, "no spawner process: each command is forked from the server");
    }
    raise_open_file_limit();
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
    // Before anything is written there (the token file, the database): the data dir is Warden's user's
    // alone, and what an older Warden left open to other users is closed (with a warning in the log).
    warden_db::private_files::make_private(&config.data_dir, &config.workspace, config.database_file().as_deref())
        .map_err(|e| format!("cannot make the data dir {} private: {e}", config.data_dir.display()))?;
    let leptos_options = get_configuration(None)
        .map_err(|e| {
            format!("cannot read the Leptos configuration (run through cargo-leptos or set LEPTOS_* variables): {e}")
        })?
        .leptos_options;
    let addr = leptos_options.site_addr;
    // The token is always on: there is no switch to turn it off, so binding beyond loopback is
    // allowed (the token guards it), with a warning that plain HTTP shows the token to the network.
    let (access, token_source) =
        Access::from_env(&config.data_dir, addr).map_err(|e| format!("cannot set up access control: {e}"))?;
    let state = AppState::open(config, leptos_options, access.clone()).await.map_err(|e| e.to_string())?;
    let (engine, mcp, outside) = (state.engine.clone(), state.mcp.clone(), state.outside.clone());
    let status = engine.model_status();
    if status.configured {
        tracing::info!(provider = %status.provider, model = %status.model, "model configured");
    } else {
        tracing::warn!("no model configured: set OPENAI_BASE_URL (and OPENAI_API_KEY, WARDEN_MODEL)");
    }
    let app = router(state);
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    tracing::info!("listening on http://{addr}");
    announce(&access, &token_source, addr);
    serve_http(listener, app, ServeOptions::default(), async move {
        shutdown::signal().await;
        // Ends open event streams so the shutdown is not held up by them.
        engine.shutdown();
        // Closes the outside clients' sockets and long-polls.
        outside.shutdown();
        mcp.shutdown().await;
    })
    .await;
    Ok(())
}

/// Every open event stream holds a socket, and every streaming run a second one to its model: a
/// soft limit of 1,024 descriptors (a common default) would refuse connections at a few hundred
/// runs. Raises the soft limit to the hard one, as Go and Node servers do at start.
fn raise_open_file_limit() {
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(open_files) => tracing::debug!(open_files, "open file limit"),
        Err(error) => tracing::warn!(%error, "could not raise the open file limit"),
    }
}

/// Prints the sign-in link on stdout (where a person running the command looks) and says where
/// the token lives; warns when the server is reachable beyond this machine.
fn announce(access: &Access, source: &TokenSource, addr: std::net::SocketAddr) {
    let link = access.sign_in_link(addr);
    println!("\n    Warden is running. Open this link to sign in:\n\n        {link}\n");
    println!(
        "    It signs the browser in with a session cookie, which browsers also send to other ports of this\n    \
         host: Settings > Signed-in browsers lists the sessions and signs them out.\n"
    );
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
