//! The chat page (`/chat/{id}`): the stored thread rendered on the server, and in the browser a
//! subscription to the thread's active run. Streamed text shows as it arrives; each event that
//! follows a stored change carries the changed records, which patch the shown thread in place
//! ([`ThreadDetail::apply`]; [`ThreadView`] is a keyed list, so a patch never throws away what a
//! person is typing or has opened). The thread is read again only when the stream reconnects.
//! Under the message box: the thread's model and its switches (tools, MCP tools, step limit), each
//! change shown at once and stored by a server function (undone, with the error, if it is refused).

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::{use_params_map, use_query_map};

use crate::chat::auto_scroll::AutoScroll;
use crate::chat::composer::Composer;
use crate::chat::linked_outside::LinkedOutside;
use crate::chat::live_run::{Follow, LiveRun};
use crate::chat::message_view::BranchActions;
use crate::chat::message_view::StreamingText;
use crate::chat::model_picker::{describe, ModelPicker};
use crate::chat::run_status::RunStatusBar;
use crate::chat::run_stream::{new_stream_slot, RunStream, StreamSignal};
use crate::chat::sandbox::SandboxView;
use crate::chat::thread_switches::ThreadSwitches;
use crate::chat::thread_view::ThreadView;
use crate::context::{ThreadEdited, ThreadsChanged};
use crate::error::AppError;
use crate::inbox_live::InboxLive;
use crate::model::{ModelChoice, RunEvent, RunStarted, ThreadDetail, ThreadOptions};
use crate::server_fns::{
    earlier_messages, edit_message, get_thread, list_providers, regenerate_answer, retry_run, send_message,
    set_thread_model, set_thread_options, stop_run, switch_branch,
};
use crate::ui::error_notice::{error_list, ErrorNotice};

