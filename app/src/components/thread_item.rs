//! One thread in the sidebar: its link (highlighted when open), a badge while approvals of it wait,
//! and Pin or Unpin, Rename (inline), Archive or Unarchive, and Delete (after a confirmation).

use leptos::ev::KeyboardEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::use_navigate;

use crate::components::icon::{Icon, IconSvg};
use crate::error::AppError;
use crate::model::Thread;
use crate::server_fns::{delete_thread, rename_thread, set_archived, set_pinned};
use crate::{ThreadEdited, ThreadsChanged};

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
    let pinned = thread.pinned;
    let waiting = thread.pending_approvals;
    let rename_input = NodeRef::<leptos::html::Input>::new();
    // Renaming starts with the caret in the box.
    Effect::new(move |_| {
        if let Some(input) = rename_input.get() {
            let _ = input.focus();
        }
    });
    let is_active = Memo::new(move |_| active_id.get().as_deref() == Some(id.get_value().as_str()));

    // The list is rebuilt on every change and the old rows stay on screen a moment after their
    // reactive values are disposed: handlers capture plain values and write signals with `try_`.
    let thread_id = thread.id.clone();
    let edited = expect_context::<ThreadEdited>();
    let run = move |change: std::pin::Pin<Box<dyn std::future::Future<Output = Result<Thread, AppError>>>>| {
        spawn_local(async move {
            match change.await {
                Ok(thread) => {
                    mode.try_set(Mode::Normal);
                    edited.0.try_set(Some(thread));
                    changed.notify();
                }
                Err(e) => {
                    error.try_set(Some(e));
                }
            }
        });
    };
    let save_title = {
        let thread_id = thread_id.clone();
        move || {
            let (id, new_title) = (thread_id.clone(), draft.try_get_untracked().unwrap_or_default());
            run(Box::pin(async move { rename_thread(id, new_title).await }));
        }
    };
    let on_rename_key = {
        let save_title = save_title.clone();
        move |ev: KeyboardEvent| match ev.key().as_str() {
            "Enter" => {
                ev.prevent_default();
                save_title();
            }
            "Escape" => {
                mode.try_set(Mode::Normal);
            }
            _ => {}
        }
    };
    let toggle_archive = {
        let thread_id = thread_id.clone();
        move |_| {
            let id = thread_id.clone();
            run(Box::pin(async move { set_archived(id, !archived).await }));
        }
    };
    let toggle_pin = {
        let thread_id = thread_id.clone();
        move |_| {
            let id = thread_id.clone();
            run(Box::pin(async move { set_pinned(id, !pinned).await }));
        }
    };
    let confirm_delete = {
        let thread_id = thread_id.clone();
        move |_| {
            let navigate = navigate.clone();
            let id = thread_id.clone();
            let was_active = is_active.try_get_untracked().unwrap_or(false);
            spawn_local(async move {
                match delete_thread(id).await {
                    Ok(()) => {
                        changed.notify();
                        if was_active {
                            navigate("/", Default::default());
                        }
                    }
                    Err(e) => {
                        error.try_set(Some(e));
                    }
                }
            });
        }
    };
    let start_rename = {
        let title = thread.title.clone();
        move |_| {
            draft.try_set(title.clone());
            mode.try_set(Mode::Renaming);
        }
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
                                on:keydown=on_rename_key.clone()
                            />
                        </label>
                        <button type="button" on:click={
                            let save_title = save_title.clone();
                            move |_| save_title()
                        }>"Save"</button>
                        <button type="button" on:click=move |_| { mode.try_set(Mode::Normal); }>"Cancel"</button>
                    </div>
                }.into_any(),
                Mode::ConfirmingDelete => view! {
                    <div class="confirm-delete" role="group" aria-label=format!("Confirm deleting {}", title.get_value())>
                        <p>"Delete “" {title.get_value()} "” for good?"</p>
                        <button type="button" class="danger" on:click=confirm_delete.clone()>"Yes, delete"</button>
                        <button type="button" on:click=move |_| { mode.try_set(Mode::Normal); }>"Cancel"</button>
                    </div>
                }.into_any(),
                Mode::Normal => view! {
                    <a
                        href=format!("/chat/{}", id.get_value())
                        aria-current=move || is_active.get().then_some("page")
                    >
                        {title.get_value()}
                    </a>
                    {(waiting > 0).then(|| view! {
                        <span class="thread-waiting" title="Approvals waiting for your decision">
                            {waiting}
                            <span class="visually-hidden">{if waiting == 1 { " approval waiting" } else { " approvals waiting" }}</span>
                        </span>
                    })}
                    <span class="thread-actions">
                        {(!archived).then(|| view! {
                            <button type="button" aria-label=format!("{} {}", if pinned { "Unpin" } else { "Pin" }, title.get_value())
                                on:click=toggle_pin.clone()><IconSvg icon=Icon::Pin/>{if pinned { "Unpin" } else { "Pin" }}</button>
                        })}
                        <button type="button" aria-label=format!("Rename {}", title.get_value())
                            on:click=start_rename.clone()><IconSvg icon=Icon::Pencil/>"Rename"</button>
                        <button type="button" aria-label=format!("{} {}", if archived { "Unarchive" } else { "Archive" }, title.get_value())
                            on:click=toggle_archive.clone()><IconSvg icon=Icon::Archive/>{if archived { "Unarchive" } else { "Archive" }}</button>
                        <button type="button" aria-label=format!("Delete {}", title.get_value())
                            on:click=move |_| { mode.try_set(Mode::ConfirmingDelete); }><IconSvg icon=Icon::Trash/>"Delete"</button>
                    </span>
                }.into_any(),
            }}
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e.to_string()}</p> })}
        </li>
    }
}
