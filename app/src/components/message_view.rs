//! One message of the conversation. A person's words are shown as plain text; the model's are
//! Markdown, rendered and sanitised on the server (`html`, from the engine's store), so the browser
//! carries no Markdown parser or sanitiser. Text still streaming is shown as plain text until the
//! stored message takes its place.

use leptos::prelude::*;

use crate::live_run::LiveRun;
use crate::model::{Role, StoredMessage as Message};

#[component]
pub fn MessageView(message: Message) -> impl IntoView {
    // The anchor a search result links to.
    let anchor = format!("m-{}", message.id);
    match message.role {
        Role::User => view! {
            <li class="message user" id=anchor>
                <span class="visually-hidden">"You said:"</span>
                <p class="plain">{message.content}</p>
            </li>
        }
        .into_any(),
        _ => view! {
            <li class="message assistant" id=anchor>
                <span class="visually-hidden">"Warden said:"</span>
                <div class="markdown" inner_html=message.html.unwrap_or_default()></div>
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
                <p class="plain">{move || text.get()}</p>
            </div>
        </Show>
    }
}
