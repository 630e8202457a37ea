//! One message of the conversation. A person's words are shown as plain text; the model's are
//! Markdown, rendered and sanitised on the server (`html`, from the engine's store), so the browser
//! carries no Markdown parser or sanitiser. Text still streaming is shown as plain text until the
//! stored message takes its place. Each message shows when it was written and can be copied (the
//! model's as the Markdown it wrote); each of the model's code blocks gets a Copy button once the page
//! is interactive.

use leptos::prelude::*;

use crate::chat::live_run::LiveRun;
use crate::model::{BranchPoint, Role, StoredMessage as Message};
use crate::ui::icon::{Icon, IconSvg};
use crate::ui::timestamp::Timestamp;

/// What the chat page does for a message's Edit, Regenerate and version picker.
#[derive(Clone, Copy)]
pub struct BranchActions {
    /// `(message id, new text)`: send it in place of that message of the person's, on a new branch.
    pub edit: Callback<(String, String)>,
    /// Another answer to the turn of this message of the model's.
    pub regenerate: Callback<String>,
    /// Show the branch through this message.
    pub switch: Callback<String>,
    /// Whether the person may do any of these (the thread is theirs); a thread shared with them to read
    /// shows none of them.
    pub writable: Signal<bool>,
}

#[component]
pub fn MessageView(
    message: Message,
    /// Its other versions, when it has any.
    versions: Option<BranchPoint>,
    /// The run was stopped while this answer was written (or right after it).
    #[prop(optional)]
    stopped: bool,
) -> impl IntoView {
    // The anchor a search result links to.
    let anchor = format!("m-{}", message.id);
    let branch = use_context::<BranchActions>();
    let editing = RwSignal::new(false);
    let actions = view! {
        <MessageActions
            id=message.id.clone().to_string()
            role=message.role
            text=message.content.clone()
            at=message.created_at.clone()
            versions
            branch
            editing
        />
    };
    match message.role {
        Role::User => {
            let draft = RwSignal::new(message.content.clone());
            let id = message.id.clone();
            let edit_box = format!("edit-{anchor}");
            let save = move |_: ()| {
                let text = draft.get_untracked();
                if text.trim().is_empty() {
                    return;
                }
                editing.set(false);
                if let Some(branch) = branch {
                    branch.edit.run((id.clone().to_string(), text));
                }
            };
            view! {
                <li class="message user" id=anchor>
                    <span class="visually-hidden">"You said:"</span>
                    <Show
                        when=move || editing.get()
                        fallback=move || view! { <p class="plain" dir="auto">{message.content.clone()}</p> }
                    >
                        <div class="edit-message">
                            <label class="visually-hidden" for=edit_box.clone()>"Edit your message"</label>
                            <textarea id=edit_box.clone() rows="3" dir="auto" bind:value=draft
                                aria-describedby=format!("{edit_box}-hint")
                                on:keydown={
                                    let save = save.clone();
                                    move |ev: leptos::ev::KeyboardEvent| {
                                        // As in the message box: Enter sends, Shift+Enter adds a line.
                                        if ev.key() == "Enter" && !ev.shift_key() && !ev.is_composing() {
                                            ev.prevent_default();
                                            save(());
                                        } else if ev.key() == "Escape" {
                                            editing.set(false);
                                        }
                                    }
                                }
                            ></textarea>
                            <p class="hint" id=format!("{edit_box}-hint")>"Enter sends the edit, Shift+Enter adds a line, Escape cancels."</p>
                            <div class="edit-buttons">
                                <button type="button" class="approve" on:click={
                                    let save = save.clone();
                                    move |_| save(())
                                }>"Send edit"</button>
                                <button type="button" on:click=move |_| editing.set(false)>"Cancel"</button>
                            </div>
                        </div>
                    </Show>
                    {actions}
                </li>
            }
            .into_any()
        }
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
                        dir="auto"
                        node_ref=markdown
                        inner_html=message.html.unwrap_or_default()
                        on:click=move |ev| {
                            #[cfg(feature = "hydrate")]
                            code_copy::on_click(&ev);
                            #[cfg(not(feature = "hydrate"))]
                            let _ = ev;
                        }
                    ></div>
                    {stopped.then(|| view! {
                        <p class="stopped-mark">"Stopped: the run was stopped here, so this answer may be cut off."</p>
                    })}
                    {actions}
                </li>
            }
            .into_any()
        }
    }
}

/// When a message was written, Copy, Edit (the person's) or Regenerate (the model's), and the
/// picker between its versions ("2 / 3") when it has more than one.
#[component]
fn MessageActions(
    id: String,
    role: Role,
    text: String,
    at: String,
    versions: Option<BranchPoint>,
    branch: Option<BranchActions>,
    editing: RwSignal<bool>,
) -> impl IntoView {
    // Read once: a thread becomes writable or read-only only when another one opens.
    let branch = branch.filter(|b| b.writable.get_untracked());
    let picker = versions.zip(branch).and_then(|(versions, branch)| {
        let at = versions.siblings.iter().position(|s| *s == id)?;
        let count = versions.siblings.len();
        let previous = at.checked_sub(1).map(|i| versions.siblings[i].clone());
        let next = versions.siblings.get(at + 1).cloned();
        Some(view! {
            <span class="versions" role="group" aria-label="Versions of this message">
                <button type="button" aria-label="Previous version" disabled=previous.is_none()
                    on:click=move |_| if let Some(p) = previous.clone() { branch.switch.run(p.to_string()) }>"‹"</button>
                <span class="version-count">{format!("{} / {count}", at + 1)}</span>
                <button type="button" aria-label="Next version" disabled=next.is_none()
                    on:click=move |_| if let Some(n) = next.clone() { branch.switch.run(n.to_string()) }>"›"</button>
            </span>
        })
    });
    let change = branch.map(|branch| match role {
        Role::User => view! {
            <button type="button" class="edit-message-button" on:click=move |_| editing.set(true)><IconSvg icon=Icon::Pencil/>"Edit"</button>
        }
        .into_any(),
        _ => {
            let id = id.clone();
            view! {
                <button type="button" class="regenerate" on:click=move |_| branch.regenerate.run(id.clone())><IconSvg icon=Icon::Regenerate/>"Regenerate"</button>
            }
            .into_any()
        }
    });
    let copied = RwSignal::new(None::<bool>);
    let text = StoredValue::new(text);
    let copy = move |_| {
        leptos::task::spawn_local(async move {
            let Some(text) = text.try_get_value() else { return };
            let done = crate::ui::clipboard::copy_text(&text).await;
            copied.try_set(Some(done));
        });
    };
    view! {
        <div class="message-actions">
            {picker}
            <Timestamp at/>
            <button type="button" class="copy-message" on:click=copy>
                <IconSvg icon=Icon::Copy/>
                {move || match copied.get() {
                    None => "Copy",
                    Some(true) => "Copied",
                    Some(false) => "Copy failed",
                }}
            </button>
            {change}
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
            let done = crate::ui::clipboard::copy_text(&text).await;
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
                <p class="plain" dir="auto">{move || text.get()}</p>
            </div>
        </Show>
    }
}
