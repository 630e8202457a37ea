//! The card for a gated call waiting for a person: what it will do, its arguments (or diff, or
//! command), its risk, and Approve / Deny (with a reason) / Edit / Allow for this thread.
//! Decisions go to the public API; the server validates edited arguments and says what is wrong.

use std::collections::HashMap;

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use crate::approval_api::{decide, DecideOutcome, DecisionBody};
use crate::model::{Approval, ApprovalStatus, DecidedBy, Preview, Scope};

/// What a person has typed into a card but not sent, by approval id. The page refetches the thread
/// when the run reports anything (a title, another call), which rebuilds the cards.
#[derive(Clone, Copy, Default)]
pub struct ApprovalDrafts(StoredValue<HashMap<String, Draft>>);

#[derive(Clone, Default)]
pub struct Draft {
    reason: String,
    prefix: String,
    /// `Some` while the arguments are being edited.
    edited: Option<String>,
}

impl ApprovalDrafts {
    fn get(&self, id: &str) -> Draft {
        self.0.with_value(|m| m.get(id).cloned()).unwrap_or_default()
    }
    fn change(&self, id: &str, f: impl FnOnce(&mut Draft)) {
        self.0.update_value(|m| f(m.entry(id.to_string()).or_default()));
    }
}

#[component]
pub fn ApprovalCard(approval: Approval, drafts: ApprovalDrafts, on_change: Callback<()>) -> impl IntoView {
    // While the page refetches, the old card stays on screen after its reactive values are
    // disposed; so handlers read what was typed from the page-level drafts (keyed by this id)
    // and write the card's own signals only with `try_`.
    let approval_id = approval.id.clone();
    let pretty = serde_json::to_string_pretty(&approval.arguments).unwrap_or_default();
    let draft = drafts.get(&approval_id);
    let reason = RwSignal::new(draft.reason);
    let prefix = RwSignal::new(draft.prefix);
    let is_shell = approval.tool == "shell";
    let editing = RwSignal::new(draft.edited.is_some());
    let edited = RwSignal::new(draft.edited.unwrap_or_else(|| pretty.clone()));
    let error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);

    let send = {
        let approval_id = approval_id.clone();
        move |body: DecisionBody| {
            busy.try_set(true);
            error.try_set(None);
            let approval_id = approval_id.clone();
            spawn_local(async move {
                match decide(&approval_id, &body).await {
                    DecideOutcome::Decided | DecideOutcome::AlreadyDecided => on_change.run(()),
                    DecideOutcome::Refused(message) => {
                        error.try_set(Some(message));
                    }
                }
                busy.try_set(false);
            });
        }
    };
    let typed = {
        let approval_id = approval_id.clone();
        move |f: &dyn Fn(&mut Draft)| drafts.change(&approval_id, f)
    };
    let draft_now = {
        let approval_id = approval_id.clone();
        move || drafts.get(&approval_id)
    };
    let approve = {
        let send = send.clone();
        move |_| send(DecisionBody { decision: "approve", scope: "once", arguments: None, reason: None, prefix: None })
    };
    let allow_for_thread = {
        let (send, draft_now) = (send.clone(), draft_now.clone());
        move |_| {
            let prefix = draft_now().prefix.trim().to_string();
            send(DecisionBody { decision: "approve", scope: "thread", arguments: None, reason: None, prefix: (!prefix.is_empty()).then_some(prefix) });
        }
    };
    let deny = {
        let (send, draft_now) = (send.clone(), draft_now.clone());
        move |_| {
            let reason = draft_now().reason.trim().to_string();
            send(DecisionBody { decision: "deny", scope: "once", arguments: None, reason: (!reason.is_empty()).then_some(reason), prefix: None });
        }
    };
    let approve_edited = {
        let (send, draft_now, pretty) = (send.clone(), draft_now.clone(), pretty.clone());
        move |_| {
            let text = draft_now().edited.unwrap_or_else(|| pretty.clone());
            match serde_json::from_str::<Value>(&text) {
                Ok(arguments) => send(DecisionBody { decision: "approve", scope: "once", arguments: Some(arguments), reason: None, prefix: None }),
                Err(e) => {
                    error.try_set(Some(format!("The arguments are not valid JSON: {e}")));
                }
            }
        }
    };
    let on_reason = {
        let typed = typed.clone();
        move |ev| {
            let value = event_target_value(&ev);
            reason.try_set(value.clone());
            typed(&|d| d.reason = value.clone());
        }
    };
    let on_prefix = {
        let typed = typed.clone();
        move |ev| {
            let value = event_target_value(&ev);
            prefix.try_set(value.clone());
            typed(&|d| d.prefix = value.clone());
        }
    };
    let on_edited = {
        let typed = typed.clone();
        move |ev| {
            let value = event_target_value(&ev);
            edited.try_set(value.clone());
            typed(&|d| d.edited = Some(value.clone()));
        }
    };
    let start_editing = {
        let (typed, pretty) = (typed.clone(), pretty.clone());
        move |_| {
            editing.try_set(true);
            typed(&|d| d.edited = Some(d.edited.clone().unwrap_or_else(|| pretty.clone())));
        }
    };
    let stop_editing = {
        let typed = typed.clone();
        move |_| {
            editing.try_set(false);
            error.try_set(None);
            typed(&|d| d.edited = None);
        }
    };

    let risk = approval.risk;
    let heading_id = format!("approval-{}", approval.id);
    let labelled_by = heading_id.clone();
    let preview = match approval.preview.clone() {
        Some(Preview::Diff { path, diff }) => view! {
            <p>"Changes to " <code>{path}</code></p>
            <pre class="diff">{diff}</pre>
        }
        .into_any(),
        Some(Preview::Command { command }) => view! {
            <p>"Command:"</p>
            <pre class="command">{command}</pre>
        }
        .into_any(),
        None => view! { <pre class="arguments">{pretty}</pre> }.into_any(),
    };

    view! {
        <section class=format!("approval-card risk-{}", risk.label()) aria-labelledby=labelled_by>
            <h3 id=heading_id>"Approval needed: " {approval.summary.clone()}</h3>
            <p class=format!("risk risk-{}", risk.label())>"Risk: " <strong>{risk.label()}</strong></p>
            <p class="tool-line">"Tool: " <code>{approval.tool.clone()}</code></p>
            {preview}
            <Show
                when=move || editing.get()
                fallback=move || view! {
                    <div class="decide-buttons">
                        <button type="button" class="approve" disabled=move || busy.get() on:click=approve.clone()>"Approve"</button>
                        <button type="button" disabled=move || busy.get() on:click=allow_for_thread.clone()>"Allow for this thread"</button>
                        <button type="button" disabled=move || busy.get() on:click=start_editing.clone()>"Edit"</button>
                    </div>
                    {is_shell.then(|| view! {
                        <label class="prefix-label">
                            "Allow for this thread: commands starting with (optional)"
                            <input type="text" prop:value=move || prefix.get() on:input=on_prefix.clone()/>
                        </label>
                    })}
                    <div class="deny-row">
                        <label>
                            "Reason for denying (optional)"
                            <input type="text" prop:value=move || reason.get() on:input=on_reason.clone()/>
                        </label>
                        <button type="button" class="deny" disabled=move || busy.get() on:click=deny.clone()>"Deny"</button>
                    </div>
                }
            >
                <label class="edit-label">
                    "Arguments (JSON)"
                    <textarea rows="8" prop:value=move || edited.get() on:input=on_edited.clone()></textarea>
                </label>
                <div class="decide-buttons">
                    <button type="button" class="approve" disabled=move || busy.get() on:click=approve_edited.clone()>"Approve with edits"</button>
                    <button type="button" on:click=stop_editing.clone()>"Cancel editing"</button>
                </div>
            </Show>
            {move || error.get().map(|message| view! { <p class="error" role="alert">{message}</p> })}
        </section>
    }
}

/// How a settled approval was decided, in words.
pub fn decision_text(approval: &Approval) -> String {
    let verdict = match approval.status {
        ApprovalStatus::Pending => return "Waiting for approval".into(),
        ApprovalStatus::Approved => "Approved",
        ApprovalStatus::Denied => "Denied",
        ApprovalStatus::TimedOut => return "Timed out: nobody decided in time".into(),
        ApprovalStatus::Cancelled => return "Cancelled: the run stopped before a decision".into(),
    };
    match approval.decision.as_ref().map(|d| &d.by) {
        Some(DecidedBy::User { edited_arguments, reason, scope }) => {
            let mut text = format!("{verdict} by you");
            if *scope == Scope::Thread {
                text.push_str(" for this thread");
            }
            if edited_arguments.is_some() {
                text.push_str(" with edited arguments");
            }
            if let Some(reason) = reason.as_deref().filter(|r| !r.is_empty()) {
                text.push_str(&format!(": {reason}"));
            }
            text
        }
        Some(DecidedBy::Rule { .. }) => format!("{verdict} by thread rule"),
        Some(DecidedBy::Timeout) => "Timed out: nobody decided in time".into(),
        None => verdict.to_string(),
    }
}
