//! Keeps one server connected: connects in the background, refreshes tools on `list_changed`, and
//! after a crash or disconnect reconnects with exponential backoff (0.5 s doubling to 30 s).

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use crate::config::McpServerConfig;
use crate::connect::{self, Connection, LIST_TIMEOUT};
use crate::model::ServerState;
use crate::registry::{Inner, Live};

const INITIAL_BACKOFF: Duration = Duration::from_millis(500);
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// A connection that lasted this long resets the backoff; a server that dies at once does not.
const STABLE_AFTER: Duration = Duration::from_secs(10);
/// How long a closing session may take to shut its child down.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(10);

/// Stops the server's current supervisor, if any, and starts a new one if the server is enabled.
pub(crate) fn restart(inner: &Arc<Inner>, name: &str) {
    let mut servers = inner.servers();
    let Some(slot) = servers.get_mut(name) else {
        return;
    };
    if let Some(stop) = slot.stop.take() {
        stop.cancel();
    }
    slot.generation += 1;
    slot.live = None;
    if !slot.config.enabled {
        slot.state = ServerState::Disabled;
        return;
    }
    slot.state = ServerState::Connecting;
    let stop = CancellationToken::new();
    slot.stop = Some(stop.clone());
    let task = run(inner.clone(), slot.config.clone(), slot.generation, stop);
    drop(servers);
    inner.tasks.spawn(task);
}

/// Stops the server's supervisor (its session closes, a child process is shut down).
pub(crate) fn stop(inner: &Inner, name: &str) {
    let mut servers = inner.servers();
    if let Some(slot) = servers.get_mut(name) {
        if let Some(stop) = slot.stop.take() {
            stop.cancel();
        }
        slot.generation += 1;
        slot.live = None;
    }
}

async fn run(inner: Arc<Inner>, config: McpServerConfig, generation: u64, stop: CancellationToken) {
    let name = config.name.clone();
    let mut backoff = INITIAL_BACKOFF;
    let mut ever_connected = false;
    loop {
        let attempt = tokio::select! {
            _ = stop.cancelled() => return,
            attempt = connect::connect(&config, &inner.private_paths) => attempt,
        };
        match attempt {
            Ok(connection) => {
                ever_connected = true;
                let started = Instant::now();
                let error = serve(&inner, &name, generation, connection, &stop).await;
                if stop.is_cancelled() {
                    return;
                }
                tracing::warn!(mcp_server = %name, "disconnected: {error}");
                inner.update_if_current(&name, generation, |slot| {
                    slot.live = None;
                    slot.state = ServerState::Offline { error };
                });
                if started.elapsed() >= STABLE_AFTER {
                    backoff = INITIAL_BACKOFF;
                }
            }
            Err(error) => {
                let error = error.to_string();
                tracing::warn!(mcp_server = %name, "could not connect: {error}");
                inner.update_if_current(&name, generation, |slot| {
                    slot.state =
                        if ever_connected { ServerState::Offline { error } } else { ServerState::Failed { error } };
                });
            }
        }
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tokio::time::sleep(backoff) => {}
        }
        backoff = (backoff * 2).min(MAX_BACKOFF);
    }
}

/// Runs a live session until it closes (returns why) or the supervisor is stopped.
async fn serve(inner: &Inner, name: &str, generation: u64, connection: Connection, stop: &CancellationToken) -> String {
    let Connection { service, client, server_info, tools, tools_notice, stderr } = connection;
    let peer = service.peer().clone();
    let is_current = inner.update_if_current(name, generation, |slot| {
        slot.state = ServerState::Connected;
        slot.server_info = server_info.clone();
        slot.tools = tools.clone();
        slot.tools_notice = tools_notice;
        slot.live = Some(Live { peer: peer.clone(), client: client.clone() });
    });
    if is_current {
        remember(inner, name, &tools, server_info.as_ref()).await;
    }
    let closer = service.cancellation_token();
    let mut waiting = Box::pin(service.waiting());
    loop {
        tokio::select! {
            _ = stop.cancelled() => {
                closer.cancel();
                let _ = tokio::time::timeout(CLOSE_TIMEOUT, waiting).await;
                return "stopped".into();
            }
            _ = client.tools_changed.notified() => {
                match tokio::time::timeout(LIST_TIMEOUT, connect::list_tools(&peer)).await {
                    Ok(Ok(connect::ToolListing { tools, notice })) => {
                        let changed = inner.update_if_current(name, generation, |slot| {
                            slot.tools = tools.clone();
                            slot.tools_notice = notice;
                        });
                        if changed {
                            remember(inner, name, &tools, server_info.as_ref()).await;
                        }
                    }
                    Ok(Err(error)) => tracing::warn!(mcp_server = %name, "refreshing tools failed: {error}"),
                    Err(_) => tracing::warn!(mcp_server = %name, "refreshing tools timed out"),
                }
            }
            quit = &mut waiting => {
                let last_words = stderr.as_ref().map(|s| s.last_line()).unwrap_or_default();
                let reason = match quit {
                    Ok(reason) => format!("the connection closed ({reason:?})"),
                    Err(error) => format!("the session ended: {error}"),
                };
                return match last_words {
                    Some(line) => format!("{reason}; last stderr line: {line}"),
                    None => reason,
                };
            }
        }
    }
}

async fn remember(
    inner: &Inner,
    name: &str,
    tools: &[crate::model::RemoteTool],
    info: Option<&crate::model::ServerInfo>,
) {
    if let Err(error) = inner.store.save_known(name, tools, info).await {
        tracing::warn!(mcp_server = %name, "could not store the tool list: {error}");
    }
}
