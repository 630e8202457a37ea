//! The stored part of a chat page: title, the thread's rules, the conversation (messages, each
//! followed by its tool calls and their approvals), the connection checks waiting for the person
//! (an MCP server a run needs is offline or disabled) and the last error with Retry.
//!
//! Events of the run patch the thread in place, so the conversation is a keyed list: an entry
//! keeps its DOM (an open `<details>`, text half-typed into an approval card, the focus) until
//! something it shows changes.

use std::sync::Arc;

use leptos::prelude::*;

use crate::chat::connection_check_card::ConnectionCheckCard;
use crate::chat::live_run::LiveRun;
use crate::chat::message_view::MessageView;
use crate::chat::rules_panel::RulesPanel;
use crate::chat::share_control::ShareControl;
use crate::chat::tool_call_view::ToolCallView;
use crate::model::{
    Approval, ApprovalStatus, BranchPoint, CheckStatus, Role, StoredMessage as Message, ThreadDetail,
    ToolCallRecord as ToolCall, ToolCallStatus, ToolOrigin,
};
use crate::ui::icon::{Icon, IconSvg};
use crate::ui::keyed_list::{keyed_list, Row};
use crate::ui::timestamp::Timestamp;

#[component]
pub fn ThreadView(
    detail: Signal<ThreadDetail>,
    live: LiveRun,
    on_retry: Callback<()>,
    on_rule_revoked: Callback<String>,
    /// Asks for the messages before the first one shown (a long thread opens at its newest).
    on_earlier: Callback<()>,
    loading_earlier: Signal<bool>,
) -> impl IntoView {
    let title = move || detail.with(|d| d.thread.title.clone());
    let export =
        move |extension: &'static str| detail.with(|d| format!("/api/threads/{}/export.{extension}", d.thread.id));
    let imported = move || {
        detail.with(|d| d.thread.imported_at.clone()).map(|at| {
            view! {
                <p class="imported-note">
                    "Imported on " <Timestamp at/> ". Its decisions were made elsewhere and are not in this server's audit log."
                </p>
            }
        })
    };
    let earlier = move || {
        detail.with(|d| d.earlier).then(|| {
            view! {
                <button type="button" class="earlier-messages" on:click=move |_| on_earlier.run(())
                    disabled=move || loading_earlier.get()>
                    {move || if loading_earlier.get() { "Loading earlier messages…" } else { "Show earlier messages" }}
                </button>
            }
        })
    };
    let rules = Signal::derive(move || detail.with(|d| d.rules.clone()));
    // Read once: a thread becomes writable or read-only only when another one opens (a new view).
    let writable = detail.with_untracked(|d| d.writable);
    let own_tools = move || {
        writable.then(|| {
            let thread_id = detail.with_untracked(|d| d.thread.id.clone());
            view! {
                <RetitleButton detail/>
                <ShareControl thread_id/>
            }
        })
    };
    let entries = Arc::new(move || {
        let entries = detail.with(Entry::list);
        entries.into_iter().map(|entry| Row::new(entry.key(), move || entry.view(live))).collect()
    });
    // Keyed by what a card shows: a failed Connect's error redraws it with the error.
    let checks = Arc::new(move || {
        detail.with(|d| {
            let pending = d.connection_checks.iter().filter(|c| c.status == CheckStatus::Pending).cloned();
            pending
                .map(|check| {
                    Row::new((check.id.clone(), check.error.clone()), move || {
                        view! { <ConnectionCheckCard check/> }.into_any()
                    })
                })
                .collect()
        })
    });
    let failed = move || {
        detail.with(|d| d.last_error.clone().filter(|_| d.active_run.is_none())).map(|message| {
            view! {
                <div class="run-error" role="alert">
                    <p><strong>"The model failed: "</strong> {message}</p>
                    {writable.then(|| view! {
                        <button type="button" on:click=move |_| on_retry.run(()) disabled=move || live.run_id.get().is_some()>
                            "Retry"
                        </button>
                    })}
                </div>
            }
        })
    };

    view! {
        <div class="thread-head">
            <h1 class="thread-title" dir="auto">{title}</h1>
            {own_tools}
            {(!writable).then(|| view! { <span class="thread-read-only">"Read only"</span> })}
            <nav class="thread-export" aria-label="Export this thread">
                <a rel="external" download href=move || export("md")><IconSvg icon=Icon::Download/>"Export Markdown"</a>
                <a rel="external" download href=move || export("json")><IconSvg icon=Icon::Download/>"Export JSON"</a>
            </nav>
        </div>
        {imported}
        <RulesPanel rules on_revoked=on_rule_revoked/>
        {earlier}
        <ol class="messages" aria-label="Conversation" aria-live="polite" aria-relevant="additions">
            {keyed_list(entries)}
        </ol>
        <div class="connection-checks">
            {keyed_list(checks)}
        </div>
        {failed}
    }
}

