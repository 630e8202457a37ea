//! Settings' "MCP servers": the servers the agent may use, each with its state and tools, the form
//! to add or edit one, and import/export. The list is rendered on the server, refetched after every
//! change, and polled while a server is still connecting or retrying.

use std::time::Duration;

use leptos::prelude::*;

use crate::server_fns::mcp::list_mcp_servers;
use crate::settings::mcp::actions::McpUi;
use crate::settings::mcp::import_export::McpImportExport;
use crate::settings::mcp::server_card::McpServerCard;
use crate::settings::mcp::server_form::McpServerForm;
use crate::ui::error_notice::error_list;
use warden_types::mcp::{McpServerStatus, ServerState};

#[component]
pub fn McpSection() -> impl IntoView {
    let ui = McpUi::new();
    provide_context(ui);
    let servers = Resource::new(move || ui.changed.get(), |_| list_mcp_servers());
    // Effects run only in the browser: poll while the state may still change by itself.
    Effect::new(move |_| {
        let delay = servers.get().and_then(Result::ok).and_then(|list| poll_delay(&list));
        if let Some(delay) = delay {
            if let Ok(handle) = set_timeout_with_handle(move || ui.refresh(), delay) {
                on_cleanup(move || handle.clear());
            }
        }
    });

    view! {
        <section aria-labelledby="mcp-title">
            <h2 id="mcp-title">"MCP servers"</h2>
            <p class="mcp-intro">
                "Tools from these servers are offered to the agent. Calls wait for your approval unless a \
                 tool's policy says otherwise."
            </p>
            {move || ui.error.get().map(|message| view! {
                <p class="error" role="alert">{message}</p>
            })}
            {move || match ui.form.get() {
                Some(editing) => view! { <McpServerForm editing/> }.into_any(),
                None => view! {
                    <button type="button" on:click=move |_| ui.form.set(Some(None))>
                        "Add server"
                    </button>
                }
                .into_any(),
            }}
            <Transition fallback=|| view! { <p class="loading">"Loading MCP servers…"</p> }>
                <ErrorBoundary fallback=error_list>
                    {move || Suspend::new(async move {
                        servers.await.map(|list| view! { <ServerList list/> })
                    })}
                </ErrorBoundary>
            </Transition>
            <McpImportExport/>
        </section>
    }
    // Type-erased: nested into the settings page as one type, it is too deep for the compiler.
    .into_any()
}

#[component]
fn ServerList(list: Vec<McpServerStatus>) -> impl IntoView {
    if list.is_empty() {
        return view! { <p class="empty">"No MCP servers yet. Add one, or import an mcpServers file."</p> }.into_any();
    }
    list.into_iter().map(|server| view! { <McpServerCard server/> }).collect_view().into_any()
}

/// How soon to look again: soon while a server connects, more slowly while one retries.
fn poll_delay(list: &[McpServerStatus]) -> Option<Duration> {
    let states = || list.iter().map(|s| &s.state);
    if states().any(|s| *s == ServerState::Connecting) {
        Some(Duration::from_secs(2))
    } else if states().any(|s| matches!(s, ServerState::Failed { .. } | ServerState::Offline { .. })) {
        Some(Duration::from_secs(5))
    } else {
        None
    }
}
