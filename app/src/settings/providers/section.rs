//! Settings' "Model providers": every configured provider (the environment's and built-in ones
//! read-only), the form to add or edit one, and which one a thread without a choice uses. The list
//! is rendered on the server and refetched after every change.

use leptos::prelude::*;

use crate::server_fns::providers::list_providers;
use crate::settings::providers::actions::{ProviderProbes, ProvidersUi};
use crate::settings::providers::card::ProviderCard;
use crate::settings::providers::form::ProviderForm;
use crate::ui::error_notice::error_list;
use warden_types::provider::ProviderList;

#[component]
pub fn ProvidersSection() -> impl IntoView {
    let ui = ProvidersUi::new();
    provide_context(ui);
    provide_context(ProviderProbes(RwSignal::new(Default::default())));
    let providers = Resource::new(move || ui.changed.get(), |_| list_providers());
    view! {
        <section aria-labelledby="providers-title">
            <h2 id="providers-title">"Model providers"</h2>
            <p class="mcp-intro">
                "The models a thread can use; choose one per thread next to the Send button. Keys stay on the \
                 server and are only ever shown masked."
            </p>
            {move || ui.error.get().map(|message| view! { <p class="error" role="alert">{message}</p> })}
            {move || match ui.form.get() {
                Some(editing) => view! { <ProviderForm editing/> }.into_any(),
                None => view! {
                    <button type="button" on:click=move |_| ui.form.set(Some(None))>"Add provider"</button>
                }
                .into_any(),
            }}
            <Transition fallback=|| view! { <p class="loading">"Loading providers…"</p> }>
                <ErrorBoundary fallback=error_list>
                    {move || Suspend::new(async move { providers.await.map(|list| view! { <ProviderEntries list/> }) })}
                </ErrorBoundary>
            </Transition>
        </section>
    }
}

#[component]
fn ProviderEntries(list: ProviderList) -> impl IntoView {
    if list.entries.is_empty() {
        return view! { <p class="empty">"No provider is configured. Add one, or set one in the environment."</p> }
            .into_any();
    }
    let default_id = list.default.map(|d| d.provider_id);
    list.entries
        .into_iter()
        .map(|entry| {
            let is_default = default_id.as_ref() == Some(&entry.id);
            view! { <ProviderCard entry is_default/> }
        })
        .collect_view()
        .into_any()
}
