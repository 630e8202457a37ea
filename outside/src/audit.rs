//! The audit log on the server: every decided approval from Warden's chats (the engine) and from
//! outside clients (the outside hub), merged newest decision first into one list of
//! [`AuditEntry`]s, filtered by source, outcome and who decided, and paged by a cursor. The
//! `/audit` page's server function (in the UI crate) and the export routes (`GET /api/audit.jsonl`, `.csv`) both
//! read it here; each source is asked only for what the filter lets through, so a page is exact.

use std::collections::HashMap;
use warden_types::id::RuleId;

use serde_json::Value;
use similar::{ChangeTag, TextDiff};
use warden_engine::Engine;
use warden_types::approval::{Approval, ApprovalStatus, DecidedBy, DecidedByKind, Scope, ThreadRule};
use warden_types::audit::{
    AuditDecider, AuditEntry, AuditFilter, AuditOutcome, AuditPage, AuditQuery, AuditRow, AuditSource, DiffChange,
    DiffLine,
};
use warden_types::cursor::AuditCursor;
use warden_types::tool::{Preview, ToolOrigin};
use warden_types::ErrorKind;

use crate::protocol::{ClientFrame, DeciderKind};
use crate::{OutsideHub, OutsideRequest, RequestStatus};

/// Entries on a page unless the query says otherwise, and the most it may ask for.
pub const DEFAULT_LIMIT: u32 = 50;
pub const MAX_LIMIT: u32 = 500;
/// Lines of context around each changed part of a diff.
const DIFF_CONTEXT: usize = 3;
/// Texts longer than this (on either side) are not diffed: a page has up to 500 rows.
pub const MAX_DIFF_BYTES: usize = 64 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    #[error(transparent)]
    Engine(#[from] warden_engine::Error),
    #[error(transparent)]
    Outside(#[from] crate::Error),
}

impl AuditError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            AuditError::Engine(e) => e.kind(),
            AuditError::Outside(e) => e.kind(),
        }
    }

    /// The API's machine-readable code for this error (docs/API.md).
    pub fn code(&self) -> &'static str {
        match self {
            AuditError::Engine(e) => e.code(),
            AuditError::Outside(e) => e.code(),
        }
    }
}

/// Both sources of decisions. Cheap to clone.
#[derive(Clone)]
pub struct AuditLog {
    engine: Engine,
    outside: OutsideHub,
}

impl AuditLog {
    pub fn new(engine: Engine, outside: OutsideHub) -> Self {
        Self { engine, outside }
    }

    /// Up to `limit` entries matching `filter`, decided before `before`, newest first; and where
    /// the next page starts, if there are more.
    pub async fn entries(
        &self,
        filter: &AuditFilter,
        before: Option<&AuditCursor>,
        limit: u32,
    ) -> Result<(Vec<AuditEntry>, Option<AuditCursor>), AuditError> {
        let limit = limit.clamp(1, MAX_LIMIT);
        // One more than asked from each source says whether anything is left after this page (the
        // sources take up to 1,000, so a page of MAX_LIMIT still gets its one more).
        let chat = match chat_filter(filter) {
            Some((status, by)) => {
                let approvals = self.engine.decided_approvals(status, by, before, limit + 1).await?;
                let rules = self.rules_of(&approvals).await?;
                approvals.iter().filter_map(|a| chat_entry(a, &rules)).collect()
            }
            None => Vec::new(),
        };
        let outside = match outside_filter(filter) {
            Some((status, by)) => {
                let requests = self.outside.decisions(status, by, before, limit + 1).await?;
                requests.iter().filter_map(outside_entry).collect()
            }
            None => Vec::new(),
        };
        let (entries, more) = merge(chat, outside, limit as usize);
        let next = if more { entries.last().map(|e| AuditCursor::new(&e.decided_at, &e.id)) } else { None };
        Ok((entries, next))
    }