/// Asks the thread's model for a new title; the heading and the sidebar show it.
#[component]
fn RetitleButton(detail: Signal<ThreadDetail>) -> impl IntoView {
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<crate::error::AppError>);
    let edited = use_context::<crate::context::ThreadEdited>();
    let changed = use_context::<crate::context::ThreadsChanged>();
    let retitle = move |_| {
        let id = detail.with_untracked(|d| d.thread.id.clone());
        busy.set(true);
        error.set(None);
        leptos::task::spawn_local(async move {
            match crate::server_fns::regenerate_title(id).await {
                Ok(thread) => {
                    if let Some(edited) = edited {
                        edited.0.try_set(Some(thread));
                    }
                    if let Some(changed) = changed {
                        changed.notify();
                    }
                }
                Err(e) => {
                    error.try_set(Some(e));
                }
            }
            busy.try_set(false);
        });
    };
    view! {
        <button type="button" class="retitle" disabled=move || busy.get() on:click=retitle>"Suggest a title"</button>
        {move || error.get().map(|error| view! { <crate::ui::error_notice::ErrorNotice error/> })}
    }
}

/// One row of the conversation.
#[allow(clippy::large_enum_variant)] // a handful of rows per page
#[derive(Debug, Clone)]
enum Entry {
    /// A message, with its other versions when it has any, and whether its run was stopped there.
    Message(Message, Option<BranchPoint>, bool),
    /// A tool call with its newest approval, if it was gated, and whether it waits for its MCP
    /// server (a connection check).
    Call(ToolCall, Option<Approval>, bool),
}

impl Entry {
    /// The rows in page order: each shown message followed by its calls, then any call whose
    /// message is not shown (they still belong on the page).
    fn list(detail: &ThreadDetail) -> Vec<Entry> {
        let call = |call: &ToolCall| {
            let approval = detail.approvals.iter().rev().find(|a| a.tool_call_id == call.id).cloned();
            let waits_for_server = call.status == ToolCallStatus::Pending
                && approval.is_none()
                && matches!(&call.origin, ToolOrigin::Mcp { server } if detail.connection_checks.iter().any(|c| {
                    c.status == CheckStatus::Pending && c.run_id == call.run_id && c.server == *server
                }));
            Entry::Call(call.clone(), approval, waits_for_server)
        };
        let shown: Vec<&Message> =
            detail.messages.iter().filter(|m| matches!(m.role, Role::User | Role::Assistant)).collect();
        let mut rows = Vec::with_capacity(shown.len() + detail.tool_calls.len());
        for message in &shown {
            // A turn of only tool calls has no words: its calls stand without an empty bubble.
            if message.role == Role::User || !message.content.trim().is_empty() {
                let versions = detail.branches.iter().find(|b| b.message_id == message.id).cloned();
                let stopped = detail.stopped_answers.contains(&message.id);
                rows.push(Entry::Message((*message).clone(), versions, stopped));
            }
            rows.extend(detail.tool_calls.iter().filter(|c| c.message_id == message.id).map(call));
        }
        rows.extend(detail.tool_calls.iter().filter(|c| !shown.iter().any(|m| m.id == c.message_id)).map(call));
        rows
    }

