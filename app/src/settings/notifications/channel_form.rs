//! Adding or changing a channel: its kind (when adding), a name, and the kind's fields. Secrets (a webhook's
//! signing secret, an ntfy token) are typed into password fields; left empty on a change they are kept. A
//! webhook added without a secret gets one from Warden, shown here once.

use leptos::html::Input;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::server_fns::notifications::save_channel;
use crate::settings::notifications::state::ChannelsUi;
use warden_types::channel::{ChannelConfig, ChannelInput, ChannelKind, ChannelView};

/// The kinds a form adds (a browser's push channel comes from its own button).
const FORM_KINDS: [ChannelKind; 5] =
    [ChannelKind::Webhook, ChannelKind::Slack, ChannelKind::Discord, ChannelKind::Ntfy, ChannelKind::Email];

/// The form's fields, whatever the kind.
#[derive(Clone, Copy)]
struct Fields {
    name: RwSignal<String>,
    kind: RwSignal<ChannelKind>,
    url: RwSignal<String>,
    secret: RwSignal<String>,
    topic: RwSignal<String>,
    address: RwSignal<String>,
}

impl Fields {
    fn from(editing: Option<&ChannelView>) -> Self {
        let fields = Fields {
            name: RwSignal::new(editing.map(|c| c.name.clone()).unwrap_or_default()),
            kind: RwSignal::new(editing.map_or(ChannelKind::Webhook, |c| c.kind)),
            url: RwSignal::new(String::new()),
            secret: RwSignal::new(String::new()),
            topic: RwSignal::new(String::new()),
            address: RwSignal::new(String::new()),
        };
        match editing.map(|c| &c.config) {
            Some(
                ChannelConfig::Webhook { url, .. } | ChannelConfig::Slack { url } | ChannelConfig::Discord { url },
            ) => fields.url.set(url.clone()),
            Some(ChannelConfig::Ntfy { server, topic, .. }) => {
                fields.url.set(server.clone());
                fields.topic.set(topic.clone());
            }
            Some(ChannelConfig::Email { address }) => fields.address.set(address.clone()),
            Some(ChannelConfig::WebPush { .. }) | None => {}
        }
        fields
    }

    /// What is sent: an empty secret means "keep the stored one" (or, for a new webhook, "make one").
    fn input(&self, editing: Option<&ChannelView>) -> ChannelInput {
        let secret = Some(self.secret.get_untracked()).filter(|s| !s.trim().is_empty());
        let url = self.url.get_untracked();
        let config = match self.kind.get_untracked() {
            ChannelKind::Webhook => ChannelConfig::Webhook { url, secret },
            ChannelKind::Slack => ChannelConfig::Slack { url },
            ChannelKind::Discord => ChannelConfig::Discord { url },
            ChannelKind::Ntfy => ChannelConfig::Ntfy { server: url, topic: self.topic.get_untracked(), token: secret },
            ChannelKind::Email => ChannelConfig::Email { address: self.address.get_untracked() },
            // Only its name changes: the masked subscription sent back is kept.
            ChannelKind::WebPush => {
                editing.map(|c| c.config.clone()).unwrap_or(ChannelConfig::Email { address: String::new() })
            }
        };
        ChannelInput { name: self.name.get_untracked(), config }
    }
}

