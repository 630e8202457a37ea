//! One message of the conversation. A person's words are shown as plain text; the model's are
//! Markdown, rendered and sanitised on the server (`html`, from the engine's store), so the browser
//! carries no Markdown parser or sanitiser. Text still streaming is shown as plain text until the
//! stored message takes its place. Each message shows when it was written and can be copied (the
//! model's as the Markdown it wrote); each of the model's code blocks gets a Copy button once the page
//! is interactive.

use leptos::prelude::*;

use crate::components::timestamp::Timestamp;
use crate::live_run::LiveRun;
use crate::model::{Role, StoredMessage as Message};

#[component]
pub fn MessageView(message: Message) -> impl IntoView {
    // The anchor a search result links to.
    let anchor = format!("m-{}", message.id);
    let actions = view! { <MessageActions text=message.content.clone() at=message.created_at.clone()/> };
    match message.role {
        Role::User => view! {
            <li class="message user" id=anchor>
                <span class="visually-hidden">"You said:"</span>
                <p class="plain">{message.content}</p>
                {actions}
            </li>
        }
        .into_any(),
        _ => {
            let markdown = NodeRef::<leptos::html::Div>::new();
            #[cfg(feature = "hydrate")]
            Effect::new(move |_| {
                if let Some(div) = markdown.get() {
                    code_copy::add_buttons(&div);
                }
            });
            view! {
                <li class="message assistant" id=anchor>
                    <span class="visually-hidden">"Warden said:"</span>
                    <div
                        class="markdown"
                        node_ref=markdown
                        inner_html=message.html.unwrap_or_default()
                        on:click=move |ev| {
                            #[cfg(feature = "hydrate")]
                            code_copy::on_click(&ev);
                            #[cfg(not(feature = "hydrate"))]
                            let _ = ev;
                        }
                    ></div>
                    {actions}
                </li>
            }
            .into_any()
        }
    }
}

/// When a message was written, and Copy.
#[component]
fn MessageActions(text: String, at: String) -> impl IntoView {
    let copied = RwSignal::new(None::<bool>);
    let text = StoredValue::new(text);
    let copy = move |_| {
        leptos::task::spawn_local(async move {
            let Some(text) = text.try_get_value() else { return };
            let done = crate::clipboard::copy_text(&text).await;
            copied.try_set(Some(done));
        });
    };
    view! {
        <div class="message-actions">
            <Timestamp at/>
            <button type="button" class="copy-message" on:click=copy>
                {move || match copied.get() {
                    None => "Copy",
                    Some(true) => "Copied",
                    Some(false) => "Copy failed",
                }}
            </button>
        </div>
    }
}

/// The Copy buttons of the model's code blocks: put into each `<pre>` of the rendered HTML (which
/// the server sends without them), and one click handler on the message for all of them.
#[cfg(feature = "hydrate")]
mod code_copy {
    use leptos::prelude::*;
    use wasm_bindgen::JsCast;
    use web_sys::{Element, HtmlElement};

    const BUTTON: &str = "copy-code";

    pub fn add_buttons(markdown: &HtmlElement) {
        let Ok(blocks) = markdown.query_selector_all("pre") else { return };
        for i in 0..blocks.length() {
            let Some(pre) = blocks.item(i).and_then(|n| n.dyn_into::<Element>().ok()) else { continue };
            if pre.query_selector(&format!("button.{BUTTON}")).ok().flatten().is_some() {
                continue;
            }
            let Ok(button) = document().create_element("button") else { continue };
            let _ = button.set_attribute("type", "button");
            let _ = button.set_attribute("class", BUTTON);
            button.set_text_content(Some("Copy code"));
            let _ = pre.append_child(&button);
        }
    }

    pub fn on_click(ev: &leptos::ev::MouseEvent) {
        let target = ev.target().and_then(|t| t.dyn_into::<Element>().ok());
        let Some(button) = target.and_then(|t| t.closest(&format!("button.{BUTTON}")).ok().flatten()) else { return };
        let code = button.parent_element().and_then(|pre| pre.query_selector("code").ok().flatten());
        let text = code.and_then(|c| c.text_content()).unwrap_or_default();
        leptos::task::spawn_local(async move {
            let done = crate::clipboard::copy_text(&text).await;
            button.set_text_content(Some(if done { "Copied" } else { "Copy failed" }));
        });
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