    /// The row's id and what of it can change: a stored message never changes; a call changes
    /// with its status (its output comes with a settled status) and with its approval, whose id
    /// changes when a changed target makes a new card, and whose votes and shown arguments change
    /// while it waits for a quorum. The same key means nothing on the row
    /// changed, so its DOM stays; a new key rebuilds just that row.
    fn key(&self) -> RowKey {
        match self {
            Entry::Message(message, versions, stopped) => RowKey {
                id: message.id.clone().to_string(),
                state: None,
                versions: versions.as_ref().map(|v| v.siblings.len()),
                stopped: *stopped,
            },
            Entry::Call(call, approval, waits_for_server) => RowKey {
                id: call.id.clone().to_string(),
                state: Some(CallState {
                    status: call.status,
                    approval: approval.as_ref().map(|a| (a.id.to_string(), a.status)),
                    progress: approval.as_ref().map(|a| {
                        let voters = a.votes.iter().map(|v| v.person.id.to_string()).collect();
                        (voters, a.arguments.to_string())
                    }),
                    waits_for_server: *waits_for_server,
                }),
                versions: None,
                stopped: false,
            },
        }
    }

    fn view(self, live: LiveRun) -> AnyView {
        match self {
            Entry::Message(message, versions, stopped) => view! { <MessageView message versions stopped/> }.into_any(),
            Entry::Call(call, approval, waits_for_server) => {
                view! { <ToolCallView call approval waits_for_server live/> }.into_any()
            }
        }
    }
}

/// See [`Entry::key`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct RowKey {
    id: String,
    state: Option<CallState>,
    /// How many versions a message has (a new one redraws its picker).
    versions: Option<usize>,
    /// The run was stopped at this answer (marked as cut off).
    stopped: bool,
}

