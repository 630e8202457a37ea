//! One decision in the audit log: when, where from (a chat, with a link to it, or an outside
//! client), what (the tool or request kind, its summary, code and arguments, and the person's edit
//! as a diff made on the server), the outcome, and how it was decided. Everything here that a model
//! or a client sent is rendered as text nodes, which escape it.

use leptos::prelude::*;

use crate::ui::timestamp::Timestamp;
use crate::ui::visible_text::{hidden_chars_note, visible};
use crate::wording::{decider_label, outcome_label};
use warden_types::audit::{AuditDecider, AuditRow, AuditSource, DiffChange, DiffLine};

#[component]
pub fn AuditRowView(row: AuditRow) -> impl IntoView {
    let AuditRow { entry, diff } = row;
    let source = match entry.source {
        AuditSource::Chat => match &entry.thread_id {
            Some(thread) => view! { <a href=format!("/chat/{thread}")>"Chat"</a> }.into_any(),
            None => view! { <span>"Chat"</span> }.into_any(),
        },
        AuditSource::Outside => view! {
            <span>"Outside client " <strong>{entry.client_name.clone().unwrap_or_default()}</strong></span>
        }
        .into_any(),
    };
    let arguments = serde_json::to_string_pretty(&entry.arguments).unwrap_or_default();
    let risk = entry
        .risk
        .clone()
        .map(|risk| view! { <span class=format!("risk risk-{risk}")>{format!("{risk} risk")}</span> });
    let code = entry.code.clone().filter(|c| !c.is_empty()).map(|code| {
        view! {
            {hidden_chars_note("code", [code.as_str()])}
            <pre class="command">{visible(code)}</pre>
        }
    });
    let edit = (!diff.is_empty()).then(|| {
        view! {
            <div class="audit-edit">
                <p>"Edited by the person before approving:"</p>
                <Diff lines=diff/>
            </div>
        }
        .into_any()
    });
    let decided_by = if entry.decided_by.is_automatic() {
        format!("Automatic: {}", decider_label(entry.decided_by).to_lowercase())
    } else {
        decider_label(entry.decided_by).to_string()
    };
    // "a person" and nothing more would only repeat the badge.
    let how = (entry.how != "a person").then(|| view! { <p>{entry.how.clone()}</p> });
    let reason = entry.reason.clone().map(|reason| view! { <p class="audit-reason">"Reason: " {reason}</p> });
    let outcome_class = format!("outcome outcome-{}", entry.outcome.as_str());
    let decider_class = if entry.decided_by == AuditDecider::Person { "decider person" } else { "decider automatic" };

    view! {
        <tr class="audit-entry" data-id=entry.id.clone()>
            <td data-label="When"><Timestamp at=entry.decided_at.clone()/></td>
            <td data-label="Source">{source}</td>
            <td class="audit-what" data-label="What">
                <code>{entry.what.clone()}</code> " " {risk}
                <p>{visible(entry.summary.clone())}</p>
                {code}
                {edit}
                <details>
                    <summary>"Arguments as sent"</summary>
                    <pre>{visible(arguments)}</pre>
                </details>
            </td>
            <td data-label="Outcome"><span class=outcome_class>{outcome_label(entry.outcome)}</span></td>
            <td class="audit-how" data-label="How">
                <span class=decider_class>{decided_by}</span>
                {how}
                {reason}
            </td>
        </tr>
    }
    // Type-erased: as one nested type, the log's table is too deep for the compiler.
    .into_any()
}

/// A diff as lines of spans: `+` added, `-` removed, a heading for each changed argument.
#[component]
fn Diff(lines: Vec<DiffLine>) -> impl IntoView {
    view! {
        <pre class="diff" aria-label="Changes">
            {lines
                .into_iter()
                .map(|line| {
                    let (class, mark) = match line.change {
                        DiffChange::Field => ("diff-field", "@ "),
                        DiffChange::Same => ("diff-same", "  "),
                        DiffChange::Removed => ("diff-removed", "- "),
                        DiffChange::Added => ("diff-added", "+ "),
                    };
                    view! { <span class=class>{mark}{line.text}"\n"</span> }
                })
                .collect_view()}
        </pre>
    }
}
