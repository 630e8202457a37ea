//! One tool call in the conversation: what was called, how it was decided, and its result
//! (collapsed; the full output opens on request). A pending gated call shows its approval card,
//! a running one its progress, and one that found its MCP server offline offers to reconnect it. An
//! outside request that names the call (an executor its MCP tool reached asks for approval) shows on it.

use std::sync::Arc;

use leptos::prelude::*;
use warden_outside::OutsideRequest;

use crate::chat::approval_card::ApprovalCard;
use crate::chat::linked_outside::LinkedOutside;
use crate::chat::linked_request_card::LinkedRequestCard;
use crate::chat::live_run::LiveRun;
use crate::chat::offline_server::OfflineServer;
use crate::model::{Approval, ApprovalStatus, ToolCallRecord as ToolCall, ToolCallStatus};
use crate::ui::keyed_list::{keyed_list, Row};
use crate::ui::visible_text::visible;
use crate::wording::decision_text;

#[component]
pub fn ToolCallView(
    call: ToolCall,
    approval: Option<Approval>,
    /// It waits for the person to Connect its MCP server or Continue anyway (the card is below the conversation).
    waits_for_server: bool,
    live: LiveRun,
) -> impl IntoView {
    let pending = approval.as_ref().filter(|a| a.status == ApprovalStatus::Pending).cloned();
    let decided = approval.filter(|a| a.status != ApprovalStatus::Pending).map(|approval| {
        let me = crate::ui::routing::Me::id();
        move || decision_text(&approval, me.get().as_ref())
    });
    let output = call.output_text();
    let arguments = serde_json::to_string_pretty(&call.arguments).unwrap_or_default();
    let status_class = format!("tool-status status-{:?}", call.status).to_lowercase();
    let status_label = if waits_for_server { "waiting for its MCP server" } else { call.status.label() };
    let interrupted = call.status == ToolCallStatus::Interrupted;
    let offline_server = call.offline_server().map(str::to_owned);
    // Requests outside clients sent naming this call, each decided on its own card.
    let linked_requests = use_context::<LinkedOutside>().map(|linked| {
        let id = call.id.clone();
        keyed_list(Arc::new(move || {
            let row = |request: OutsideRequest| {
                Row::new((request.id.clone(), request.status), move || {
                    view! { <LinkedRequestCard request linked/> }.into_any()
                })
            };
            linked.of_call(id.as_str()).into_iter().map(row).collect()
        }))
    });
    let progress = {
        let (id, name, finished) = (call.id.clone(), call.name.clone(), call.output.is_some());
        move || {
            let report = live.progress.with(|all| all.get(id.as_str()).cloned()).filter(|_| !finished)?;
            Some(view! {
                <div class="tool-progress">
                    <progress max="1" value=report.fraction() aria-label=format!("Progress of {name}")></progress>
                    " "
                    <span role="status">{report.describe()}</span>
                </div>
            })
        }
    };

    view! {
        <li class="tool-call" aria-label=format!("Tool call {}", call.name)>
            <p class="tool-head">
                <code class="tool-name">{call.name.clone()}</code>
                " "
                <bdi class="tool-summary">{call.summary.clone()}</bdi>
                " "
                <span class=status_class>{status_label}</span>
            </p>
            {decided.map(|text| view! { <p class="decided">{text}</p> })}
            {interrupted.then(|| view! { <p class="decided warning">"Interrupted: outcome unknown"</p> })}
            {match pending {
                Some(approval) => view! { <ApprovalCard approval/> }.into_any(),
                None => view! {
                    <details class="tool-arguments">
                        <summary>"Arguments"</summary>
                        <pre class="arguments">{visible(arguments)}</pre>
                    </details>
                }.into_any(),
            }}
            {linked_requests}
            {progress}
            {offline_server.map(|server| view! { <OfflineServer server/> })}
            {output.map(|text| {
                let class = if call.is_error { "tool-output error-output" } else { "tool-output" };
                let label = if call.is_error { "Result (error)" } else { "Result" };
                view! {
                    <details class=class>
                        <summary>{label} {call.truncated.then_some(" (shortened for the model)")}</summary>
                        <pre>{visible(text)}</pre>
                    </details>
                }
            })}
        </li>
    }
}
