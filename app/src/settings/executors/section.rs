//! Settings' "Executors": the executors Warden connects out to (it dials their WebSocket and takes
//! their approval requests there), each with its connection's state, the form to add one, and
//! Enabled / Remove. The list is rendered on the server, refetched after every change, and polled
//! while a connection is being made or retried.

use std::time::Duration;

use leptos::prelude::*;

use crate::server_fns::outside_executors::list_outside_executors;
use crate::settings::executors::card::ExecutorCard;
use crate::settings::executors::form::ExecutorForm;
use crate::settings::executors::state::ExecutorsUi;
use crate::ui::error_notice::error_list;
use warden_outside::{DialStatus, Executor};

#[component]
pub fn ExecutorsSection() -> impl IntoView {
    let ui = ExecutorsUi::new();
    provide_context(ui);
    let executors = Resource::new(move || ui.changed.get(), |_| list_outside_executors());
    // Effects run only in the browser: poll while a state may still change by itself.
    Effect::new(move |_| {
        let delay = executors.get().and_then(Result::ok).and_then(|list| poll_delay(&list));
        if let Some(delay) = delay {
            if let Ok(handle) = set_timeout_with_handle(move || ui.refresh(), delay) {
                on_cleanup(move || handle.clear());
            }
        }
    });

    view! {
        <section class="executors" aria-labelledby="executors-title">
            <h2 id="executors-title">"Executors"</h2>
            <p class="mcp-intro">
                "Executors that listen for Warden instead of connecting to it: Warden opens their WebSocket, \
                 takes their approval requests there and sends your decisions back. Each one asks as an \
                 outside client of its own."
            </p>
            {move || ui.error.get().map(|message| view! { <p class="error" role="alert">{message}</p> })}
            {move || match ui.form.get() {
                Some(_) => view! { <ExecutorForm/> }.into_any(),
                None => view! {
                    <button type="button" on:click=move |_| ui.form.set(Some(None))>"Add executor"</button>
                }
                .into_any(),
            }}
            <Transition fallback=|| view! { <p class="loading">"Loading executors…"</p> }>
                <ErrorBoundary fallback=error_list>
                    {move || Suspend::new(async move { executors.await.map(|list| view! { <ExecutorList list/> }) })}
                </ErrorBoundary>
            </Transition>
        </section>
    }
    // Type-erased: nested into the settings page as one type, it is too deep for the compiler.
    .into_any()
}

#[component]
fn ExecutorList(list: Vec<Executor>) -> impl IntoView {
    if list.is_empty() {
        return view! { <p class="empty">"No executors yet."</p> }.into_any();
    }
    list.into_iter().map(|executor| view! { <ExecutorCard executor/> }).collect_view().into_any()
}

/// How soon to look again: soon while a connection is being made, more slowly while one is retried.
fn poll_delay(list: &[Executor]) -> Option<Duration> {
    let statuses = || list.iter().map(|e| e.state.status);
    if statuses().any(|s| s == DialStatus::Connecting) {
        Some(Duration::from_secs(1))
    } else if statuses().any(|s| s == DialStatus::Retrying) {
        Some(Duration::from_secs(5))
    } else {
        None
    }
}
