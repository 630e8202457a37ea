//! The add/edit form for a provider kept in Settings: kind (choosing one offers its public address),
//! name, address, key, default model, and for OpenAI-compatible servers the text tool-call fallback.
//! Test connection tries what is entered, unsaved. The key is a password field that holds only what
//! is typed, or, when editing, the masked key (sent back, it keeps the stored key while the kind and
//! address stay the same; the engine says to enter it again otherwise).

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::server_fns::providers::{save_provider, test_provider};
use crate::settings::providers::actions::{ProbeOutcome, ProvidersUi};
use crate::settings::providers::fields::{kind_from_value, kind_value, ProviderFields};
use crate::settings::providers::probe::ProviderProbeView;
use warden_types::provider::{ProviderEntry, ProviderKind};

#[component]
pub fn ProviderForm(editing: Option<ProviderEntry>) -> impl IntoView {
    let ui = expect_context::<ProvidersUi>();
    let initial = editing.as_ref().map(ProviderFields::from_entry).unwrap_or_default();
    let id = StoredValue::new(editing.as_ref().map(|e| e.id.clone()));
    let title = match &editing {
        Some(entry) => format!("Edit {}", entry.name),
        None => "Add provider".to_string(),
    };
    let fields = RwSignal::new(initial);
    let error = RwSignal::new(None::<String>);
    let tested = RwSignal::new(None::<ProbeOutcome>);
    let working = RwSignal::new(false);
    let first_field = NodeRef::<leptos::html::Select>::new();
    Effect::new(move |_| {
        if let Some(select) = first_field.get() {
            let _ = select.focus();
        }
    });

    let input = move || fields.with_untracked(|f| f.to_input(id.get_value().map(|i| i.to_string())));
    let test = move |_| match input() {
        Err(message) => error.set(Some(message)),
        Ok(provider) => {
            error.set(None);
            tested.set(None);
            working.set(true);
            spawn_local(async move {
                let outcome = match test_provider(provider).await {
                    Ok(probe) => ProbeOutcome::Tested(probe),
                    Err(e) => ProbeOutcome::Refused(e.to_string()),
                };
                tested.try_set(Some(outcome));
                working.try_set(false);
            });
        }
    };
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        match input() {
            Err(message) => error.set(Some(message)),
            Ok(provider) => {
                error.set(None);
                working.set(true);
                spawn_local(async move {
                    match save_provider(provider).await {
                        Ok(_) => {
                            ui.form.try_set(None);
                            ui.refresh();
                        }
                        Err(e) => {
                            error.try_set(Some(e.to_string()));
                        }
                    }
                    working.try_set(false);
                });
            }
        }
    };

    let text = move |get: fn(&ProviderFields) -> &String| move || fields.with(|f| get(f).clone());
    let kind = move || fields.with(|f| f.kind);
    let kind_options = ProviderKind::ADDABLE
        .into_iter()
        .map(|k| view! { <option value=kind_value(k) selected=move || kind() == k>{k.label()}</option> })
        .collect_view();
    let key_hint = editing.as_ref().and_then(|e| e.key.as_ref()).map(|_| {
        view! {
            <p class="hint">
                "The key is shown masked. Leave it as it is to keep the stored key (only while the kind and address \
                 stay the same), or type a new one."
            </p>
        }
    });
    view! {
        <form class="provider-form mcp-form" aria-labelledby="provider-form-title" on:submit=save>
            <h3 id="provider-form-title">{title}</h3>
            <label>
                "Kind"
                <select node_ref=first_field prop:value=move || kind_value(kind())
                    on:change=move |ev| {
                        if let Some(k) = kind_from_value(&event_target_value(&ev)) {
                            fields.update(|f| f.set_kind(k));
                        }
                    }>
                    {kind_options}
                </select>
            </label>
            <label>
                "Name"
                <input type="text" required autocomplete="off" prop:value=text(|f| &f.name)
                    on:input=move |ev| fields.update(|f| f.name = event_target_value(&ev))/>
            </label>
            <label>
                "Address"
                <input type="url" required autocomplete="off" prop:value=text(|f| &f.base_url)
                    on:input=move |ev| fields.update(|f| f.base_url = event_target_value(&ev))/>
            </label>
            <label>
                "API key"
                <input type="password" autocomplete="off" spellcheck="false"
                    prop:value=text(|f| &f.api_key)
                    on:input=move |ev| fields.update(|f| f.api_key = event_target_value(&ev))/>
            </label>
            {key_hint}
            <label>
                "Default model"
                <input type="text" required autocomplete="off" spellcheck="false" prop:value=text(|f| &f.default_model)
                    on:input=move |ev| fields.update(|f| f.default_model = event_target_value(&ev))/>
            </label>
            <Show when=move || kind() == ProviderKind::OpenaiCompatible>
                <label>
                    <input type="checkbox" prop:checked=move || fields.with(|f| f.text_tool_calls)
                        on:change=move |ev| fields.update(|f| f.text_tool_calls = event_target_checked(&ev))/>
                    "No native tool calling (tools described in the prompt)"
                </label>
            </Show>
            <div class="mcp-form-buttons">
                <button type="button" disabled=move || working.get() on:click=test>"Test connection"</button>
                <button type="submit" class="approve" disabled=move || working.get()>"Save"</button>
                <button type="button" on:click=move |_| ui.form.set(None)>"Cancel"</button>
            </div>
            {move || working.get().then(|| view! { <p class="loading" role="status">"Working…"</p> })}
            {move || error.get().map(|message| view! { <p class="error" role="alert">{message}</p> })}
            {move || tested.get().map(|outcome| view! { <ProviderProbeView outcome label="Connection test result"/> })}
        </form>
    }
}
