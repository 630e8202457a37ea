//! A person's decision on one outside request, full screen: Approve; Edit the code and approve
//! the edited code (a security evaluation only: the client runs what the person approved); Deny with
//! a reason. The hub checks the input; what it refuses is shown.

use leptos::prelude::*;
use leptos::task::spawn_local;
use warden_outside::{DecisionInput, OutsideRequest};

use crate::error::AppError;
use crate::model::inbox::decide::outside_input;
use crate::model::Verdict;
use crate::server_fns::inbox::{decide_outside, get_outside_request};

#[component]
pub fn OutsideDecision(
    request_id: String,
    /// The code as shown (the client's, or an approver's edit while a quorum counts), when the request
    /// may be edited (a security evaluation).
    code: Option<String>,
    on_decided: Callback<OutsideRequest>,
) -> impl IntoView {
    let reason = RwSignal::new(String::new());
    let editing = RwSignal::new(false);
    let original = code.clone().unwrap_or_default();
    let edited = RwSignal::new(original.clone());
    let error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let editable = code.is_some();

    let send = move |input: DecisionInput| {
        busy.set(true);
        error.set(None);
        let id = request_id.clone();
        spawn_local(async move {
            // `try_run`: the view that asked may be gone by the answer (a card shown anew when the
            // decision reached its list first).
            match decide_outside(id.clone().into(), input).await {
                Ok(request) => {
                    on_decided.try_run(request);
                }
                // Decided first elsewhere (another tab, the policy, its timeout): show how.
                Err(AppError::Conflict(_)) => match get_outside_request(id.into()).await {
                    Ok(view) => {
                        on_decided.try_run(view.request);
                    }
                    Err(e) => {
                        error.try_set(Some(e.to_string()));
                    }
                },
                Err(refused) => {
                    error.try_set(Some(refused.to_string()));
                }
            }
            busy.try_set(false);
        });
    };
    let approve = {
        let send = send.clone();
        // The code shown is named: with a quorum, an approval counts only for the code its approver saw
        // (another approver's edit since makes it an edit back to this code, and the count starts again).
        let shown = code.clone();
        move |_| send(DecisionInput { edited_code: shown.clone(), ..outside_input(Verdict::Approve, None) })
    };
    let approve_edited = {
        let send = send.clone();
        move |_| {
            send(DecisionInput { edited_code: Some(edited.get_untracked()), ..outside_input(Verdict::Approve, None) })
        }
    };
    let deny = move |_| {
        let why = reason.get_untracked().trim().to_string();
        send(outside_input(Verdict::Deny, (!why.is_empty()).then_some(why)))
    };
    let stop_editing = move |_| {
        editing.set(false);
        edited.set(original.clone());
    };

    view! {
        <section class="outside-decision" aria-label="Decision">
            <Show
                when=move || editing.get()
                fallback=move || view! {
                    <div class="decide-buttons">
                        <button type="button" class="approve" disabled=move || busy.get() on:click=approve.clone()>
                            "Approve"
                        </button>
                        {editable.then(|| view! {
                            <button type="button" disabled=move || busy.get() on:click=move |_| editing.set(true)>
                                "Edit"
                            </button>
                        })}
                    </div>
                    <div class="deny-row">
                        <label>
                            "Reason for denying (optional)"
                            <input type="text" dir="auto" bind:value=reason/>
                        </label>
                        <button type="button" class="deny" disabled=move || busy.get() on:click=deny.clone()>
                            "Deny"
                        </button>
                    </div>
                }
            >
                <label class="edit-label">
                    "Code to run instead"
                    <textarea rows="14" spellcheck="false" bind:value=edited></textarea>
                </label>
                <div class="decide-buttons">
                    <button type="button" class="approve" disabled=move || busy.get() on:click=approve_edited.clone()>
                        "Approve with edits"
                    </button>
                    <button type="button" on:click=stop_editing.clone()>"Cancel editing"</button>
                </div>
            </Show>
            {move || error.get().map(|message| view! { <p class="error" role="alert">{message}</p> })}
        </section>
    }
}
