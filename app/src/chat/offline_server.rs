//! Shown on a tool call that failed because its MCP server was offline: says so and reconnects
//! the server on request, then tells how the attempt went (the model was already told the call
//! did not run; asking again retries it).

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::server_fns::mcp::reconnect_mcp_server;
use warden_types::mcp::{Reconnected, ServerState};

#[derive(Debug, Clone, PartialEq)]
enum Attempt {
    Idle,
    Working,
    Finished(Reconnected),
    Refused(String),
}

#[component]
pub fn OfflineServer(server: String) -> impl IntoView {
    let attempt = RwSignal::new(Attempt::Idle);
    let name = StoredValue::new(server.clone());
    let reconnect = move |_| {
        attempt.set(Attempt::Working);
        let server = name.get_value();
        spawn_local(async move {
            let outcome = match reconnect_mcp_server(server).await {
                Ok(status) => Attempt::Finished(status),
                Err(error) => Attempt::Refused(error.to_string()),
            };
            attempt.try_set(outcome);
        });
    };
    let working = move || attempt.get() == Attempt::Working;
    let report = move || match attempt.get() {
        Attempt::Idle => String::new(),
        Attempt::Working => "Reconnecting…".to_string(),
        Attempt::Finished(status) => outcome_text(&status),
        Attempt::Refused(error) => format!("Could not reconnect: {error}"),
    };
    let label = format!("MCP server {server} is offline");

    view! {
        <div class="offline-server" role="group" aria-label=label>
            <p>"The MCP server " <code>{server}</code> " was offline, so this call did not run."</p>
            <button type="button" on:click=reconnect disabled=working>"Reconnect"</button>
            <span class="offline-report" role="status">{report}</span>
        </div>
    }
}

/// What a reconnect attempt came to, in words.
fn outcome_text(status: &Reconnected) -> String {
    match &status.state {
        ServerState::Connected => format!("Connected again ({} tools). Ask again to retry the call.", status.tools),
        ServerState::Connecting => "Still connecting; try again in a moment.".to_string(),
        ServerState::Disabled => "The server is disabled in Settings.".to_string(),
        ServerState::Failed { error } | ServerState::Offline { error } => format!("Still offline: {error}"),
    }
}
