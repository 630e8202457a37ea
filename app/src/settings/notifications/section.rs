//! The section: the person's own channels with "Add a channel" and this browser's push button; for owners,
//! the shared channels (their own list and form) and the SMTP server.

use leptos::prelude::*;

use crate::server_fns::notifications::{list_channels, list_shared_channels};
use crate::settings::notifications::channel_form::ChannelForm;
use crate::settings::notifications::channel_list::ChannelList;
use crate::settings::notifications::push::PushButtons;
use crate::settings::notifications::smtp_form::SmtpForm;
use crate::settings::notifications::state::ChannelsUi;
use crate::ui::error_notice::error_list;

#[component]
pub fn NotificationsSection(manages: bool) -> impl IntoView {
    let own = ChannelsUi::new();
    listen_for_push_changes(own);
    view! {
        <section class="notifications" id="notifications" aria-labelledby="notifications-title">
            <h2 id="notifications-title">"Notifications"</h2>
            <p class="mcp-intro">
                "When an agent's action waits for your decision, Warden tells you here: on this browser, by \
                 e-mail, or in a chat or app you already use. Each message says who asks, what, its risk and how \
                 long is left, with a link that opens the request (nothing is decided until you confirm there)."
            </p>
            <PushButtons/>
            <ChannelsBlock ui=own shared=false/>
            {manages.then(|| view! { <SharedChannels/> <SmtpForm/> })}
        </section>
    }
    .into_any()
}

#[component]
fn SharedChannels() -> impl IntoView {
    let shared = ChannelsUi::new();
    view! {
        <h3 id="shared-channels-title">"Shared channels"</h3>
        <p class="hint">
            "A team's Slack or Discord channel, or a webhook, that approval policies can notify per rule. Only \
             owners see and change them."
        </p>
        <ChannelsBlock ui=shared shared=true/>
    }
}

/// A list of channels, its "Add" button and its form.
#[component]
fn ChannelsBlock(ui: ChannelsUi, shared: bool) -> impl IntoView {
    let channels = Resource::new(
        move || ui.changed.get(),
        move |_| async move {
            if shared {
                list_shared_channels().await
            } else {
                list_channels().await
            }
        },
    );
    let what = if shared { "shared channel" } else { "channel" };
    view! {
        {move || ui.error.get().map(|message| view! { <p class="error" role="alert">{message}</p> })}
        <Transition fallback=|| view! { <p class="loading">"Loading channels…"</p> }>
            <ErrorBoundary fallback=error_list>
                {move || Suspend::new(async move {
                    channels.await.map(|list| view! { <ChannelList list ui shared/> })
                })}
            </ErrorBoundary>
        </Transition>
        <Show when=move || ui.form.with(Option::is_none)>
            <button type="button" class="outside-actions" on:click=move |_| ui.form.set(Some(None))>
                {format!("Add a {what}")}
            </button>
        </Show>
        {move || ui.form.get().map(|editing| view! { <ChannelForm ui shared editing/> })}
    }
    .into_any()
}

/// `notifications.js` says when this browser's push channel was added or removed: the list shows it.
fn listen_for_push_changes(ui: ChannelsUi) {
    #[cfg(feature = "hydrate")]
    {
        use wasm_bindgen::closure::Closure;
        use wasm_bindgen::JsCast;
        let Some(window) = web_sys::window() else { return };
        let refresh = Closure::<dyn Fn()>::new(move || ui.refresh());
        let _ = window.add_event_listener_with_callback("warden-channels-changed", refresh.as_ref().unchecked_ref());
        // Listens for as long as the page lives.
        refresh.forget();
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = ui;
}
