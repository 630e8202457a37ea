//! One message of the conversation. A person's words are shown as plain text; the model's are
//! Markdown, rendered and sanitised by `crate::markdown` before they reach the page.

use leptos::prelude::*;

use crate::live_run::LiveRun;
use crate::markdown;
use crate::model::{Role, StoredMessage as Message};

#[component]
pub fn MessageView(message: Message) -> impl IntoView {
    match message.role {
        Role::User => view! {
            <li class="message user">
                <span class="visually-hidden">"You said:"</span>
                <p class="plain">{message.content}</p>
            </li>
        }
        .into_any(),
        _ => view! {
            <li class="message assistant">
                <span class="visually-hidden">"Warden said:"</span>
                <div class="markdown" inner_html=markdown::render(&message.content)></div>
            </li>
        }
        .into_any(),
    }
}

/// The answer as it streams in, until the stored message takes its place.
#[component]
pub fn StreamingText(live: LiveRun) -> impl IntoView {
    let text = live.text;
    view! {
        <Show when=move || text.with(|t| !t.is_empty())>
            <div class="message assistant streaming" aria-busy="true">
                <div class="markdown" inner_html=move || text.with(|t| markdown::render(t))></div>
            </div>
        </Show>
    }
}
