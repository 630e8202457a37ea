//! One executor Warden dials: its name, address, whether a bearer token is sent (never the token),
//! the connection's state (with the last error while it is retried), and Enabled / Remove.
//! Removal asks for confirmation inline (no browser dialog).

use leptos::prelude::*;

use crate::server_fns::outside_executors::{remove_outside_executor, set_outside_executor_enabled};
use crate::settings::executors::state::ExecutorsUi;
use crate::settings::outside::state::OutsideClientsChanged;
use crate::ui::timestamp::Timestamp;
use warden_outside::{DialState, DialStatus, Executor};

#[component]
pub fn ExecutorCard(executor: Executor) -> impl IntoView {
    let ui = expect_context::<ExecutorsUi>();
    let id = StoredValue::new(executor.id.to_string());
    let name = StoredValue::new(executor.name.clone());
    let heading_id = format!("executor-{}", executor.id);
    let labelled_by = heading_id.clone();
    let busy = move || ui.is_busy(&id.read_value());
    let class = format!("mcp-server executor state-{}", executor.state.status);
    let enabled = executor.enabled;
    let bearer = if executor.has_bearer_token { "Sends a bearer token" } else { "No bearer token" };

    let toggle_enabled = move |_| {
        let (id, name) = (id.get_value(), name.get_value());
        ui.run(id.clone().to_string(), name, "Could not switch", async move {
            set_outside_executor_enabled(id.into(), !enabled).await.map(drop)
        });
    };
    let confirming = move || ui.confirm_remove.read().as_deref() == Some(id.read_value().as_str());
    let clients_changed = use_context::<OutsideClientsChanged>();
    let remove = move |_| {
        ui.confirm_remove.set(None);
        let (id, name) = (id.get_value(), name.get_value());
        ui.run(id.clone().to_string(), name, "Could not remove", async move {
            let removed = remove_outside_executor(id.into()).await;
            // Its outside client went with it.
            if let (Ok(()), Some(changed)) = (&removed, clients_changed) {
                changed.bump();
            }
            removed
        });
    };

    view! {
        <section class=class aria-labelledby=labelled_by>
            <h3 id=heading_id>{executor.name.clone()}</h3>
            <StateLine state=executor.state/>
            <p class="mcp-reach"><code>{executor.url.clone()}</code> " · " {bearer}</p>
            <div class="mcp-controls">
                <label>
                    <input type="checkbox" prop:checked=enabled disabled=busy on:change=toggle_enabled/>
                    "Enabled"
                </label>
                <button type="button" class="danger" disabled=busy
                    on:click=move |_| ui.confirm_remove.set(Some(id.get_value().to_string()))>
                    "Remove"
                </button>
            </div>
            <Show when=confirming>
                <div class="mcp-confirm" role="group" aria-label="Confirm removal">
                    <p>
                        "Remove " <strong>{name.get_value()}</strong>
                        "? Warden stops dialling it and revokes its client; its requests stay in the inbox and \
                         the audit log."
                    </p>
                    <button type="button" class="danger" on:click=remove>{format!("Remove {}", name.get_value())}</button>
                    <button type="button" on:click=move |_| ui.confirm_remove.set(None)>"Cancel"</button>
                </div>
            </Show>
        </section>
    }
}

/// The connection's state in words; while it is retried (or stopped), why the last attempt failed.
#[component]
fn StateLine(state: DialState) -> impl IntoView {
    let words = match state.status {
        DialStatus::Disabled => "Switched off",
        DialStatus::Connecting => "Connecting…",
        DialStatus::Connected => "Connected",
        DialStatus::Retrying => "Retrying",
        DialStatus::Stopped => "Stopped",
    };
    let error = match state.status {
        DialStatus::Retrying | DialStatus::Connecting => state.last_error.clone(),
        // Stopped for good: its client was revoked, or Warden could not read it.
        DialStatus::Stopped => state.last_error.clone().or_else(|| Some("its client was revoked".into())),
        DialStatus::Connected | DialStatus::Disabled => None,
    }
    .map(|e| view! { <span class="error">": " {e}</span> });
    let detail = match state.status {
        DialStatus::Connected => {
            state.connected_at.map(|at| view! { <span class="hint">" since " <Timestamp at/></span> }.into_any())
        }
        DialStatus::Retrying => {
            let attempts = match state.failed_attempts {
                0 => "the socket was lost".to_string(),
                1 => "1 failed attempt".to_string(),
                n => format!("{n} failed attempts"),
            };
            let next = state.retry_at.map(|at| view! { ", next at " <Timestamp at/> });
            Some(view! { <span class="hint">" (" {attempts} {next} ")"</span> }.into_any())
        }
        DialStatus::Stopped | DialStatus::Connecting | DialStatus::Disabled => None,
    };
    view! {
        <p class=format!("mcp-state state-{}", state.status)>
            "State: " <strong>{words}</strong> {error} {detail}
        </p>
    }
}
