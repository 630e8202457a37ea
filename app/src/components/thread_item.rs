//! One thread in the sidebar: its link (highlighted when open), and Rename (inline), Archive or
//! Unarchive, and Delete (after a confirmation).

use leptos::ev::KeyboardEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::use_navigate;

use crate::error::AppError;
use crate::model::Thread;
use crate::server_fns::{delete_thread, rename_thread, set_archived};
use crate::ThreadsChanged;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Normal,
    Renaming,
    ConfirmingDelete,
}

#[component]
pub fn ThreadItem(thread: Thread, active_id: Memo<Option<String>>) -> impl IntoView {
    let changed = expect_context::<ThreadsChanged>();
    let navigate = use_navigate();
    let mode = RwSignal::new(Mode::Normal);
    let draft = RwSignal::new(thread.title.clone());
    let error = RwSignal::new(None::<AppError>);
    let id = StoredValue::new(thread.id.clone());
    let title = StoredValue::new(thread.title.clone());
    let archived = thread.archived;
    let rename_input = NodeRef::<leptos::html::Input>::new();
    // Renaming starts with the caret in the box.
    Effect::new(move |_| {
        if let Some(input) = rename_input.get() {
            let _ = input.focus();
        }
    });
    let is_active = Memo::new(move |_| active_id.get().as_deref() == Some(id.get_value().as_str()));

    // Runs a thread change, then refreshes the lists (or reports why it failed).
    let run = move |change: std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), AppError>>>>| {
        spawn_local(async move {
            match change.await {
                Ok(()) => {
                    mode.set(Mode::Normal);
                    changed.notify();
                }
                Err(e) => error.set(Some(e)),
            }
        });
    };
    let save_title = move || {
        let new_title = draft.get_untracked();
        run(Box::pin(async move { rename_thread(id.get_value(), new_title).await.map(|_| ()) }));
    };
    let on_rename_key = move |ev: KeyboardEvent| match ev.key().as_str() {
        "Enter" => {
            ev.prevent_default();
            save_title();
        }
        "Escape" => mode.set(Mode::Normal),
        _ => {}
    };
    let toggle_archive = move |_| {
        run(Box::pin(async move { set_archived(id.get_value(), !archived).await.map(|_| ()) }));
    };
    let confirm_delete = move |_| {
        let navigate = navigate.clone();
        let was_active = is_active.get_untracked();
        spawn_local(async move {
            match delete_thread(id.get_value()).await {
                Ok(()) => {
                    changed.notify();
                    if was_active {
                        navigate("/", Default::default());
                    }
                }
                Err(e) => error.set(Some(e)),
            }
        });
    };

    view! {
        <li class="thread-item" class:active=move || is_active.get()>
            {move || match mode.get() {
                Mode::Renaming => view! {
                    <div class="rename">
                        <label>
                            <span class="visually-hidden">"New title"</span>
                            <input
                                type="text"
                                aria-label="New title"
                                node_ref=rename_input
                                prop:value=move || draft.get()
                                on:input=move |ev| draft.set(event_target_value(&ev))
                                on:keydown=on_rename_key
                            />
                        </label>
                        <button type="button" on:click=move |_| save_title()>"Save"</button>
                        <button type="button" on:click=move |_| mode.set(Mode::Normal)>"Cancel"</button>
                    </div>
                }.into_any(),
                Mode::ConfirmingDelete => view! {
                    <div class="confirm-delete" role="group" aria-label=format!("Confirm deleting {}", title.get_value())>
                        <p>"Delete “" {title.get_value()} "” for good?"</p>
                        <button type="button" class="danger" on:click=confirm_delete.clone()>"Yes, delete"</button>
                        <button type="button" on:click=move |_| mode.set(Mode::Normal)>"Cancel"</button>
                    </div>
                }.into_any(),
                Mode::Normal => view! {
                    <a
                        href=format!("/chat/{}", id.get_value())
                        aria-current=move || is_active.get().then_some("page")
                    >
                        {title.get_value()}
                    </a>
                    <span class="thread-actions">
                        <button type="button" aria-label=format!("Rename {}", title.get_value())
                            on:click=move |_| { draft.set(title.get_value()); mode.set(Mode::Renaming); }>"Rename"</button>
                        <button type="button" aria-label=format!("{} {}", if archived { "Unarchive" } else { "Archive" }, title.get_value())
                            on:click=toggle_archive>{if archived { "Unarchive" } else { "Archive" }}</button>
                        <button type="button" aria-label=format!("Delete {}", title.get_value())
                            on:click=move |_| mode.set(Mode::ConfirmingDelete)>"Delete"</button>
                    </span>
                }.into_any(),
            }}
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e.to_string()}</p> })}
        </li>
    }
}