#[component]
pub fn ChatPage() -> impl IntoView {
    let params = use_params_map();
    let thread_id = Memo::new(move |_| params.read().get("id").unwrap_or_default());
    let threads_changed = expect_context::<ThreadsChanged>();
    let thread_edited = expect_context::<ThreadEdited>();
    // What the server renders and hydrates; fetched again only when another thread opens.
    // `?m=` (a search result's message): the page reaches back to it, so its `#m-` anchor is there.
    let query = use_query_map();
    let through = Memo::new(move |_| query.with(|q| q.get("m")));
    let detail = Resource::new(
        move || (thread_id.get(), through.get()),
        |(id, through)| get_thread(id.into(), None, through.map(Into::into)),
    );
    // The models the picker offers.
    let providers = Resource::new(|| (), |_| list_providers());
    // The thread as patched by events since (and read again after a reconnect).
    let patched = RwSignal::new(None::<ThreadDetail>);
    let current = Memo::new(move |_| {
        let id = thread_id.get();
        let is_open = |d: &ThreadDetail| d.thread.id == id;
        patched.get().filter(is_open).or_else(|| detail.get().and_then(Result::ok).filter(is_open))
    });
    // Approval cards of commands say whether they will run confined.
    // `try_` wherever the server may read it while resolving a suspense: see `chosen_model` below.
    provide_context(SandboxView(Memo::new(move |_| {
        current.try_with(|d| d.as_ref().map(|d| d.sandbox.clone())).flatten()
    })));
    let live = LiveRun::new();
    // Outside requests that belong to the thread's calls, shown on their cards.
    let linked = LinkedOutside::provide(thread_id);
    let stream = new_stream_slot();
    let action_error = RwSignal::new(None::<AppError>);

    // Applies a change to the shown thread (starting from the server-rendered copy).
    let patch = move |change: &dyn Fn(&mut ThreadDetail)| {
        let id = thread_id.get_untracked();
        patched.update(|slot| {
            if slot.as_ref().is_none_or(|d| d.thread.id != id) {
                *slot = detail.get_untracked().and_then(Result::ok).filter(|d| d.thread.id == id);
            }
            if let Some(d) = slot {
                change(d);
            }
        });
    };
    // While the thread is read again, events still arrive: they are kept and applied again over
    // the copy that lands (applying an event twice changes nothing), so none is lost to the race.
    // Only the newest reading lands (numbered): an older one may answer after it.
    let since_reread = StoredValue::new((0u64, None::<Vec<RunEvent>>));
    let reread = move || {
        let id = thread_id.get_untracked();
        let Some(this) = since_reread.try_update_value(|(n, kept)| {
            *n += 1;
            *kept = Some(Vec::new());
            *n
        }) else {
            return; // the page is gone
        };
        // As many messages as the page shows: earlier ones the person loaded stay.
        let shown = current.with_untracked(|d| d.as_ref().map_or(0, |d| d.messages.len()));
        spawn_local(async move {
            let answer = get_thread(id.clone().into(), u32::try_from(shown).ok(), None).await;
            let kept = since_reread.try_update_value(|(n, kept)| if *n == this { kept.take() } else { None });
            let Some(Some(kept)) = kept else { return };
            match answer {
                Ok(mut fresh) if fresh.thread.id == id => {
                    for event in &kept {
                        fresh.apply(event);
                    }
                    patched.try_set(Some(fresh));
                }
                Ok(_) => {}
                Err(e) => {
                    action_error.try_set(Some(e));
                }
            }
        });
    };
    // Applies an event to the shown thread, and again over a copy being read.
    let apply_to_thread = move |event: &RunEvent| {
        patch(&|d| d.apply(event));
        since_reread.update_value(|(_, kept)| {
            if let Some(kept) = kept {
                kept.push(event.clone());
            }
        });
    };
    // A run on a new branch adds a version the events do not describe (its siblings): the thread is
    // read again when it ends, for the picker.
    let reread_when_run_ends = StoredValue::new(false);
    let on_event = move |event: RunEvent| {
        let follow = live.apply(&event);
        // A call that starts or ends may have had a request decided by policy (no count changes).
        if matches!(event, RunEvent::ToolCall { .. } | RunEvent::ToolResult { .. } | RunEvent::RunFinished { .. }) {
            linked.refresh();
        }
        if matches!(event, RunEvent::RunFinished { .. } | RunEvent::RunFailed { .. })
            && reread_when_run_ends.try_update_value(std::mem::take).unwrap_or(false)
        {
            reread();
        }
        if !matches!(event, RunEvent::TextDelta { .. } | RunEvent::ToolProgress { .. }) {
            apply_to_thread(&event);
        }
        follow
    };

    let close_stream = move || {
        stream.update_value(|s| {
            if let Some(s) = s.take() {
                s.close();
            }
        })
    };
    let subscribe = move |run_id: String| {
        // Called after awaits too: the page may be gone by then.
        if live.run_id.try_get_untracked().is_none() {
            return;
        }
        if live.run_id.get_untracked().as_deref() == Some(run_id.as_str()) && stream.with_value(Option::is_some) {
            return;
        }
        close_stream();
        live.start(run_id.clone());
        let opened = RunStream::open(&run_id, move |signal| {
            let follow = match signal {
                StreamSignal::Event(event) => on_event(event),
                StreamSignal::Reconnected => {
                    reread();
                    Follow::Nothing
                }
                StreamSignal::Closed => {
                    live.run_id.set(None);
                    Follow::Finish
                }
            };
            match follow {
                Follow::Nothing => {}
                Follow::Sidebar => threads_changed.notify(),
                Follow::Finish => {
                    close_stream();
                    threads_changed.notify();
                }
            }
        });
        stream.set_value(opened);
    };

    // Another thread opened in the same page: forget the old run.
    Effect::new(move |previous: Option<String>| {
        let id = thread_id.get();
        if previous.is_some_and(|p| p != id) {
            close_stream();
            live.reset();
            action_error.set(None);
            patched.set(None);
        }
        id
    });
    // Another search result in the same thread: the page it is read with replaces the one shown.
    Effect::new(move |previous: Option<Option<String>>| {
        let now = through.get();
        if previous.is_some_and(|p| p != now) {
            patched.set(None);
        }
        now
    });
    // A rename or archive in the sidebar shows in the heading.
    Effect::new(move |_| {
        if let Some(thread) = thread_edited.0.get() {
            patch(&|d| {
                if d.thread.id == thread.id {
                    d.thread = thread.clone();
                }
            });
        }
    });
    // The model named this thread after its run ended: the heading shows it (the sidebar follows
    // the feed on its own). Only a title told while the page is open: one told before is in the
    // thread the page reads (it is stored before it is told), and a rename since must not be undone.
    let inbox = expect_context::<InboxLive>();
    Effect::new(move |page_was_open: Option<()>| {
        let titled = inbox.titled.get();
        if let (Some(()), Some(titled)) = (page_was_open, titled) {
            // Another thread's title changes nothing here (`ThreadDetail::apply`).
            apply_to_thread(&RunEvent::ThreadUpdated { thread_id: titled.thread_id, title: titled.title });
        }
    });
    // A run started elsewhere (another tab, another browser) in the thread shown: followed from its
    // first event (the person's message, the answer, its cards). It may be on another branch (an edit
    // or another answer there), so the thread is read again when it ends. Only once the thread is shown
    // (events patch what is shown: before that they would be lost; the thread as read names its active
    // run anyway), and once per run (a run told before the page opened is in the thread it reads).
    let told = StoredValue::new(inbox.run_began.get_untracked().map(|b| b.run_id));
    Effect::new(move |_| {
        let Some(began) = inbox.run_began.get() else { return };
        let shown = current.with(|d| d.as_ref().is_some_and(|d| d.thread.id == began.thread_id));
        if !shown || told.with_value(|t| t.as_ref() == Some(&began.run_id)) {
            return;
        }
        told.set_value(Some(began.run_id.clone()));
        if live.run_id.get_untracked().as_deref() != Some(began.run_id.as_str()) {
            reread_when_run_ends.set_value(true);
            subscribe(began.run_id.to_string());
        }
    });
    // Follow the thread's active run, whoever started it (this tab, another tab, before a reload).
    Effect::new(move |_| {
        if let Some(run) = current.with(|d| d.as_ref().and_then(|d| d.active_run.clone())) {
            live.step.update(|s| {
                if s.is_none() {
                    *s = Some((run.step, run.max_steps, String::new()));
                }
            });
            subscribe(run.id.to_string());
            if live.model.get_untracked().is_none() {
                live.model.set(run.model);
            }
        }
    });
    on_cleanup(close_stream);

    let on_send = Callback::new(move |content: String| {
        action_error.set(None);
        let id = thread_id.get_untracked();
        spawn_local(async move {
            match send_message(id.into(), content).await {
                Ok(started) => subscribe(started.run_id.to_string()),
                Err(e) => {
                    action_error.try_set(Some(e));
                }
            }
        });
    });
    let on_retry = Callback::new(move |()| {
        action_error.set(None);
        let id = thread_id.get_untracked();
        spawn_local(async move {
            match retry_run(id.into()).await {
                Ok(started) => subscribe(started.run_id.to_string()),
                Err(e) => {
                    action_error.try_set(Some(e));
                }
            }
        });
    });
    // Branches: an edit or another answer starts a run on a new branch (the thread is read again, as
    // what follows the branch point is no longer shown); switching shows the thread the server answers.
    let started_branch = move |started: Result<RunStarted, AppError>| match started {
        Ok(started) => {
            reread();
            reread_when_run_ends.set_value(true);
            subscribe(started.run_id.to_string());
        }
        Err(e) => {
            action_error.try_set(Some(e));
        }
    };
    // A thread shared with the person to read (not theirs): no composer, edit, regenerate or Retry.
    let writable = Signal::derive(move || match current.try_with(|d| d.as_ref().map(|d| d.writable)).flatten() {
        Some(writable) => writable,
        // A thread that could not be read (not found) takes no message either.
        None => !matches!(detail.try_get().flatten(), Some(Err(_))),
    });
    let read_only =
        Signal::derive(move || current.try_with(|d| d.as_ref().map(|d| !d.writable)).flatten().unwrap_or(false));
    // An archived thread opens read-only, under a bar that says so and offers Unarchive.
    let archived =
        Signal::derive(move || current.try_with(|d| d.as_ref().map(|d| d.thread.archived)).flatten().unwrap_or(false));
    // Shown through signals an effect sets: the page is hydrated as the server rendered it (composer shown,
    // note hidden) and then changed, which a reactive attribute alone would not do for a value the
    // browser already knows at hydration.
    let (composer_shown, note_shown) = (RwSignal::new(true), RwSignal::new(false));
    let (archived_shown, unarchive_shown) = (RwSignal::new(false), RwSignal::new(false));
    Effect::new(move |_| {
        composer_shown.set(writable.get() && !archived.get());
        note_shown.set(read_only.get());
        archived_shown.set(archived.get());
        // Only the owner may unarchive (the server refuses anyone else).
        unarchive_shown.set(writable.get());
    });
    let unarchiving = RwSignal::new(false);
    let on_unarchive = move |_| {
        action_error.set(None);
        unarchiving.set(true);
        let id = thread_id.get_untracked();
        spawn_local(async move {
            match crate::server_fns::set_archived(id.into(), false).await {
                // The heading's effect shows it (as a sidebar unarchive would); the sidebar lists again.
                Ok(thread) => {
                    thread_edited.0.try_set(Some(thread));
                    threads_changed.notify();
                }
                Err(e) => {
                    action_error.try_set(Some(e));
                }
            }
            unarchiving.try_set(false);
        });
    };
    provide_context(BranchActions {
        writable: Signal::derive(move || writable.get() && !archived.get()),
        edit: Callback::new(move |(message_id, content): (String, String)| {
            action_error.set(None);
            let id = thread_id.get_untracked();
            spawn_local(async move { started_branch(edit_message(id.into(), message_id.into(), content).await) });
        }),
        regenerate: Callback::new(move |message_id: String| {
            action_error.set(None);
            let id = thread_id.get_untracked();
            spawn_local(async move { started_branch(regenerate_answer(id.into(), message_id.into()).await) });
        }),
        switch: Callback::new(move |message_id: String| {
            action_error.set(None);
            let id = thread_id.get_untracked();
            spawn_local(async move {
                match switch_branch(id.clone().into(), message_id.into()).await {
                    Ok(detail) if detail.thread.id == id => {
                        patched.try_set(Some(detail));
                    }
                    Ok(_) => {}
                    Err(e) => {
                        action_error.try_set(Some(e));
                    }
                }
            });
        }),
    });
    let on_stop = Callback::new(move |()| {
        if let Some(run_id) = live.run_id.get_untracked() {
            spawn_local(async move {
                if let Err(e) = stop_run(run_id.into()).await {
                    action_error.try_set(Some(e));
                }
            });
        }
    });
    let on_rule_revoked = Callback::new(move |rule_id: String| patch(&|d| d.rules.retain(|r| r.id != rule_id)));
    // After an await: only if the page is still there and still shows that thread.
    let patch_thread = move |id: &str, change: &dyn Fn(&mut ThreadDetail)| {
        if thread_id.try_get_untracked().as_deref() == Some(id) {
            patch(change);
        }
    };
    // "Show earlier messages": the slice before the first message shown goes in front of it.
    let loading_earlier = RwSignal::new(false);
    let on_earlier = Callback::new(move |()| {
        let Some(first) = current.with_untracked(|d| d.as_ref().and_then(|d| d.messages.first().map(|m| m.id.clone())))
        else {
            return;
        };
        action_error.set(None);
        loading_earlier.set(true);
        let id = thread_id.get_untracked();
        spawn_local(async move {
            match earlier_messages(id.clone().into(), first).await {
                Ok(slice) => {
                    // What the person was reading stays where it is; the earlier messages are above it.
                    let anchor = crate::chat::scroll_anchor::Anchor::first_row();
                    patch_thread(&id, &|d| {
                        d.prepend(&slice);
                    });
                    if let Some(anchor) = anchor {
                        anchor.restore();
                    }
                }
                Err(e) => {
                    action_error.try_set(Some(e));
                }
            }
            loading_earlier.try_set(false);
        });
    });
    // The thread's model and switches: shown at once, then stored; a refusal puts back what was there.
    // Read with `try_`: the server may still be resolving the composer's suspense when the page's own
    // values are already disposed (seen in streaming SSR); a default then beats a panicked render
    // that never finishes its response.
    let chosen_model = Signal::derive(move || current.try_with(|d| d.as_ref().and_then(|d| d.model.clone())).flatten());
    let on_model = Callback::new(move |choice: Option<ModelChoice>| {
        action_error.set(None);
        let before = chosen_model.get_untracked();
        let id = thread_id.get_untracked();
        patch(&|d| d.model = choice.clone());
        spawn_local(async move {
            if let Err(e) = set_thread_model(id.clone().into(), choice).await {
                patch_thread(&id, &|d| d.model = before.clone());
                action_error.try_set(Some(e));
            }
        });
    });
    let options =
        Signal::derive(move || current.try_with(|d| d.as_ref().map(|d| d.options)).flatten().unwrap_or_default());
    let default_max_steps =
        Signal::derive(move || current.try_with(|d| d.as_ref().map_or(0, |d| d.default_max_steps)).unwrap_or(0));
    let on_options = Callback::new(move |next: ThreadOptions| {
        action_error.set(None);
        let before = options.get_untracked();
        let id = thread_id.get_untracked();
        patch(&|d| d.options = next);
        spawn_local(async move {
            match set_thread_options(id.clone().into(), next).await {
                Ok(stored) => patch_thread(&id, &|d| d.options = stored),
                Err(e) => {
                    patch_thread(&id, &|d| d.options = before);
                    action_error.try_set(Some(e));
                }
            }
        });
    });
    let run_model = Signal::derive(move || {
        let choice = live.model.get()?;
        let label = providers.get().and_then(Result::ok).map(|list| describe(&list, &choice));
        Some(label.unwrap_or_else(|| format!("{} · {}", choice.provider_id, choice.model)))
    });
    let busy = Signal::derive(move || live.run_id.get().is_some());
    // `/chat/{id}?q=…` starts with that prompt in the box, for the person to send: a link (from any
    // site) must never make the agent act, so it is only ever typed in, not sent.
    let initial = query.with_untracked(|q| q.get("q")).filter(|q| !q.trim().is_empty());
    #[cfg(feature = "hydrate")]
    if initial.is_some() {
        Effect::new(move |_| {
            let focused = document().get_element_by_id("composer-input").map(|e| {
                use wasm_bindgen::JsCast;
                e.unchecked_into::<web_sys::HtmlElement>().focus()
            });
            let _ = focused;
            // The prompt leaves the address: a reload does not type it in again.
            let path = window().location().pathname().unwrap_or_default();
            if let Ok(history) = window().history() {
                let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&path));
            }
        });
    }
    // What grows the conversation: streamed text, stored messages, calls and their approvals.
    let grows = Signal::derive(move || {
        let shown = current.with(|d| {
            d.as_ref()
                .map_or(0, |d| d.messages.len() + d.tool_calls.len() + d.approvals.len() + d.connection_checks.len())
        });
        shown + live.text.with(String::len)
    });

    view! {
        <section class="page chat">
            <Transition fallback=|| view! { <p class="loading">"Loading the thread…"</p> }>
                <ErrorBoundary fallback=error_list>
                    {move || Suspend::new(async move {
                        detail.await.map(|first| {
                            let shown = Memo::new(move |_| current.try_get().flatten().unwrap_or_else(|| first.clone()));
                            view! { <ThreadView detail=shown.into() live on_retry on_rule_revoked on_earlier loading_earlier=loading_earlier.into()/> }
                        })
                    })}
                </ErrorBoundary>
            </Transition>
            <StreamingText live/>
            <AutoScroll grows/>
            <RunStatusBar live model=run_model/>
            {move || action_error.get().map(|error| view! { <ErrorNotice error/> })}
            <div class="archived-bar" role="status" hidden=move || !archived_shown.get()>
                <p>"This thread is archived: it is read-only. Unarchive it to write to it again."</p>
                <button type="button" on:click=on_unarchive disabled=move || unarchiving.get()
                    hidden=move || !unarchive_shown.get()>"Unarchive"</button>
            </div>
            <p class="read-only-note" hidden=move || !note_shown.get()>
                "This thread is shared with you to read. Only the person who started it can write to it."
            </p>
            <div class="composer-slot" hidden=move || !composer_shown.get()>
            <Composer on_send on_stop busy initial=initial.unwrap_or_default() label="Message" placeholder="Reply; Enter sends, Shift+Enter adds a line">
                <Transition fallback=|| ()>
                    {move || Suspend::new(async move {
                        // Without the list the picker is left out; the thread still uses its model.
                        let list = providers.await.ok();
                        // The thread as stored, so the server renders its choice and switches.
                        let _ = detail.await;
                        view! {
                            {list.map(|list| view! { <ModelPicker list current=chosen_model on_change=on_model/> })}
                            <ThreadSwitches options default_max_steps on_change=on_options/>
                        }
                    })}
                </Transition>
            </Composer>
            </div>
        </section>
    }
}
