//! A thread out of Warden and back: the JSON export (everything the page shows, as records), the
//! Markdown export (for people to read), and the checks an import must pass before the store writes
//! it (`store::import`) under new ids.

use std::collections::{HashMap, HashSet};

use crate::error::{Error, Result};
use crate::input;
use warden_types::approval::{Approval, ApprovalStatus, DecidedBy};
use warden_types::id::MessageId;
use warden_types::message::Role;
use warden_types::run::ToolCallRecord;
use warden_types::thread::{StoredMessage, Thread, ThreadExport, THREAD_EXPORT_FORMAT};

/// The most messages an import may hold.
pub const MAX_IMPORT_MESSAGES: usize = 20_000;

/// The JSON export of a thread as it stands: every branch, and which one is shown (`head_id`).
pub fn export(
    thread: Thread,
    messages: Vec<(StoredMessage, Option<MessageId>)>,
    tool_calls: Vec<ToolCallRecord>,
    approvals: Vec<Approval>,
    head_id: Option<MessageId>,
    exported_at: String,
) -> ThreadExport {
    let parents = messages.iter().filter_map(|(m, parent)| Some((m.id.clone(), parent.clone()?))).collect();
    ThreadExport {
        format: THREAD_EXPORT_FORMAT.to_string(),
        exported_at,
        // Records: no rendered HTML (it is made from the blocks wherever the thread is read).
        messages: messages.into_iter().map(|(m, _)| m).collect(),
        tool_calls,
        approvals,
        thread,
        head_id,
        parents,
    }
}

/// Each message's parent as the import writes it: from `parents` (with a head), else the message
/// before it (a file from before branches).
pub fn parent_of(export: &ThreadExport, index: usize) -> Option<&MessageId> {
    if export.head_id.is_some() {
        export.parents.get(&export.messages[index].id)
    } else {
        index.checked_sub(1).map(|i| &export.messages[i].id)
    }
}

/// The messages of the branch shown, first to last.
pub fn shown_branch(export: &ThreadExport) -> Vec<&StoredMessage> {
    let Some(head) = export.head_id.as_ref() else { return export.messages.iter().collect() };
    let by_id: HashMap<&MessageId, &StoredMessage> = export.messages.iter().map(|m| (&m.id, m)).collect();
    let mut branch = Vec::new();
    let mut next = Some(head);
    // At most one step per message: `check_import` has made sure parents come first (no cycle).
    while let Some(id) = next.filter(|_| branch.len() < export.messages.len()) {
        let Some(m) = by_id.get(id) else { break };
        branch.push(*m);
        next = export.parents.get(id);
    }
    branch.reverse();
    branch
}

/// What an import may be: this format, ids that are unique and refer to records in the file, and a
/// title a person could have typed. Answers the title to give the new thread.
pub fn check_import(export: &ThreadExport) -> Result<String> {
    let invalid = |why: String| Err(Error::Invalid(format!("this is not a thread export Warden can import: {why}")));
    if export.format != THREAD_EXPORT_FORMAT {
        return invalid(format!("its format is `{}`, not `{THREAD_EXPORT_FORMAT}`", export.format));
    }
    if export.messages.len() > MAX_IMPORT_MESSAGES {
        return invalid(format!("it has more than {MAX_IMPORT_MESSAGES} messages"));
    }
    let mut messages = HashSet::new();
    for m in &export.messages {
        // A parent comes first: the tree is written in order and can hold no cycle.
        if let Some(parent) = export.head_id.as_ref().and(export.parents.get(&m.id)) {
            if !messages.contains(parent) {
                return invalid(format!("message `{}` comes before its parent `{parent}` or has none in it", m.id));
            }
        }
        if !messages.insert(&m.id) {
            return invalid(format!("message `{}` is in it twice", m.id));
        }
        if m.role == Role::System {
            return invalid("it holds a system message".into());
        }
    }
    if let Some(head) = export.head_id.as_ref().filter(|h| !messages.contains(h)) {
        return invalid(format!("its shown branch ends at `{head}`, which is not in it"));
    }
    if let Some(orphan) = export.parents.keys().find(|id| !messages.contains(id)) {
        return invalid(format!("it names a parent for `{orphan}`, which is not in it"));
    }
    let mut calls = HashSet::new();
    for c in &export.tool_calls {
        if !calls.insert(c.id.as_str()) {
            return invalid(format!("tool call `{}` is in it twice", c.id));
        }
        if !messages.contains(&c.message_id) {
            return invalid(format!("tool call `{}` belongs to a message that is not in it", c.id));
        }
    }
    for a in &export.approvals {
        if !calls.contains(a.tool_call_id.as_str()) {
            return invalid(format!("approval `{}` is for a tool call that is not in it", a.id));
        }
    }
    let title = export.thread.title.trim();
    input::title(if title.is_empty() { "Imported chat" } else { title })
}