    /// One page for the `/audit` page: the entries with each person's edit as a diff.
    pub async fn page(&self, query: &AuditQuery) -> Result<AuditPage, AuditError> {
        let limit = query.limit.unwrap_or(DEFAULT_LIMIT);
        let (entries, next) = self.entries(&query.filter(), query.before.as_ref(), limit).await?;
        let rows = entries.into_iter().map(|entry| AuditRow { diff: edit_diff(&entry), entry }).collect();
        Ok(AuditPage { rows, next })
    }

    /// The thread rules that decided any of `approvals`, by id (`None`: revoked since).
    async fn rules_of(&self, approvals: &[Approval]) -> Result<HashMap<RuleId, Option<ThreadRule>>, AuditError> {
        let mut rules = HashMap::new();
        for approval in approvals {
            if let Some(DecidedBy::Rule { rule_id }) = approval.decision.as_ref().map(|d| &d.by) {
                if !rules.contains_key(rule_id) {
                    rules.insert(rule_id.clone(), self.engine.rule(rule_id).await?);
                }
            }
        }
        Ok(rules)
    }
}

/// What to ask the engine for (status, decided by), or `None` when no chat decision can match.
fn chat_filter(filter: &AuditFilter) -> Option<(Option<ApprovalStatus>, Option<DecidedByKind>)> {
    if filter.source.is_some_and(|s| s != AuditSource::Chat) {
        return None;
    }
    let status = filter.outcome.map(|o| match o {
        AuditOutcome::Approved => ApprovalStatus::Approved,
        AuditOutcome::Denied => ApprovalStatus::Denied,
        AuditOutcome::TimedOut => ApprovalStatus::TimedOut,
        AuditOutcome::Cancelled => ApprovalStatus::Cancelled,
        AuditOutcome::Superseded => ApprovalStatus::Superseded,
    });
    let by = match filter.decided_by {
        None => None,
        Some(AuditDecider::Person) => Some(DecidedByKind::User),
        Some(AuditDecider::Rule) => Some(DecidedByKind::Rule),
        Some(AuditDecider::Timeout) => Some(DecidedByKind::Timeout),
        Some(AuditDecider::RunStopped) => Some(DecidedByKind::RunStopped),
        Some(AuditDecider::TargetChanged) => Some(DecidedByKind::TargetChanged),
        Some(AuditDecider::RuleRevoked) => Some(DecidedByKind::RuleRevoked),
        Some(AuditDecider::Policy | AuditDecider::CallEnded) => return None,
    };
    Some((status, by))
}

/// What to ask the outside hub for, or `None` when no outside decision can match.
fn outside_filter(filter: &AuditFilter) -> Option<(Option<RequestStatus>, Option<DeciderKind>)> {
    if filter.source.is_some_and(|s| s != AuditSource::Outside) {
        return None;
    }
    let status = match filter.outcome {
        None => None,
        Some(AuditOutcome::Approved) => Some(RequestStatus::Approved),
        Some(AuditOutcome::Denied) => Some(RequestStatus::Rejected),
        Some(AuditOutcome::TimedOut) => Some(RequestStatus::Expired),
        Some(AuditOutcome::Cancelled | AuditOutcome::Superseded) => return None,
    };
    let by = match filter.decided_by {
        None => None,
        Some(AuditDecider::Person) => Some(DeciderKind::Person),
        Some(AuditDecider::Policy) => Some(DeciderKind::Policy),
        Some(AuditDecider::Timeout) => Some(DeciderKind::Timeout),
        Some(AuditDecider::CallEnded) => Some(DeciderKind::CallEnded),
        Some(
            AuditDecider::Rule | AuditDecider::RunStopped | AuditDecider::TargetChanged | AuditDecider::RuleRevoked,
        ) => return None,
    };
    Some((status, by))
}

