//! The chat page (`/chat/{id}`): the stored thread rendered on the server, and in the browser a
//! subscription to the thread's active run. Streamed text shows as it arrives; anything the run
//! stores (tool calls, approvals, answers) is refetched, so every tab shows the same state.

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::use_params_map;

use crate::components::approval_card::ApprovalDrafts;
use crate::components::composer::Composer;
use crate::components::error_notice::{error_list, ErrorNotice};
use crate::components::message_view::{MessageView, StreamingText};
use crate::components::rules_panel::RulesPanel;
use crate::components::run_status::RunStatusBar;
use crate::components::tool_call_view::ToolCallView;
use crate::error::AppError;
use crate::live_run::{Follow, LiveRun};
use crate::model::{Role, ThreadDetail};
use crate::run_stream::{new_stream_slot, RunStream, StreamSignal};
use crate::server_fns::{get_thread, retry_run, send_message, stop_run};
use crate::ThreadsChanged;

#[component]
pub fn ChatPage() -> impl IntoView {
    let params = use_params_map();
    let thread_id = Memo::new(move |_| params.read().get("id").unwrap_or_default());
    let reload = RwSignal::new(0u32);
    let threads_changed = expect_context::<ThreadsChanged>();
    // Also refetched when the sidebar changes a thread (a rename shows in the heading).
    let detail = Resource::new(
        move || (thread_id.get(), reload.get(), threads_changed.0.get()),
        |(id, _, _)| get_thread(id),
    );
    let live = LiveRun::new();
    // Half-made decisions survive the refetches that rebuild the cards.
    // Passed down, not looked up: a card built after a refetch must find the same drafts.
    let drafts = ApprovalDrafts::default();
    let stream = new_stream_slot();
    let action_error = RwSignal::new(None::<AppError>);
    let refetch = move || reload.update(|n| *n += 1);

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
        }
        id
    });
    // Follow the thread's active run, whoever started it (this tab, another tab, before a reload).
    Effect::new(move |_| {
        if let Some(Ok(d)) = detail.get() {
            live.thread_refreshed();
            if let Some(run) = d.active_run {
                live.step.update(|s| {
                    if s.is_none() {
                        *s = Some((run.step, run.max_steps, String::new()));
                    }
                });
                subscribe(run.id);
            }
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
                        detail.await.map(|d| view! { <ThreadView detail=d live drafts on_retry on_change/> })
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

/// The stored part of the page: title, messages with their tool calls and approvals, the last
/// error with Retry, and the thread's rules.
#[component]
fn ThreadView(
    detail: ThreadDetail,
    live: LiveRun,
    drafts: ApprovalDrafts,
    on_retry: Callback<()>,
    on_change: Callback<()>,
) -> impl IntoView {
    let ThreadDetail { thread, messages, tool_calls, approvals, active_run, last_error, rules } = detail;
    let shown_ids: Vec<String> = messages.iter().map(|m| m.id.clone()).collect();
    let calls_of = |message_id: &str| {
        tool_calls
            .iter()
            .filter(|c| c.message_id == message_id)
            .map(|call| {
                let approval = approvals.iter().rev().find(|a| a.tool_call_id == call.id).cloned();
                view! { <ToolCallView call=call.clone() approval live drafts on_change/> }
            })
            .collect_view()
    };
    let entries = messages
        .iter()
        .filter(|m| matches!(m.role, Role::User | Role::Assistant))
        .map(|m| {
            view! {
                <MessageView message=m.clone()/>
                {calls_of(&m.id)}
            }
        })
        .collect_view();
    // Calls whose message is not among the shown ones still belong on the page.
    let orphans = tool_calls
        .iter()
        .filter(|c| !shown_ids.contains(&c.message_id))
        .map(|call| {
            let approval = approvals.iter().rev().find(|a| a.tool_call_id == call.id).cloned();
            view! { <ToolCallView call=call.clone() approval live drafts on_change/> }
        })
        .collect_view();
    let failed = last_error.filter(|_| active_run.is_none()).map(|message| {
        view! {
            <div class="run-error" role="alert">
                <p><strong>"The model failed: "</strong> {message}</p>
                <button type="button" on:click=move |_| on_retry.run(()) disabled=move || live.run_id.get().is_some()>
                    "Retry"
                </button>
            </div>
        }
    });

    view! {
        <h1 class="thread-title">{thread.title}</h1>
        <RulesPanel rules on_change/>
        <ol class="messages" aria-label="Conversation">
            {entries}
            {orphans}
        </ol>
        {failed}
    }
}