/// The thread for people to read: the conversation in order, each tool call with what it did, how it
/// was decided and what it answered.
pub fn markdown(export: &ThreadExport) -> String {
    let mut out = format!("# {}\n\n", export.thread.title.trim());
    out.push_str(&format!("_Exported from Warden on {}._\n", export.exported_at));
    for m in shown_branch(export) {
        let who = match m.role {
            Role::User => "You",
            Role::Assistant => "Warden",
            Role::Tool | Role::System => continue,
        };
        let text = m.content.trim();
        let calls: Vec<&ToolCallRecord> = export.tool_calls.iter().filter(|c| c.message_id == m.id).collect();
        if text.is_empty() && calls.is_empty() {
            continue;
        }
        out.push_str(&format!("\n## {who} · {}\n\n", m.created_at));
        if !text.is_empty() {
            out.push_str(text);
            out.push('\n');
        }
        for call in calls {
            out.push_str(&call_markdown(call, export.approvals.iter().filter(|a| a.tool_call_id == call.id)));
        }
    }
    out
}

fn call_markdown<'a>(call: &ToolCallRecord, approvals: impl Iterator<Item = &'a Approval>) -> String {
    let mut out = format!("\n> **Tool call:** `{}`: {}\n", call.name, call.summary.replace('\n', " "));
    let arguments = serde_json::to_string_pretty(&call.arguments).unwrap_or_default();
    out.push_str(&fenced(&arguments, "json"));
    // Each on a paragraph of its own (a blank quoted line between): consecutive quoted lines would be one
    // paragraph in Markdown, decision, status and result run together.
    for approval in approvals {
        out.push_str(&format!("> **Decision:** {}\n>\n", decision_words(approval)));
    }
    out.push_str(&format!("> **Status:** {}\n>\n", <&str>::from(call.status).replace('_', " ")));
    if let Some(output) = call.output_text().filter(|o| !o.trim().is_empty()) {
        out.push_str("> **Result:**\n");
        out.push_str(&fenced(&output, ""));
    }
    out
}

/// A block quoted and fenced with more backticks than it holds, so nothing in it ends the fence.
fn fenced(text: &str, language: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let mut out = format!(">\n> {fence}{language}\n");
    for line in text.lines() {
        out.push_str(&format!("> {line}\n"));
    }
    out.push_str(&format!("> {fence}\n>\n"));
    out
}

fn decision_words(approval: &Approval) -> String {
    let verdict = match approval.status {
        ApprovalStatus::Pending => return "waiting".into(),
        ApprovalStatus::Approved => "approved",
        ApprovalStatus::Denied => "denied",
        ApprovalStatus::TimedOut => return "timed out: nobody decided in time".into(),
        ApprovalStatus::Cancelled => return "cancelled before a decision".into(),
        ApprovalStatus::Superseded => {
            return match approval.decision.as_ref().map(|d| &d.by) {
                Some(DecidedBy::RuleRevoked { .. }) => "replaced: the thread rule that allowed it was revoked".into(),
                _ => "replaced: the target changed after the card was shown".into(),
            }
        }
    };
    let by = match approval.decision.as_ref().map(|d| &d.by) {
        Some(DecidedBy::User { reason: Some(reason), .. }) if !reason.is_empty() => format!(" by a person: {reason}"),
        Some(DecidedBy::User { .. }) => " by a person".into(),
        Some(DecidedBy::Rule { .. }) => " by a thread rule".into(),
        _ => String::new(),
    };
    let at = approval.decided_at.as_deref().map(|t| format!(" at {t}")).unwrap_or_default();
    format!("{verdict}{by}{at}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fence_is_longer_than_any_run_of_backticks_inside() {
        let block = fenced("a ```` b", "");
        assert!(block.contains("> `````\n"), "{block}");
        assert!(fenced("plain", "json").contains("> ```json\n> plain\n> ```\n"));
    }
}