/// The newest `limit` of two lists that are each newest first, and whether any are left over.
fn merge(chat: Vec<AuditEntry>, outside: Vec<AuditEntry>, limit: usize) -> (Vec<AuditEntry>, bool) {
    let key = |e: &AuditEntry| (e.decided_at.clone(), e.id.clone());
    let total = chat.len() + outside.len();
    let (mut chat, mut outside) = (chat.into_iter().peekable(), outside.into_iter().peekable());
    let mut merged = Vec::with_capacity(limit.min(total));
    while merged.len() < limit {
        let take_chat = match (chat.peek(), outside.peek()) {
            (Some(c), Some(o)) => key(c) >= key(o),
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        merged.extend(if take_chat { chat.next() } else { outside.next() });
    }
    let more = total > merged.len();
    (merged, more)
}

/// A decided chat approval as an entry (`None` while it is pending).
fn chat_entry(a: &Approval, rules: &HashMap<RuleId, Option<ThreadRule>>) -> Option<AuditEntry> {
    let outcome = match a.status {
        ApprovalStatus::Pending => return None,
        ApprovalStatus::Approved => AuditOutcome::Approved,
        ApprovalStatus::Denied => AuditOutcome::Denied,
        ApprovalStatus::TimedOut => AuditOutcome::TimedOut,
        ApprovalStatus::Cancelled => AuditOutcome::Cancelled,
        ApprovalStatus::Superseded => AuditOutcome::Superseded,
    };
    let (decided_by, how, reason, edited) = match a.decision.as_ref().map(|d| &d.by) {
        Some(DecidedBy::User { edited_arguments, reason, scope, network, votes }) => {
            // The people in the order they voted, and the policy that routed it (chats' approvals).
            let mut how =
                warden_types::policy::who_decided(votes, a.route.as_ref()).unwrap_or_else(|| "a person".into());
            if edited_arguments.is_some() {
                how.push_str(", after editing the arguments");
            }
            if *scope == Scope::Thread {
                how.push_str(", allowing such calls for the rest of the thread");
            }
            if *network {
                how.push_str(", with network access");
            }
            (AuditDecider::Person, how, reason.clone(), edited_arguments.clone())
        }
        Some(DecidedBy::Rule { rule_id }) => {
            let how = match rules.get(rule_id) {
                Some(Some(rule)) => format!("thread rule: {} ({})", rule.tool, rule.matcher.describe()),
                _ => format!("thread rule {rule_id} (revoked since)"),
            };
            (AuditDecider::Rule, how, None, None)
        }
        Some(DecidedBy::Timeout) => (AuditDecider::Timeout, "nobody decided in time".to_string(), None, None),
        Some(DecidedBy::RunStopped) => {
            (AuditDecider::RunStopped, "the run was stopped before anyone decided".to_string(), None, None)
        }
        Some(DecidedBy::TargetChanged { replaced_by }) => (
            AuditDecider::TargetChanged,
            format!("what it would change changed after it was shown; approval {replaced_by} replaced it"),
            None,
            None,
        ),
        Some(DecidedBy::RuleRevoked { rule_id, replaced_by }) => (
            AuditDecider::RuleRevoked,
            format!(
                "thread rule {rule_id} cleared it but was revoked before it started; approval {replaced_by} asked \
                 again"
            ),
            None,
            None,
        ),
        // Decided rows always carry their decision; one without is shown, not hidden.
        None => (AuditDecider::Person, "unknown (no decision was recorded)".to_string(), None, None),
    };
    let what = match &a.origin {
        ToolOrigin::BuiltIn => a.tool.clone(),
        ToolOrigin::Mcp { server } => format!("{} (MCP server {server})", a.tool),
    };
    let code = match &a.preview {
        Some(Preview::Command { command }) => Some(command.clone()),
        _ => None,
    };
    Some(AuditEntry {
        id: a.id.to_string(),
        source: AuditSource::Chat,
        created_at: a.created_at.clone(),
        decided_at: a.decided_at.clone().unwrap_or_else(|| a.created_at.clone()),
        outcome,
        decided_by,
        how,
        reason,
        what,
        summary: a.summary.clone(),
        risk: Some(a.risk.label().to_string()),
        thread_id: Some(a.thread_id.clone()),
        run_id: Some(a.run_id.clone()),
        client_id: None,
        client_name: None,
        arguments: a.arguments.clone(),
        code,
        edited,
    })
}

/// A decided outside request as an entry (`None` while it is pending).
fn outside_entry(r: &OutsideRequest) -> Option<AuditEntry> {
    let outcome = match r.status {
        RequestStatus::Pending => return None,
        RequestStatus::Approved => AuditOutcome::Approved,
        RequestStatus::Rejected => AuditOutcome::Denied,
        RequestStatus::Expired => AuditOutcome::TimedOut,
    };
    let decision = r.decision.as_ref()?;
    let (decided_by, how) = match decision.decided_by.kind {
        DeciderKind::Person => {
            // The people who voted, in order, and the policy that routed it (decisions from before votes
            // were kept name nobody).
            let mut how =
                warden_types::policy::who_decided(&r.votes, r.route.as_ref()).unwrap_or_else(|| "a person".to_string());
            if decision.edited_code.is_some() {
                how.push_str(", after editing the code");
            }
            (AuditDecider::Person, how)
        }
        DeciderKind::Policy => (AuditDecider::Policy, decision.decided_by.detail.clone()),
        DeciderKind::Timeout => (AuditDecider::Timeout, decision.decided_by.detail.clone()),
        DeciderKind::CallEnded => (AuditDecider::CallEnded, decision.decided_by.detail.clone()),
    };
    let (summary, code) = match &r.request {
        ClientFrame::SecurityEvaluation(e) => (e.explanation.clone(), Some(e.code.clone())),
        ClientFrame::CodeResponse(c) => {
            let exit = c.exit_code.map_or("exit code unknown".to_string(), |code| format!("exit code {code}"));
            (format!("output to pass on ({exit})"), Some(c.stdout.clone()))
        }
    };
    Some(AuditEntry {
        id: r.id.to_string(),
        source: AuditSource::Outside,
        created_at: r.created_at.clone(),
        decided_at: r.decided_at.clone().unwrap_or_else(|| r.created_at.clone()),
        outcome,
        decided_by,
        how,
        reason: decision.reason.clone(),
        what: r.kind.to_string(),
        summary,
        risk: r.risk.map(|risk| risk.to_string()),
        thread_id: None,
        run_id: None,
        client_id: Some(r.client_id.clone()),
        client_name: Some(r.client_name.clone()),
        arguments: serde_json::to_value(&r.request).unwrap_or(Value::Null),
        code,
        edited: decision.edited_code.clone().map(Value::String),
    })
}

/// What the person changed, line by line: the code (outside), or each argument they changed
/// (chat; a string argument such as a file's content is diffed as text). A text above
/// [`MAX_DIFF_BYTES`] on either side is not compared; a line says so.
pub fn edit_diff(entry: &AuditEntry) -> Vec<DiffLine> {
    let Some(edited) = &entry.edited else { return Vec::new() };
    if entry.source == AuditSource::Outside {
        let code = entry.arguments.get("code").and_then(Value::as_str).unwrap_or_default();
        return capped_diff(code, edited.as_str().unwrap_or_default());
    }
    match (&entry.arguments, edited) {
        (Value::Object(before), Value::Object(after)) => {
            // By name: the same order whichever order the JSON was written in (and whether serde_json
            // keeps that order, which it does when a crate of the build asks for `preserve_order`).
            let mut keys: Vec<&String> = before.keys().collect();
            keys.extend(after.keys().filter(|k| !before.contains_key(*k)));
            keys.sort();
            let mut lines = Vec::new();
            for key in keys {
                let (old, new) = (before.get(key), after.get(key));
                if old != new {
                    lines.push(DiffLine { change: DiffChange::Field, text: key.clone() });
                    lines.extend(value_diff(old, new));
                }
            }
            lines
        }
        (before, after) => value_diff(Some(before), Some(after)),
    }
}

fn value_diff(old: Option<&Value>, new: Option<&Value>) -> Vec<DiffLine> {
    let text = |v: Option<&Value>| match v {
        None => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => serde_json::to_string_pretty(other).unwrap_or_default(),
    };
    capped_diff(&text(old), &text(new))
}

/// [`text_diff`], unless a side is above [`MAX_DIFF_BYTES`]: then one line saying so.
fn capped_diff(old: &str, new: &str) -> Vec<DiffLine> {
    if old.len() <= MAX_DIFF_BYTES && new.len() <= MAX_DIFF_BYTES {
        return text_diff(old, new);
    }
    let kib = |text: &str| text.len().div_ceil(1024);
    vec![DiffLine {
        change: DiffChange::Same,
        text: format!(
            "Changed; too long to compare here ({} KiB before, {} KiB after; the log compares up to {} KiB a side).",
            kib(old),
            kib(new),
            MAX_DIFF_BYTES / 1024
        ),
    }]
}

/// A line diff with a few lines of context around each change; `…` where unchanged lines are left out.
fn text_diff(old: &str, new: &str) -> Vec<DiffLine> {
    let diff = TextDiff::from_lines(old, new);
    let mut lines = Vec::new();
    for (i, group) in diff.grouped_ops(DIFF_CONTEXT).iter().enumerate() {
        if i > 0 {
            lines.push(DiffLine { change: DiffChange::Same, text: "…".to_string() });
        }
        for op in group {
            for change in diff.iter_changes(op) {
                let change_kind = match change.tag() {
                    ChangeTag::Equal => DiffChange::Same,
                    ChangeTag::Delete => DiffChange::Removed,
                    ChangeTag::Insert => DiffChange::Added,
                };
                let text = change.value().strip_suffix('\n').unwrap_or(change.value());
                lines.push(DiffLine { change: change_kind, text: text.to_string() });
            }
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(source: AuditSource, decided_at: &str, id: &str) -> AuditEntry {
        AuditEntry {
            id: id.into(),
            source,
            created_at: decided_at.into(),
            decided_at: decided_at.into(),
            outcome: AuditOutcome::Approved,
            decided_by: AuditDecider::Person,
            how: "a person".into(),
            reason: None,
            what: "shell".into(),
            summary: String::new(),
            risk: None,
            thread_id: None,
            run_id: None,
            client_id: None,
            client_name: None,
            arguments: Value::Null,
            code: None,
            edited: None,
        }
    }

    fn ids(entries: &[AuditEntry]) -> Vec<&str> {
        entries.iter().map(|e| e.id.as_str()).collect()
    }

    #[test]
    fn merging_interleaves_newest_first_and_says_whether_more_are_left() {
        let chat = vec![
            entry(AuditSource::Chat, "2026-01-01T00:00:05.000Z", "c3"),
            entry(AuditSource::Chat, "2026-01-01T00:00:02.000Z", "c2"),
            entry(AuditSource::Chat, "2026-01-01T00:00:01.000Z", "c1"),
        ];
        let outside = vec![
            entry(AuditSource::Outside, "2026-01-01T00:00:04.000Z", "o2"),
            // Same instant as c2: the larger id comes first, on both sides of a page boundary alike.
            entry(AuditSource::Outside, "2026-01-01T00:00:02.000Z", "o1"),
        ];
        let (page, more) = merge(chat.clone(), outside.clone(), 3);
        assert_eq!((ids(&page), more), (vec!["c3", "o2", "o1"], true));
        let (page, more) = merge(chat, outside, 10);
        assert_eq!((ids(&page), more), (vec!["c3", "o2", "o1", "c2", "c1"], false));
    }

    #[test]
    fn a_filter_that_one_source_cannot_match_skips_that_source() {
        let policy = AuditFilter { decided_by: Some(AuditDecider::Policy), ..AuditFilter::default() };
        assert!(chat_filter(&policy).is_none());
        assert_eq!(outside_filter(&policy), Some((None, Some(DeciderKind::Policy))));
        let stopped = AuditFilter { outcome: Some(AuditOutcome::Cancelled), ..AuditFilter::default() };
        assert!(outside_filter(&stopped).is_none());
        assert_eq!(chat_filter(&stopped), Some((Some(ApprovalStatus::Cancelled), None)));
        let chats = AuditFilter { source: Some(AuditSource::Chat), ..AuditFilter::default() };
        assert!(outside_filter(&chats).is_none());
        let denied = AuditFilter { outcome: Some(AuditOutcome::Denied), ..AuditFilter::default() };
        assert_eq!(outside_filter(&denied), Some((Some(RequestStatus::Rejected), None)));
    }

    #[test]
    fn an_edited_argument_is_diffed_as_text_and_only_changed_fields_are_shown() {
        let mut e = entry(AuditSource::Chat, "t", "1");
        e.arguments = json!({"path": "a.txt", "content": "one\ntwo\nthree\n"});
        e.edited = Some(json!({"path": "a.txt", "content": "one\n<b>2</b>\nthree\n"}));
        let diff = edit_diff(&e);
        let lines: Vec<(DiffChange, &str)> = diff.iter().map(|l| (l.change, l.text.as_str())).collect();
        assert_eq!(
            lines,
            vec![
                (DiffChange::Field, "content"),
                (DiffChange::Same, "one"),
                (DiffChange::Removed, "two"),
                (DiffChange::Added, "<b>2</b>"),
                (DiffChange::Same, "three"),
            ]
        );
    }

    #[test]
    fn edited_outside_code_is_diffed_against_the_code_sent() {
        let mut e = entry(AuditSource::Outside, "t", "1");
        e.arguments = json!({"type": "security_evaluation", "code": "rm -rf /tmp/x\n"});
        e.edited = Some(json!("rm -rf /tmp/x/cache\n"));
        let diff = edit_diff(&e);
        assert_eq!(diff[0], DiffLine { change: DiffChange::Removed, text: "rm -rf /tmp/x".into() });
        assert_eq!(diff[1], DiffLine { change: DiffChange::Added, text: "rm -rf /tmp/x/cache".into() });
        e.edited = None;
        assert!(edit_diff(&e).is_empty(), "no edit, no diff");
    }

    #[test]
    fn an_edit_of_a_text_above_the_cap_is_not_compared_and_the_row_says_so() {
        let mut e = entry(AuditSource::Chat, "t", "1");
        let big = "x\n".repeat(MAX_DIFF_BYTES);
        e.arguments = json!({"path": "a.txt", "content": big});
        e.edited = Some(json!({"path": "b.txt", "content": "short\n"}));
        let diff = edit_diff(&e);
        let lines: Vec<(DiffChange, &str)> = diff.iter().map(|l| (l.change, l.text.as_str())).collect();
        assert_eq!(lines[0], (DiffChange::Field, "content"));
        assert_eq!(lines[1].0, DiffChange::Same);
        assert!(lines[1].1.contains("too long to compare") && lines[1].1.contains("128 KiB before"), "{}", lines[1].1);
        // The small field next to it is still diffed.
        assert_eq!(
            &lines[2..],
            [(DiffChange::Field, "path"), (DiffChange::Removed, "a.txt"), (DiffChange::Added, "b.txt")]
        );

        let mut e = entry(AuditSource::Outside, "t", "2");
        e.arguments = json!({"type": "security_evaluation", "code": "print(1)\n"});
        e.edited = Some(json!("y".repeat(MAX_DIFF_BYTES + 1)));
        let diff = edit_diff(&e);
        assert_eq!(diff.len(), 1);
        assert!(diff[0].text.contains("too long to compare"));
    }

    #[test]
    fn a_long_unchanged_stretch_is_left_out_of_a_diff() {
        let old: String = (0..40).map(|i| format!("line {i}\n")).collect();
        let new = old.replace("line 1\n", "line one\n").replace("line 38\n", "line thirty-eight\n");
        let diff = text_diff(&old, &new);
        assert!(diff.iter().any(|l| l.text == "…"), "the gap is marked");
        assert!(diff.len() < 20, "{} lines", diff.len());
    }
}
