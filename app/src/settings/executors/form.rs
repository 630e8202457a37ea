//! The form that adds an executor for Warden to dial: a name (its outside client's), a `ws://` or
//! `wss://` address, and an optional bearer token Warden sends when it dials. The token is typed
//! into a password field, sent once and never shown again.

use leptos::html::Input;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::server_fns::outside_executors::add_outside_executor;
use crate::settings::executors::state::ExecutorsUi;
use crate::settings::outside::state::OutsideClientsChanged;

#[component]
pub fn ExecutorForm() -> impl IntoView {
    let ui = expect_context::<ExecutorsUi>();
    let name = RwSignal::new(String::new());
    let url = RwSignal::new(String::new());
    let token = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let working = RwSignal::new(false);
    let first_field = NodeRef::<Input>::new();
    // Opening the form moves focus into it.
    Effect::new(move |_| {
        if let Some(input) = first_field.get() {
            let _ = input.focus();
        }
    });

    // Taken here: the context is not reachable from inside the spawned task.
    let clients_changed = use_context::<OutsideClientsChanged>();
    let add = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let bearer = Some(token.get_untracked()).filter(|t| !t.is_empty());
        let (chosen, address) = (name.get_untracked(), url.get_untracked());
        error.set(None);
        working.set(true);
        spawn_local(async move {
            match add_outside_executor(chosen, address, bearer).await {
                Ok(_) => {
                    token.set(String::new());
                    ui.form.set(None);
                    ui.refresh();
                    // Its outside client is new too.
                    if let Some(changed) = clients_changed {
                        changed.bump();
                    }
                }
                Err(e) => error.set(Some(e.to_string())),
            }
            working.set(false);
        });
    };

    view! {
        <form class="mcp-form" aria-labelledby="executor-form-title" on:submit=add>
            <h3 id="executor-form-title">"Add executor"</h3>
            <label>
                "Name"
                <input type="text" node_ref=first_field required maxlength="64" autocomplete="off"
                    placeholder="code runner"
                    prop:value=move || name.get() on:input=move |ev| name.set(event_target_value(&ev))/>
            </label>
            <label>
                "WebSocket address"
                <input type="text" required inputmode="url" autocomplete="off" spellcheck="false"
                    placeholder="ws://127.0.0.1:4002"
                    prop:value=move || url.get() on:input=move |ev| url.set(event_target_value(&ev))/>
            </label>
            <label>
                "Bearer token (optional)"
                <input type="password" autocomplete="new-password" spellcheck="false"
                    prop:value=move || token.get() on:input=move |ev| token.set(event_target_value(&ev))/>
            </label>
            <p class="hint">
                "Warden sends the token as Authorization: Bearer when it dials. It is kept on the server and \
                 never shown again; put no secret in the address, which is shown."
            </p>
            <div class="mcp-form-buttons">
                <button type="submit" class="approve" disabled=move || working.get()>"Add"</button>
                <button type="button" on:click=move |_| ui.form.set(None)>"Cancel"</button>
            </div>
            {move || working.get().then(|| view! { <p class="loading" role="status">"Working…"</p> })}
            {move || error.get().map(|message| view! { <p class="error" role="alert">{message}</p> })}
        </form>
    }
}
