//! The stored part of a chat page: title, the thread's rules, the conversation (messages, each
//! followed by its tool calls and their approvals) and the last error with Retry.
//!
//! The page refetches the thread whenever its run stores something, so the conversation is a
//! keyed list: an entry keeps its DOM (an open `<details>`, text half-typed into an approval
//! card, the focus) until something it shows changes.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use leptos::prelude::*;

use crate::components::message_view::MessageView;
use crate::components::rules_panel::RulesPanel;
use crate::components::tool_call_view::ToolCallView;
use crate::live_run::LiveRun;
use crate::model::{Approval, Role, StoredMessage as Message, ThreadDetail, ToolCallRecord as ToolCall};

#[component]
pub fn ThreadView(
    detail: Signal<ThreadDetail>,
    live: LiveRun,
    on_retry: Callback<()>,
    on_change: Callback<()>,
) -> impl IntoView {
    let title = move || detail.with(|d| d.thread.title.clone());
    let rules = Signal::derive(move || detail.with(|d| d.rules.clone()));
    let entries = move || detail.with(Entry::list);
    let failed = move || {
        detail.with(|d| d.last_error.clone().filter(|_| d.active_run.is_none())).map(|message| {
            view! {
                <div class="run-error" role="alert">
                    <p><strong>"The model failed: "</strong> {message}</p>
                    <button type="button" on:click=move |_| on_retry.run(()) disabled=move || live.run_id.get().is_some()>
                        "Retry"
                    </button>
                </div>
            }
        })
    };

    view! {
        <h1 class="thread-title">{title}</h1>
        <RulesPanel rules on_change/>
        <ol class="messages" aria-label="Conversation">
            <For each=entries key=Entry::key children=move |entry| entry.view(live, on_change)/>
        </ol>
        {failed}
    }
}

/// One row of the conversation.
#[allow(clippy::large_enum_variant)] // a handful of rows per page
#[derive(Debug, Clone)]
enum Entry {
    Message(Message),
    /// A tool call with its newest approval, if it was gated.
    Call(ToolCall, Option<Approval>),
}

impl Entry {
    /// The rows in page order: each shown message followed by its calls, then any call whose
    /// message is not shown (they still belong on the page).
    fn list(detail: &ThreadDetail) -> Vec<Entry> {
        let call = |call: &ToolCall| {
            let approval = detail.approvals.iter().rev().find(|a| a.tool_call_id == call.id).cloned();
            Entry::Call(call.clone(), approval)
        };
        let shown: Vec<&Message> =
            detail.messages.iter().filter(|m| matches!(m.role, Role::User | Role::Assistant)).collect();
        let mut rows = Vec::with_capacity(shown.len() + detail.tool_calls.len());
        for message in &shown {
            rows.push(Entry::Message((*message).clone()));
            rows.extend(detail.tool_calls.iter().filter(|c| c.message_id == message.id).map(call));
        }
        rows.extend(detail.tool_calls.iter().filter(|c| !shown.iter().any(|m| m.id == c.message_id)).map(call));
        rows
    }

    /// The row's id and a digest of everything it shows: the same key means nothing on the row
    /// changed, so its DOM stays; a new key rebuilds just that row.
    fn key(&self) -> (String, u64) {
        let (id, shown) = match self {
            Entry::Message(message) => (&message.id, serde_json::to_string(message)),
            Entry::Call(call, approval) => (&call.id, serde_json::to_string(&(call, approval))),
        };
        let mut digest = DefaultHasher::new();
        shown.unwrap_or_default().hash(&mut digest);
        (id.clone(), digest.finish())
    }

    fn view(self, live: LiveRun, on_change: Callback<()>) -> AnyView {
        match self {
            Entry::Message(message) => view! { <MessageView message/> }.into_any(),
            Entry::Call(call, approval) => view! { <ToolCallView call approval live on_change/> }.into_any(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ApprovalStatus;

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

    fn keys(detail: &ThreadDetail) -> Vec<(String, u64)> {
        Entry::list(detail).iter().map(Entry::key).collect()
    }

    #[test]
    fn rows_are_messages_each_followed_by_its_calls_then_the_orphans() {
        let ids: Vec<String> = keys(&detail()).into_iter().map(|(id, _)| id).collect();
        assert_eq!(ids, ["m1", "m2", "c1", "orphan"]);
        let rows = Entry::list(&detail());
        assert!(matches!(&rows[2], Entry::Call(_, Some(approval)) if approval.id == "a1"));
        assert!(matches!(&rows[3], Entry::Call(_, None)));
    }

    /// The thread as the page gets it again from `get_thread`: sent as JSON, read back.
    fn refetched(detail: &ThreadDetail) -> ThreadDetail {
        let wire = serde_json::to_string(detail).expect("a detail serializes");
        serde_json::from_str(&wire).expect("and reads back")
    }

    #[test]
    fn a_refetch_that_changed_nothing_on_the_rows_keeps_every_key() {
        let shown = detail();
        assert_eq!(keys(&refetched(&shown)), keys(&shown), "the same records over the wire give the same keys");

        // What a rename in the sidebar refetches: the thread changed, none of its rows did.
        let mut renamed = refetched(&shown);
        renamed.thread.title = "Renamed".into();
        renamed.thread.updated_at = "2026-01-02T00:00:00Z".into();
        assert_eq!(keys(&renamed), keys(&shown), "a row's key depends on the row alone");

        // A new message appends a row; the rows already shown keep theirs.
        let mut grown = refetched(&shown);
        let mut reply = grown.messages[1].clone();
        reply.id = "m4".into();
        reply.content = "one more".into();
        grown.messages.push(reply);
        let (before, after) = (keys(&shown), keys(&grown));
        assert_eq!(after.len(), before.len() + 1);
        assert_eq!(after.iter().filter(|k| before.contains(k)).count(), before.len(), "{before:?} -> {after:?}");
    }

    #[test]
    fn only_the_row_that_changed_gets_a_new_key() {
        let before = keys(&detail());
        let mut decided = detail();
        decided.approvals[0].status = ApprovalStatus::Approved;
        let after = keys(&decided);
        assert_eq!(before[..2], after[..2]);
        assert_ne!(before[2], after[2]);
        assert_eq!(before[2].0, after[2].0);
        assert_eq!(before[3], after[3]);

        let mut ran = detail();
        ran.tool_calls[1].output = Some(vec![crate::model::ToolContent::Text { text: "hi".into() }]);
        let after = keys(&ran);
        assert_ne!(before[2], after[2], "a call's output is on its row");
        assert_eq!([&before[..2], &before[3..]], [&after[..2], &after[3..]]);
    }
}
