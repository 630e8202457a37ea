//! `/settings`: the model providers (see `providers_section`), the MCP servers the agent may use — each
//! with its state and tools — plus the form to add or edit one, and import/export; then the outside clients
//! and their policy (`components::outside_clients`), the executors Warden dials
//! (`components::executors_section`), and the signed-in browsers (`components::signed_in_browsers`).
//! The MCP list is rendered on the server, refetched after every change, and polled while a server is
//! still connecting or retrying.

use std::time::Duration;

use leptos::prelude::*;
use leptos_meta::Title;

use crate::components::error_notice::error_list;
use crate::components::executors_section::ExecutorsSection;
use crate::components::mcp_actions::McpUi;
use crate::components::mcp_import_export::McpImportExport;
use crate::components::mcp_server_card::McpServerCard;
use crate::components::mcp_server_form::McpServerForm;
use crate::components::outside_clients::{OutsideClients, OutsideClientsChanged};
use crate::components::providers_section::ProvidersSection;
use crate::components::signed_in_browsers::SignedInBrowsers;
use crate::server_fns::mcp::list_mcp_servers;
use warden_types::mcp::{McpServerStatus, ServerState};

#[component]
pub fn SettingsPage() -> impl IntoView {
    let ui = McpUi::new();
    provide_context(ui);
    // Executors added or removed list again in the outside clients' table.
    OutsideClientsChanged::provide();
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
        <Title text="Settings · Warden"/>
        <div class="settings">
            <h1>"Settings"</h1>
            <ProvidersSection/>
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
            <OutsideClients/>
            <ExecutorsSection/>
            <SignedInBrowsers/>
        </div>
    }
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