/// What of a call's row redraws it when it changes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct CallState {
    status: ToolCallStatus,
    /// The approval shown on it, and where it stands.
    approval: Option<(String, ApprovalStatus)>,
    /// Who voted on it so far and the arguments it shows: a vote (with a quorum) or another approver's edit
    /// leaves it pending but redraws the card ("1 of 2 approvals", the edited arguments).
    progress: Option<(Vec<String>, String)>,
    /// It waits for its MCP server (a connection check).
    waits_for_server: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::RunEvent;

    /// A person's prompt, the model's turn with a gated shell call waiting for approval, and a call
    /// whose message is not among the shown ones.
    fn detail() -> ThreadDetail {
        let message = |id: &str, role: &str| serde_json::json!({"id": id, "run_id": "r", "role": role, "content": id, "blocks": [], "created_at": "2026-01-01T00:00:00Z"});
        let call = |id: &str, message_id: &str| {
            serde_json::json!({
                "id": id, "run_id": "r", "thread_id": "t", "message_id": message_id, "call_id": id, "name": "shell", "origin": {"kind": "built_in"},
                "arguments": {"command": "echo hi"}, "summary": "Run `echo hi`", "risk": "low", "needs_approval": true,
                "preview": null, "status": "pending", "output": null, "is_error": false, "truncated": false,
                "created_at": "2026-01-01T00:00:00Z", "finished_at": null
            })
        };
        serde_json::from_value(serde_json::json!({
            "id": "t", "title": "T", "archived": false, "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z",
            "messages": [message("m1", "user"), message("m2", "assistant"), message("m3", "tool")],
            "tool_calls": [call("orphan", "gone"), call("c1", "m2")],
            "approvals": [{
                "id": "a1", "run_id": "r", "thread_id": "t", "tool_call_id": "c1", "tool": "shell", "origin": {"kind": "built_in"},
                "arguments": {"command": "echo hi"}, "summary": "Run `echo hi`", "risk": "low", "preview": null,
                "status": "pending", "created_at": "2026-01-01T00:00:00Z", "decided_at": null, "expires_at": null,
                "decision": null
            }],
            "active_run": null,
            "last_error": null,
            "rules": [],
            "sandbox": {"available": true, "detail": "confined"}
        }))
        .expect("a thread detail")
    }

    fn keys(detail: &ThreadDetail) -> Vec<RowKey> {
        Entry::list(detail).iter().map(Entry::key).collect()
    }

    #[test]
    fn rows_are_messages_each_followed_by_its_calls_then_the_orphans() {
        let ids: Vec<String> = keys(&detail()).into_iter().map(|k| k.id).collect();
        assert_eq!(ids, ["m1", "m2", "c1", "orphan"]);
        let rows = Entry::list(&detail());
        assert!(matches!(&rows[2], Entry::Call(_, Some(approval), false) if approval.id == "a1"));
        assert!(matches!(&rows[3], Entry::Call(_, None, false)));
    }

    #[test]
    fn events_that_change_nothing_on_a_row_keep_every_key() {
        let shown = detail();
        let mut renamed = shown.clone();
        renamed.apply(&RunEvent::ThreadUpdated { thread_id: "t".into(), title: "Renamed".into() });
        assert_eq!(renamed.thread.title, "Renamed");
        assert_eq!(keys(&renamed), keys(&shown), "a row's key depends on the row alone");

        // The model's next message appends a row; the rows already shown keep theirs.
        let mut grown = shown.clone();
        let mut reply = grown.messages[1].clone();
        reply.id = "m4".into();
        grown.apply(&RunEvent::MessageStored { message: reply });
        let (before, after) = (keys(&shown), keys(&grown));
        assert_eq!(after.len(), before.len() + 1);
        assert!(before.iter().all(|k| after.contains(k)), "{before:?} -> {after:?}");
        assert!(after.iter().any(|k| k.id == "m4"));
    }

    #[test]
    fn a_decision_and_a_result_change_the_key_of_their_call_alone() {
        let shown = detail();
        let before = keys(&shown);
        let mut decided = shown.clone();
        let mut approval = decided.approvals[0].clone();
        approval.status = ApprovalStatus::Approved;
        let mut call = decided.tool_calls[1].clone();
        call.status = ToolCallStatus::Approved;
        decided.apply(&RunEvent::ApprovalResolved {
            approval_id: "a1".into(),
            tool_call_id: "c1".into(),
            decision: ApprovalStatus::Approved,
            arguments: call.arguments.clone(),
            approval,
            call: call.clone(),
            rule: None,
        });
        let after = keys(&decided);
        assert_eq!((&before[..2], &before[3]), (&after[..2], &after[3]));
        assert_ne!(before[2], after[2]);
        assert_eq!(before[2].id, after[2].id);

        call.status = ToolCallStatus::Done;
        call.output = Some(vec![crate::model::ToolContent::Text { text: "hi".into() }]);
        let mut ran = decided.clone();
        ran.apply(&RunEvent::ToolResult {
            tool_call_id: "c1".into(),
            output: "hi".into(),
            is_error: false,
            truncated: false,
            call,
        });
        let done = keys(&ran);
        assert_ne!(after[2], done[2], "the result is on its row");
        assert_eq!((&after[..2], &after[3]), (&done[..2], &done[3]));
    }

    #[test]
    fn a_vote_or_an_approvers_edit_on_a_waiting_card_changes_its_key_alone() {
        use warden_types::person::{ActingPerson, Role};
        use warden_types::policy::Vote;
        let shown = detail();
        let before = keys(&shown);
        let mut voted = shown.clone();
        let mut approval = voted.approvals[0].clone();
        let ann = ActingPerson { id: "ann".into(), name: "Ann".into(), role: Role::Approver };
        approval.votes.push(Vote { person: ann, verdict: crate::model::Verdict::Approve, at: "now".into(), via: None });
        voted.apply(&RunEvent::ApprovalRequest { approval: approval.clone() });
        let after = keys(&voted);
        assert_ne!(before[2], after[2], "the card redraws with \"1 of 2 approvals\"");
        assert_eq!((&before[..2], &before[3]), (&after[..2], &after[3]));

        let mut edited = voted.clone();
        approval.votes.clear();
        approval.arguments = serde_json::json!({"command": "echo edited"});
        edited.apply(&RunEvent::ApprovalRequest { approval });
        assert_ne!(keys(&edited)[2], after[2], "the card shows the edited arguments");
    }
}