#[component]
pub fn ChannelForm(ui: ChannelsUi, shared: bool, editing: Option<ChannelView>) -> impl IntoView {
    let fields = Fields::from(editing.as_ref());
    let adding = editing.is_none();
    let editing = StoredValue::new(editing);
    let error = RwSignal::new(None::<String>);
    let made_secret = RwSignal::new(None::<String>);
    let working = RwSignal::new(false);
    let first_field = NodeRef::<Input>::new();
    Effect::new(move |_| {
        if let Some(input) = first_field.get() {
            let _ = input.focus();
        }
    });
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let input = editing.with_value(|e| fields.input(e.as_ref()));
        let id = editing.with_value(|e| e.as_ref().map(|c| c.id.clone()));
        error.set(None);
        working.set(true);
        spawn_local(async move {
            match save_channel(id, shared, input).await {
                Ok(created) => {
                    ui.refresh();
                    match created.secret {
                        // Stays open to show the secret once.
                        Some(secret) => made_secret.set(Some(secret)),
                        None => ui.form.set(None),
                    }
                }
                Err(e) => error.set(Some(e.to_string())),
            }
            working.set(false);
        });
    };
    let title = match (adding, shared) {
        (true, false) => "Add a channel",
        (true, true) => "Add a shared channel",
        (false, _) => "Change channel",
    };
    let title_id = if shared { "shared-channel-form-title" } else { "channel-form-title" };
    let kind = move || fields.kind.get();
    let secret_hint = move || match (kind(), adding) {
        (ChannelKind::Webhook, true) => "Signing secret (optional: Warden makes one and shows it once)",
        (ChannelKind::Webhook, false) => "Signing secret (empty: keep the current one)",
        (_, true) => "Access token (optional)",
        (_, false) => "Access token (empty: keep the current one)",
    };
    view! {
        <form class="mcp-form channel-form" aria-labelledby=title_id on:submit=save>
            <h3 id=title_id>{title}</h3>
            {adding.then(|| view! {
                <label>
                    "Kind"
                    <select on:change=move |ev| {
                        if let Ok(k) = event_target_value(&ev).parse::<ChannelKind>() { fields.kind.set(k) }
                    }>
                        {FORM_KINDS.into_iter().map(|k| view! {
                            <option value=k.as_str() selected=move || fields.kind.get() == k>{k.label()}</option>
                        }).collect_view()}
                    </select>
                </label>
            })}
            <label>
                "Name"
                <input type="text" node_ref=first_field required maxlength="80" autocomplete="off"
                    placeholder="My phone"
                    prop:value=move || fields.name.get() on:input=move |ev| fields.name.set(event_target_value(&ev))/>
            </label>
            <Show when=move || matches!(kind(), ChannelKind::Webhook | ChannelKind::Slack | ChannelKind::Discord | ChannelKind::Ntfy)>
                <label>
                    {move || match kind() {
                        ChannelKind::Ntfy => "ntfy server",
                        ChannelKind::Slack => "Slack incoming webhook URL",
                        ChannelKind::Discord => "Discord webhook URL",
                        _ => "Webhook URL",
                    }}
                    <input type="url" required inputmode="url" autocomplete="off" spellcheck="false"
                        placeholder=move || if kind() == ChannelKind::Ntfy { "https://ntfy.sh" } else { "https://" }
                        prop:value=move || fields.url.get() on:input=move |ev| fields.url.set(event_target_value(&ev))/>
                </label>
            </Show>
            <Show when=move || kind() == ChannelKind::Ntfy>
                <label>
                    "Topic"
                    <input type="text" required autocomplete="off" spellcheck="false" placeholder="warden-ann-7f3k"
                        prop:value=move || fields.topic.get() on:input=move |ev| fields.topic.set(event_target_value(&ev))/>
                </label>
            </Show>
            <Show when=move || matches!(kind(), ChannelKind::Webhook | ChannelKind::Ntfy)>
                <label>
                    {secret_hint}
                    <input type="password" autocomplete="new-password" spellcheck="false"
                        prop:value=move || fields.secret.get() on:input=move |ev| fields.secret.set(event_target_value(&ev))/>
                </label>
            </Show>
            <Show when=move || kind() == ChannelKind::Email>
                <label>
                    "E-mail address"
                    <input type="email" required autocomplete="email" spellcheck="false"
                        prop:value=move || fields.address.get() on:input=move |ev| fields.address.set(event_target_value(&ev))/>
                </label>
            </Show>
            <div class="mcp-form-buttons">
                <button type="submit" class="approve" disabled=move || working.get() || made_secret.with(Option::is_some)>
                    {if adding { "Add" } else { "Save" }}
                </button>
                <button type="button" on:click=move |_| ui.form.set(None)>
                    {move || if made_secret.with(Option::is_some) { "Done" } else { "Cancel" }}
                </button>
            </div>
            {move || working.get().then(|| view! { <p class="loading" role="status">"Working…"</p> })}
            {move || error.get().map(|message| view! { <p class="error" role="alert">{message}</p> })}
            {move || made_secret.get().map(|secret| view! {
                <div class="invite-link" role="status">
                    <p>"The webhook's signing secret, shown this once (docs/NOTIFICATIONS.md says how to check it):"</p>
                    <p><code class="webhook-secret">{secret}</code></p>
                </div>
            })}
        </form>
    }
    .into_any()
}
