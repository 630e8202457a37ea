//! One configured provider: its name, kind, address, masked key, default model and how many models
//! its API listed; Test connection (ok or failed, with the models found); Edit and Remove (with an
//! inline confirmation) for those kept in Settings. Entries from the environment, or built in, are
//! read-only and say where they come from.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::server_fns::providers::{remove_provider, test_provider_entry};
use crate::settings::providers::actions::{ProbeOutcome, ProviderProbes, ProvidersUi};
use crate::settings::providers::probe::ProviderProbeView;
use warden_types::provider::ProviderEntry;

#[component]
pub fn ProviderCard(entry: ProviderEntry, is_default: bool) -> impl IntoView {
    let ui = expect_context::<ProvidersUi>();
    let probes = expect_context::<ProviderProbes>();
    let id = StoredValue::new(entry.id.to_string());
    let name = StoredValue::new(entry.name.clone());
    let heading_id = format!("provider-{}", entry.id);
    let labelled_by = heading_id.clone();
    let busy = move || ui.is_busy(&id.read_value());
    let read_only = entry.read_only;
    let models = match entry.models.len() {
        0 => "no models listed yet".to_string(),
        1 => "1 model listed".to_string(),
        n => format!("{n} models listed"),
    };
    let key = entry.key.clone().unwrap_or_else(|| "none".into());
    let address = if entry.base_url.is_empty() { "on this machine".to_string() } else { entry.base_url.clone() };
    let source = entry.source.clone().map(|source| {
        view! { <p class="provider-source">"Read-only: from " <code>{source}</code> "."</p> }
    });
    let editable = StoredValue::new(entry.clone());

    let test = move |_| {
        let entry_id = id.get_value();
        ui.busy.update(|b| b.push(entry_id.clone().to_string()));
        spawn_local(async move {
            let outcome = match test_provider_entry(entry_id.clone().into()).await {
                Ok(probe) => ProbeOutcome::Tested(probe),
                Err(e) => ProbeOutcome::Refused(e.to_string()),
            };
            let listed = matches!(&outcome, ProbeOutcome::Tested(p) if p.ok && !p.models.is_empty());
            probes.0.try_update(|all| all.insert(entry_id.clone().to_string(), outcome));
            ui.busy.try_update(|b| b.retain(|s| *s != entry_id));
            // A stored entry keeps the models a test listed: show the new count.
            if listed {
                ui.refresh();
            }
        });
    };
    let probe = move || probes.0.with(|all| all.get(&*id.read_value()).cloned());
    let confirming = move || ui.confirm_remove.read().as_deref() == Some(id.read_value().as_str());
    let remove = move |_| {
        ui.confirm_remove.set(None);
        let entry_id = id.get_value();
        ui.run(entry_id.clone().to_string(), name.get_value(), "Could not remove", remove_provider(entry_id.into()));
    };
    let controls = (!read_only).then(|| {
        view! {
            <button type="button" disabled=busy on:click=move |_| ui.form.set(Some(Some(editable.get_value())))>
                "Edit"
            </button>
            <button type="button" class="danger" disabled=busy on:click=move |_| ui.confirm_remove.set(Some(id.get_value().to_string()))>
                "Remove"
            </button>
        }
    });

    view! {
        <section class="provider" class:read-only=read_only aria-labelledby=labelled_by>
            <h3>
                <span id=heading_id>{entry.name.clone()}</span>
                " "
                {is_default.then(|| view! { <span class="badge">"default"</span> })}
            </h3>
            <dl class="provider-facts">
                <dt>"Kind"</dt><dd>{entry.kind.label()}</dd>
                <dt>"Address"</dt><dd><code>{address}</code></dd>
                <dt>"Key"</dt><dd><code>{key}</code></dd>
                <dt>"Default model"</dt><dd><code>{entry.default_model.clone()}</code></dd>
                <dt>"Models"</dt><dd>{models}</dd>
            </dl>
            {source}
            <div class="mcp-controls">
                <button type="button" disabled=busy on:click=test>"Test connection"</button>
                {controls}
            </div>
            <Show when=confirming>
                <div class="mcp-confirm" role="group" aria-label="Confirm removal">
                    <p>
                        "Remove " <strong>{name.get_value()}</strong>
                        "? Threads that use it go back to the default model."
                    </p>
                    <button type="button" class="danger" on:click=remove>{format!("Remove {}", name.get_value())}</button>
                    <button type="button" on:click=move |_| ui.confirm_remove.set(None)>"Cancel"</button>
                </div>
            </Show>
            {move || probe().map(|outcome| {
                let label = format!("Connection test of {}", name.get_value());
                view! { <ProviderProbeView outcome label/> }
            })}
        </section>
    }
}
