//! The card of a connection check: a run needs an MCP server that is offline or disabled (the model
//! called one of its tools, or the person's message named it with `@name`) and waits. Connect
//! enables and connects it (the run then carries on with it); Continue anyway carries on without it,
//! and the thread is not asked about that server again for an hour. A Connect that does not connect
//! shows why and the card stays.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::error::AppError;
use crate::model::{CheckDecision, CheckReason, ConnectionCheck};
use crate::server_fns::decide_connection_check;

/// The card holds the person's attempt in its own signals; the run's `connection_check` event
/// replaces it when the check is decided (here, in another tab, or by a stop).
#[component]
pub fn ConnectionCheckCard(check: ConnectionCheck) -> impl IntoView {
    let busy = RwSignal::new(None::<CheckDecision>);
    // The stored error of the last Connect, then whatever the latest attempt answered.
    let error = RwSignal::new(check.error.clone());
    let send = {
        let id = check.id.clone();
        move |decision: CheckDecision| {
            busy.set(Some(decision));
            error.set(None);
            let id = id.clone();
            spawn_local(async move {
                match decide_connection_check(id, decision).await {
                    Ok(answered) => {
                        error.try_set(answered.error.filter(|_| answered.status == crate::model::CheckStatus::Pending));
                    }
                    // Decided first elsewhere: the run's event replaces the card.
                    Err(AppError::Conflict(_)) => {}
                    Err(refused) => {
                        error.try_set(Some(refused.to_string()));
                    }
                }
                busy.try_set(None);
            });
        }
    };
    let connect = {
        let send = send.clone();
        move |_| send(CheckDecision::Connect)
    };
    let continue_without = move |_| send(CheckDecision::ContinueWithout);
    let server = check.server.clone();
    let down = check.down.label();
    let why = match &check.reason {
        CheckReason::CalledTool { tool } => view! {
            <p>"The model called " <code>{tool.clone()}</code> ", a tool of this server."</p>
        }
        .into_any(),
        CheckReason::Mentioned => view! {
            <p>"Your message names " <code>{format!("@{server}")}</code> "."</p>
        }
        .into_any(),
    };
    let heading_id = format!("check-{}", check.id);
    let labelled_by = heading_id.clone();
    let report = move || match busy.get() {
        Some(CheckDecision::Connect) => "Connecting…".to_string(),
        Some(CheckDecision::ContinueWithout) => "Continuing without it…".to_string(),
        None => String::new(),
    };

    view! {
        <section class="connection-check" aria-labelledby=labelled_by>
            <h3 id=heading_id><code>{server.clone()}</code> {format!(" is {down}")}</h3>
            {why}
            <p>
                "Connect it to go on with it, or continue without it (this thread will not ask about "
                <code>{server}</code> " again for an hour)."
            </p>
            <div class="decide-buttons">
                <button type="button" class="approve" disabled=move || busy.get().is_some() on:click=connect>
                    "Connect"
                </button>
                <button type="button" disabled=move || busy.get().is_some() on:click=continue_without>
                    "Continue anyway"
                </button>
            </div>
            <span class="check-report" role="status">{report}</span>
            {move || error.get().map(|message| view! { <p class="error" role="alert">"Could not connect: " {message}</p> })}
        </section>
    }
}
