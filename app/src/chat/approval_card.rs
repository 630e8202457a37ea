//! The card for a gated call waiting for a person: what it will do, its arguments (or diff, or
//! command), its risk, and Approve / Deny (with a reason) / Edit / Allow for this thread.
//! Decisions go to the `decide_approval` server function; the engine validates edited arguments and
//! says what is wrong.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use crate::chat::sandbox::SandboxView;
use crate::error::AppError;
use crate::model::{Approval, DecisionInput, Risk, Scope};
use crate::server_fns::decide_approval;
use crate::ui::call_preview::{arguments_text, call_preview};
use warden_types::approval::EditPreview;

/// The card keeps what a person types in its own signals: the conversation is a keyed list, so a
/// change that does not touch this approval leaves the card (and its inputs) in place. A decision
/// comes back as the run's `approval_resolved` event, which replaces the card with its outcome.
#[component]
pub fn ApprovalCard(approval: Approval) -> impl IntoView {
    let pretty = arguments_text(&approval.arguments);
    let reason = RwSignal::new(String::new());
    let prefix = RwSignal::new(String::new());
    let is_shell = approval.tool == "shell";
    let network = RwSignal::new(false);
    let sandbox = use_context::<SandboxView>();
    let editing = RwSignal::new(false);
    let edited = RwSignal::new(pretty.clone());
    let error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);

    // The card is found by its heading's id when the answer comes: by then its row may be redrawn (and
    // anything reactive of this card disposed).
    let card = format!("approval-{}", approval.id);
    let send = {
        let approval_id = approval.id.clone();
        move |decision: DecisionInput| {
            busy.set(true);
            error.set(None);
            let approval_id = approval_id.clone();
            let card = card.clone();
            spawn_local(async move {
                match decide_approval(approval_id, decision).await {
                    // Decided here, or by another tab or client first: either way the run's event
                    // replaces the card.
                    Ok(_) | Err(AppError::Conflict(_)) => focus_after_decision(&card),
                    Err(refused) => {
                        error.try_set(Some(refused.to_string()));
                    }
                }
                // The card may be gone by now: a decided approval is shown by a new one.
                busy.try_set(false);
            });
        }
    };
    // With a quorum a vote names the arguments it approves: an edit by another approver since this card was
    // read makes it stale (the server refuses it) rather than a vote for what this person never saw.
    let shown = (warden_policies::route_of(&approval).quorum > 1).then(|| approval.arguments.clone());
    let approve = {
        let send = send.clone();
        move || {
            send(DecisionInput {
                network: network.get_untracked(),
                arguments: shown.clone(),
                ..DecisionInput::approve()
            })
        }
    };
    let allow_for_thread = {
        let send = send.clone();
        move |_| {
            let prefix = prefix.get_untracked().trim().to_string();
            send(DecisionInput {
                prefix: (!prefix.is_empty()).then_some(prefix),
                scope: Scope::Thread,
                ..DecisionInput::approve()
            });
        }
    };
    let deny = {
        let send = send.clone();
        move || {
            let reason = reason.get_untracked().trim().to_string();
            send(DecisionInput::deny((!reason.is_empty()).then_some(reason)));
        }
    };
    // With the focus on the card (not in one of its fields): a approves, d denies, e edits.
    let on_keydown = {
        let (approve, deny) = (approve.clone(), deny.clone());
        move |ev: leptos::ev::KeyboardEvent| {
            #[cfg(feature = "hydrate")]
            {
                let modified = ev.ctrl_key() || ev.alt_key() || ev.meta_key();
                if modified || ev.repeat() || crate::ui::shortcuts::is_typing(&ev) {
                    return;
                }
                if editing.get_untracked() || busy.get_untracked() {
                    return;
                }
                match ev.key().as_str() {
                    "a" => approve(),
                    "d" => deny(),
                    "e" => editing.set(true),
                    _ => return,
                }
                ev.prevent_default();
            }
            #[cfg(not(feature = "hydrate"))]
            let _ = (ev, &approve, &deny);
        }
    };
    let approve_edited = {
        let send = send.clone();
        move |_| match serde_json::from_str::<Value>(&edited.get_untracked()) {
            Ok(arguments) => send(DecisionInput {
                arguments: Some(arguments),
                network: network.get_untracked(),
                ..DecisionInput::approve()
            }),
            Err(e) => error.set(Some(format!("The arguments are not valid JSON: {e}"))),
        }
    };
    let stop_editing = {
        let pretty = pretty.clone();
        move |_| {
            editing.set(false);
            error.set(None);
            edited.set(pretty.clone());
        }
    };

    // While the person edits the arguments, the header and the diff follow what they typed (read by the
    // server a moment after they stop typing; only the newest answer shows).
    let edit_preview = RwSignal::new(None::<EditPreview>);
    follow_edits(&approval, editing, edited, edit_preview);
    let shown_approval = {
        let approval = approval.clone();
        move || match (editing.get(), edit_preview.get()) {
            (true, Some(p)) => Approval { summary: p.summary, preview: p.preview, ..approval.clone() },
            _ => approval.clone(),
        }
    };
    let heading = {
        let shown_approval = shown_approval.clone();
        move || shown_approval().summary
    };
    let risk = approval.risk;
    // Who asked, the policy, how many approvals it needs and who gave them; the buttons only for a person
    // it is routed to (the server refuses anyone else whatever the page shows).
    let routing = crate::ui::routing::routing_line(&approval);
    let mine = crate::ui::routing::Me::may_decide(&approval);
    let quorum_of_one = warden_policies::route_of(&approval).quorum == 1;
    let heading_id = format!("approval-{}", approval.id);
    let labelled_by = heading_id.clone();
    view! {
        <section
            class=format!("approval-card risk-{}", risk.label())
            aria-labelledby=labelled_by
            aria-keyshortcuts="a d e"
            tabindex="0"
            on:keydown=on_keydown
        >
            <h3 id=heading_id>"Approval needed: " <bdi>{heading}</bdi></h3>
            <p class=format!("risk risk-{}", risk.label())>"Risk: " <strong>{risk.label()}</strong></p>
            <p class="tool-line">"Tool: " <code>{approval.tool.clone()}</code></p>
            <p class="routing-line">{routing}</p>
            <div class="call-preview">{move || call_preview(&shown_approval())}</div>
            {is_shell.then(|| view! {
                <SandboxLine sandbox/>
                <label class="network-label">
                    <input type="checkbox" bind:checked=network/>
                    " Allow network access for this command (Approve only)"
                </label>
            })}
            <p class="not-yours" hidden=move || mine.get()>
                "This request is routed to other approvers: you cannot decide it."
            </p>
            <div class="decide-area" hidden=move || !mine.get()>
            <Show
                when=move || editing.get()
                fallback=move || view! {
                    <div class="decide-buttons">
                        <button type="button" class="approve" disabled=move || busy.get() on:click={
                            let approve = approve.clone();
                            move |_| approve()
                        }>"Approve"</button>
                        {quorum_of_one.then(|| view! {
                            <button type="button" disabled=move || busy.get() on:click=allow_for_thread.clone()>"Allow for this thread"</button>
                        })}
                        <button type="button" disabled=move || busy.get() on:click=move |_| editing.set(true)>"Edit"</button>
                    </div>
                    // A prefix rule is offered only for a read-only command (the server refuses others too).
                    {(is_shell && risk == Risk::Low).then(|| view! {
                        <label class="prefix-label">
                            "Allow for this thread: commands starting with (optional)"
                            <input type="text" bind:value=prefix/>
                        </label>
                    })}
                    <div class="deny-row">
                        <label>
                            "Reason for denying (optional)"
                            <input type="text" dir="auto" bind:value=reason/>
                        </label>
                        <button type="button" class="deny" disabled=move || busy.get() on:click={
                            let deny = deny.clone();
                            move |_| deny()
                        }>"Deny"</button>
                    </div>
                }
            >
                <label class="edit-label">
                    "Arguments (JSON)"
                    <textarea rows="8" bind:value=edited></textarea>
                </label>
                <div class="decide-buttons">
                    <button type="button" class="approve" disabled=move || busy.get() on:click=approve_edited.clone()>"Approve with edits"</button>
                    <button type="button" on:click=stop_editing.clone()>"Cancel editing"</button>
                </div>
            </Show>
            </div>
            {move || error.get().map(|message| view! { <p class="error" role="alert">{message}</p> })}
        </section>
    }
}

