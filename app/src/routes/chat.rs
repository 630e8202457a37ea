//! The chat page (`/chat/{id}`): the stored thread rendered on the server, and in the browser a
//! subscription to the thread's active run. Streamed text shows as it arrives; anything the run
//! stores (tool calls, approvals, answers) is refetched, so every tab shows the same state. A
//! refetch updates the shown thread in place ([`ThreadView`] is a keyed list), so it never throws
//! away what a person is typing or has opened.

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::use_params_map;

use crate::components::composer::Composer;
use crate::components::error_notice::{error_list, ErrorNotice};
use crate::components::message_view::StreamingText;
use crate::components::run_status::RunStatusBar;
use crate::components::thread_view::ThreadView;
use crate::error::AppError;
use crate::live_run::{Follow, LiveRun};
use crate::model::{SandboxInfo, ThreadDetail};
use crate::run_stream::{new_stream_slot, RunStream, StreamSignal};
use crate::server_fns::{get_thread, retry_run, send_message, stop_run};
use crate::ThreadsChanged;

/// The sandbox status of the shown thread's server, for approval cards (`None` until it is known).
#[derive(Clone, Copy)]
pub struct SandboxView(pub Memo<Option<SandboxInfo>>);

#[component]
pub fn ChatPage() -> impl IntoView {
    let params = use_params_map();
    let thread_id = Memo::new(move |_| params.read().get("id").unwrap_or_default());
    let threads_changed = expect_context::<ThreadsChanged>();
    // What the server renders and hydrates; fetched again only when another thread opens.
    let detail = Resource::new(move || thread_id.get(), get_thread);
    // Newer copies, fetched in the browser whenever the run or the sidebar changes the thread.
    let refreshed = RwSignal::new(None::<ThreadDetail>);
    let current = Memo::new(move |_| {
        let id = thread_id.get();
        let is_open = |d: &ThreadDetail| d.thread.id == id;
        refreshed.get().filter(is_open).or_else(|| detail.get().and_then(Result::ok).filter(is_open))
    });
    // Approval cards of commands say whether they will run confined.
    provide_context(SandboxView(Memo::new(move |_| current.with(|d| d.as_ref().map(|d| d.sandbox.clone())))));
    let live = LiveRun::new();
    let stream = new_stream_slot();
    let action_error = RwSignal::new(None::<AppError>);
    // Only the newest refetch's answer is shown: an older one may land after it.
    let asked = StoredValue::new(0u64);
    let refetch = move || {
        let id = thread_id.get_untracked();
        let Some(this) = asked.try_update_value(|n| {
            *n += 1;
            *n
        }) else {
            return; // the page is gone
        };
        spawn_local(async move {
            let answer = get_thread(id).await;
            if asked.try_get_value() != Some(this) {
                return;
            }
            match answer {
                Ok(d) => {
                    refreshed.try_set(Some(d));
                    // Every arrival, changed or not: the streamed text it now stores is dropped.
                    live.thread_refreshed();
                }
                Err(e) => {
                    action_error.try_set(Some(e));
                }
            }
        });
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
                StreamSignal::Event(event) => live.apply(event),
                StreamSignal::Closed => {
                    live.run_id.set(None);
                    Follow::Finish
                }
            };
            match follow {
                Follow::Nothing => {}
                Follow::Refetch => refetch(),
                Follow::RefetchWithSidebar => threads_changed.notify(),
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
            refreshed.set(None);
        }
        id
    });
    // A rename or archive in the sidebar shows in the heading.
    Effect::new(move |seen: Option<()>| {
        threads_changed.0.track();
        if seen.is_some() {
            refetch();
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
            subscribe(run.id);
        }
    });
    on_cleanup(close_stream);

    let on_send = Callback::new(move |content: String| {
        action_error.set(None);
        let id = thread_id.get_untracked();
        spawn_local(async move {
            match send_message(id, content).await {
                Ok(started) => {
                    subscribe(started.run_id);
                    refetch();
                }
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
            match retry_run(id).await {
                Ok(started) => {
                    subscribe(started.run_id);
                    refetch();
                }
                Err(e) => {
                    action_error.try_set(Some(e));
                }
            }
        });
    });
    let on_stop = Callback::new(move |()| {
        if let Some(run_id) = live.run_id.get_untracked() {
            spawn_local(async move {
                if let Err(e) = stop_run(run_id).await {
                    action_error.try_set(Some(e));
                }
            });
        }
    });
    let on_change = Callback::new(move |()| refetch());
    let busy = Signal::derive(move || live.run_id.get().is_some());

    view! {
        <section class="page chat">
            <Transition fallback=|| view! { <p class="loading">"Loading the thread…"</p> }>
                <ErrorBoundary fallback=error_list>
                    {move || Suspend::new(async move {
                        detail.await.map(|first| {
                            let shown = Memo::new(move |_| current.get().unwrap_or_else(|| first.clone()));
                            view! { <ThreadView detail=shown.into() live on_retry on_change/> }
                        })
                    })}
                </ErrorBoundary>
            </Transition>
            <StreamingText live/>
            <RunStatusBar live on_stop/>
            {move || action_error.get().map(|error| view! { <ErrorNotice error/> })}
            <Composer on_send busy label="Message" placeholder="Reply; Enter sends, Shift+Enter adds a line"/>
        </section>
    }
}
