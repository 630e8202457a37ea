//! One thread in the sidebar: its link (highlighted when open), a badge while approvals or connection
//! checks of it wait (as the inbox's live feed counts them, the list's own count until it has),
//! and Pin or Unpin, Rename (inline), Archive or Unarchive, and Delete (after a confirmation). What the
//! row is doing (renaming, confirming, its last error) is kept in [`ThreadRowState`], above the list.

use leptos::ev::KeyboardEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::use_navigate;

use crate::context::{ThreadEdited, ThreadsChanged};
use crate::error::AppError;
use crate::inbox_live::InboxLive;
use crate::layout::thread_row_state::{RowMode as Mode, ThreadRowState};
use crate::model::Thread;
use crate::server_fns::{delete_thread, rename_thread, set_archived, set_pinned};
use crate::ui::icon::{Icon, IconSvg};

#[component]
pub fn ThreadItem(thread: Thread, active_id: Memo<Option<String>>) -> impl IntoView {
    let changed = expect_context::<ThreadsChanged>();
    let navigate = use_navigate();
    let state = ThreadRowState::get();
    let draft = state.draft;
    // The list is rebuilt on every change, and a replaced row's view can still be updated once after
    // the row's own reactive values are gone: the row keeps plain values and reads only the list's
    // and the sidebar's (with `try_`), so nothing it reads can have been disposed before it.
    let (id, title) = (thread.id.clone(), thread.title.clone());
    let mode = {
        let id = id.clone();
        move || state.mode(id.as_str())
    };
    let is_active = {
        let id = id.clone();
        move || active_id.try_get().flatten().as_deref() == Some(id.as_str())
    };
    let archived = thread.archived;
    let pinned = thread.pinned;
    // Someone else's thread (shared with the person, or read as an owner): marked, and not theirs to change.
    let shared_by = thread.shared_by.clone();
    let own = shared_by.is_none();
    // An owner by role may delete anyone's thread (as the server allows); nothing else of it is theirs to change.
    let may_delete = own || thread.may_delete;
    let waiting = {
        let (id, listed) = (id.clone(), thread.pending_approvals);
        let live = use_context::<InboxLive>();
        move || live.and_then(|l| l.waiting_in(id.as_str())).unwrap_or(listed)
    };
    let rename_input = NodeRef::<leptos::html::Input>::new();
    // Renaming starts with the caret at the end of the box (also when the list was rebuilt under it).
    Effect::new(move |_| {
        if let Some(input) = rename_input.get() {
            let _ = input.focus();
            let end = input.value().encode_utf16().count() as u32;
            let _ = input.set_selection_range(end, end);
        }
    });

    let thread_id = thread.id.clone();
    let edited = expect_context::<ThreadEdited>();
    let run = {
        let thread_id = thread_id.clone();
        move |change: std::pin::Pin<Box<dyn std::future::Future<Output = Result<Thread, AppError>>>>| {
            let thread_id = thread_id.clone();
            spawn_local(async move {
                match change.await {
                    Ok(thread) => {
                        state.end(thread_id.as_str());
                        state.clear_error(thread_id.as_str());
                        edited.0.try_set(Some(thread));
                        changed.notify();
                    }
                    Err(e) => state.set_error(thread_id.as_str(), e),
                }
            });
        }
    };
    let save_title = {
        let thread_id = thread_id.clone();
        let run = run.clone();
        move || {
            let (id, new_title) = (thread_id.clone(), draft.try_get_untracked().unwrap_or_default());
            run(Box::pin(async move { rename_thread(id, new_title).await }));
        }
    };
    let cancel = {
        let thread_id = thread_id.clone();
        move |_| state.end(thread_id.as_str())
    };
    let on_rename_key = {
        let save_title = save_title.clone();
        let thread_id = thread_id.clone();
        move |ev: KeyboardEvent| match ev.key().as_str() {
            "Enter" => {
                ev.prevent_default();
                save_title();
            }
            "Escape" => state.end(thread_id.as_str()),
            _ => {}
        }
    };
    let toggle_archive = {
        let thread_id = thread_id.clone();
        let run = run.clone();
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
            let was_active = active_id.try_get_untracked().flatten().as_deref() == Some(id.as_str());
            spawn_local(async move {
                match delete_thread(id.clone()).await {
                    Ok(()) => {
                        state.end(id.as_str());
                        state.clear_error(id.as_str());
                        changed.notify();
                        if was_active {
                            navigate("/", Default::default());
                        }
                    }
                    Err(e) => state.set_error(id.as_str(), e),
                }
            });
        }
    };
    let begin = {
        let (thread_id, title) = (thread.id.clone(), thread.title.clone());
        move |mode: Mode| state.begin(thread_id.as_str(), mode, &title)
    };
    let error = {
        let thread_id = thread_id.clone();
        move || state.error(thread_id.as_str())
    };

    let row_is_active = is_active.clone();
    view! {
        <li class="thread-item" class:active=row_is_active>
            {move || match mode() {
                Mode::Renaming => view! {
                    <div class="rename">
                        <label>
                            <span class="visually-hidden">"New title"</span>
                            <input
                                type="text"
                                dir="auto"
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
                        <button type="button" on:click=cancel.clone()>"Cancel"</button>
                    </div>
                }.into_any(),
                Mode::ConfirmingDelete => view! {
                    <div class="confirm-delete" role="group" aria-label=format!("Confirm deleting {}", title.clone())>
                        <p>"Delete “" {title.clone()} "” for good?"</p>
                        <button type="button" class="danger" on:click=confirm_delete.clone()>"Yes, delete"</button>
                        <button type="button" on:click=cancel.clone()>"Cancel"</button>
                    </div>
                }.into_any(),
                Mode::Normal => view! {
                    <a
                        dir="auto"
                        href=format!("/chat/{}", id)
                        aria-current={
                            let is_active = is_active.clone();
                            move || is_active().then_some("page")
                        }
                    >
                        {title.clone()}
                    </a>
                    {
                        let waiting = waiting.clone();
                        move || {
                            let waiting = waiting();
                            (waiting > 0).then(|| view! {
                                <span class="thread-waiting" title="Waiting for your decision">
                                    {waiting}
                                    <span class="visually-hidden">{if waiting == 1 { " approval waiting" } else { " approvals waiting" }}</span>
                                </span>
                            })
                        }
                    }
                    // Archiving keeps the pin: the row says so, and Unarchive puts it back among the pinned.
                    {(archived && pinned).then(|| view! {
                        <span class="thread-pin-kept">"Pinned: back among the pinned when unarchived"</span>
                    })}
                    {shared_by.clone().map(|name| view! {
                        <span class="thread-shared" title=format!("Shared by {name}; you can read it")>
                            "shared by " {name.clone()}
                        </span>
                    })}
                    <span class="thread-actions" hidden=!may_delete>
                        {(own && !archived).then(|| view! {
                            <button type="button" aria-label=format!("{} {}", if pinned { "Unpin" } else { "Pin" }, title.clone())
                                title=if pinned { "Unpin" } else { "Pin" }
                                on:click=toggle_pin.clone()><IconSvg icon=Icon::Pin/>{if pinned { "Unpin" } else { "Pin" }}</button>
                        })}
                        {own.then(|| view! {
                            <button type="button" aria-label=format!("Rename {}", title.clone()) title="Rename"
                                on:click={
                                    let begin = begin.clone();
                                    move |_| begin(Mode::Renaming)
                                }><IconSvg icon=Icon::Pencil/>"Rename"</button>
                            <button type="button" aria-label=format!("{} {}", if archived { "Unarchive" } else { "Archive" }, title.clone())
                                title=if archived { "Unarchive" } else { "Archive" }
                                on:click=toggle_archive.clone()><IconSvg icon=Icon::Archive/>{if archived { "Unarchive" } else { "Archive" }}</button>
                        })}
                        <button type="button" aria-label=format!("Delete {}", title.clone()) title="Delete"
                            on:click={
                                let begin = begin.clone();
                                move |_| begin(Mode::ConfirmingDelete)
                            }><IconSvg icon=Icon::Trash/>"Delete"</button>
                    </span>
                }.into_any(),
            }}
            {move || error().map(|e| view! { <p class="error" role="alert">{e.to_string()}</p> })}
        </li>
    }
}