/// What confines a command: the sandbox, or, where this machine has none, a plain warning.
#[component]
fn SandboxLine(sandbox: Option<SandboxView>) -> impl IntoView {
    move || {
        match sandbox.and_then(|s| s.0.try_get().flatten()) {
        Some(info) if info.available => view! {
            <p class="sandbox-line">
                "Runs in the sandbox: it can write only in the workspace, cannot read Warden's data, and has no network unless you allow it."
            </p>
        }
        .into_any(),
        Some(info) => view! {
            <p class="sandbox-line warning" role="alert">
                <strong>"No sandbox on this machine: "</strong>
                {info.detail}
                ". This command would run with your user's full access; thread rules do not run commands here."
            </p>
        }
        .into_any(),
        None => ().into_any(),
    }
    }
}

/// Asks the server what the card would show with the arguments being edited, once typing pauses: an
/// answer for text that has changed since (or after editing stopped) is dropped.
fn follow_edits(
    approval: &Approval,
    editing: RwSignal<bool>,
    edited: RwSignal<String>,
    shown: RwSignal<Option<EditPreview>>,
) {
    #[cfg(feature = "hydrate")]
    {
        let id = approval.id.clone();
        let original = approval.arguments.clone();
        let pending = StoredValue::new_local(None::<leptos::leptos_dom::helpers::TimeoutHandle>);
        Effect::new(move |_| {
            let text = edited.get();
            if !editing.get() {
                shown.set(None);
                return;
            }
            if let Some(handle) = pending.try_update_value(Option::take).flatten() {
                handle.clear();
            }
            let Ok(arguments) = serde_json::from_str::<Value>(&text) else { return };
            if arguments == original {
                shown.set(None);
                return;
            }
            let id = id.clone();
            let ask = move || {
                spawn_local(async move {
                    let answer = crate::server_fns::preview_edit(id, arguments).await;
                    // Only while the text is the one asked about.
                    if editing.try_get_untracked() != Some(true)
                        || edited.try_get_untracked().as_deref() != Some(text.as_str())
                    {
                        return;
                    }
                    if let Ok(preview) = answer {
                        shown.try_set(Some(preview));
                    }
                });
            };
            let handle = set_timeout_with_handle(ask, std::time::Duration::from_millis(300)).ok();
            pending.try_set_value(handle);
        });
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (approval, editing, edited, shown);
}

/// After a decision made from this card, the focus goes on to the next card waiting, else to the
/// message box: not to the page's body, where the decided card (replaced by its outcome) leaves it.
/// Only when the focus was on this card (or already fell to the body).
fn focus_after_decision(heading_id: &str) {
    #[cfg(feature = "hydrate")]
    {
        use wasm_bindgen::JsCast;
        let heading = document().get_element_by_id(heading_id);
        let this = heading.and_then(|h| h.closest("section.approval-card").ok().flatten());
        let active = document().active_element();
        let on_this = match (&this, &active) {
            (Some(this), Some(active)) => this.contains(Some(active)),
            _ => false,
        };
        let fell = active.as_ref().is_none_or(|a| a.tag_name().eq_ignore_ascii_case("body"));
        if !on_this && !fell {
            return;
        }
        let cards = document().query_selector_all("section.approval-card").ok();
        let next = cards.and_then(|cards| {
            (0..cards.length())
                .filter_map(|i| cards.item(i).and_then(|n| n.dyn_into::<web_sys::HtmlElement>().ok()))
                .find(|c| this.as_ref().is_none_or(|this| !this.is_same_node(Some(c))))
        });
        let composer =
            || document().get_element_by_id("composer-input").and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
        if let Some(target) = next.or_else(composer) {
            let _ = target.focus();
        }
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = heading_id;
}
