//! One configured MCP server: its state (with the error when it failed), what it says it is, how it
//! is reached, its tools, and Enabled / Trust read-only hints / Reconnect / Edit / Remove.
//! Removal asks for confirmation inline (no browser dialog).

use leptos::prelude::*;

use crate::server_fns::mcp::{reconnect_mcp_server, remove_mcp_server, set_mcp_enabled, set_mcp_trust_read_only};
use crate::settings::mcp::actions::McpUi;
use crate::settings::mcp::tool_table::McpToolTable;
use warden_types::mcp::{McpServerStatus, ServerState, Transport};

#[component]
pub fn McpServerCard(server: McpServerStatus) -> impl IntoView {
    let ui = expect_context::<McpUi>();
    let name = StoredValue::new(server.name.clone());
    let heading_id = format!("mcp-server-{}", server.name);
    let busy = move || ui.is_busy(&name.read_value());
    let state = server.state.clone();
    let class = format!("mcp-server state-{}", state.label());
    let labelled_by = heading_id.clone();
    let info = server
        .server_info
        .as_ref()
        .map(|i| view! { <p class="mcp-info">"Server: " {i.name.clone()} " " {i.version.clone()}</p> });
    let reach = match &server.config.transport {
        Transport::Stdio { command, args, .. } => format!("stdio: {command} {}", args.join(" ")),
        Transport::Http { url, .. } => format!("http: {url}"),
    };
    let enabled = server.enabled;
    let trust = server.config.trust_read_only_hints;
    let config = StoredValue::new(server.config.clone());

    let toggle_enabled = move |_| {
        let n = name.get_value();
        ui.run(n.clone(), n.clone(), "Could not switch", set_mcp_enabled(n, !enabled));
    };
    let toggle_trust = move |_| {
        let n = name.get_value();
        ui.run(n.clone(), n.clone(), "Could not change the trust setting of", set_mcp_trust_read_only(n, !trust));
    };
    let reconnect = move |_| {
        let n = name.get_value();
        ui.run(n.clone(), n.clone(), "Could not reconnect", async move { reconnect_mcp_server(n).await.map(|_| ()) });
    };
    let edit = move |_| ui.form.set(Some(Some(config.get_value())));
    let confirming = move || ui.confirm_remove.read().as_deref() == Some(name.read_value().as_str());
    let remove = move |_| {
        ui.confirm_remove.set(None);
        let n = name.get_value();
        ui.run(n.clone(), n.clone(), "Could not remove", remove_mcp_server(n));
    };

    view! {
        <section class=class aria-labelledby=labelled_by>
            <h3 id=heading_id>{server.name.clone()}</h3>
            <StateLine state/>
            {info}
            <p class="mcp-reach"><code>{reach}</code></p>
            <div class="mcp-controls">
                <label>
                    <input type="checkbox" prop:checked=enabled disabled=busy on:change=toggle_enabled/>
                    "Enabled"
                </label>
                <label>
                    <input type="checkbox" prop:checked=trust disabled=busy on:change=toggle_trust/>
                    "Trust read-only hints"
                </label>
                <button type="button" disabled=busy on:click=reconnect>"Reconnect"</button>
                <button type="button" disabled=busy on:click=edit>"Edit"</button>
                <button type="button" class="danger" disabled=busy on:click=move |_| ui.confirm_remove.set(Some(name.get_value()))>
                    "Remove"
                </button>
            </div>
            <Show when=confirming>
                <div class="mcp-confirm" role="group" aria-label="Confirm removal">
                    <p>"Remove " <strong>{name.get_value()}</strong> "? Its tools will no longer be offered to the agent."</p>
                    <button type="button" class="danger" on:click=remove>{format!("Remove {}", name.get_value())}</button>
                    <button type="button" on:click=move |_| ui.confirm_remove.set(None)>"Cancel"</button>
                </div>
            </Show>
            {server.tools_notice.map(|notice| view! { <p class="notice" role="note">{notice}</p> })}
            <McpToolTable tools=server.tools server=server.name.clone() caption=format!("Tools of {}", server.name)/>
        </section>
    }
}

/// The connection state in words; failed and offline show the last error.
#[component]
fn StateLine(state: ServerState) -> impl IntoView {
    let words = match &state {
        ServerState::Disabled => "Disabled",
        ServerState::Connecting => "Connecting…",
        ServerState::Connected => "Connected",
        ServerState::Failed { .. } => "Failed",
        ServerState::Offline { .. } => "Offline, reconnecting",
    };
    let error = state.error().map(|e| view! { <span class="error">": " {e.to_string()}</span> });
    view! {
        <p class=format!("mcp-state state-{}", state.label())>
            "State: " <strong>{words}</strong> {error}
        </p>
    }
}
