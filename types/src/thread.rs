//! Threads: a conversation's identity, title and archive state, and what a page needs to show one.

use crate::id::{MessageId, PersonId, RunId, ThreadId};
use serde::{Deserialize, Serialize};

use crate::approval::{Approval, ThreadRule};
use crate::connection::ConnectionCheck;
use crate::cursor::ThreadCursor;
use crate::event::RunEvent;
use crate::message::{Block, Role};
use crate::run::{RunSummary, ToolCallRecord};
use crate::status::SandboxInfo;

/// A thread as listed (read straight from its row, with the count of what waits in it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct Thread {
    pub id: ThreadId,
    pub title: String,
    pub archived: bool,
    /// Listed above the others in the sidebar.
    #[serde(default)]
    pub pinned: bool,
    /// RFC 3339 UTC timestamps.
    pub created_at: String,
    pub updated_at: String,
    /// Approvals of this thread waiting for a decision (the sidebar's badge).
    #[serde(default)]
    #[cfg_attr(feature = "sqlx", sqlx(try_from = "i64"))]
    pub pending_approvals: u32,
    /// When it was imported from a JSON export (`None`: it was made here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported_at: Option<String>,
    /// Who started (or imported) it: the only person who writes to it. `None` only for a thread from
    /// before people, until the server gives it to the founding owner at start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner_id: Option<PersonId>,
    /// The owner's name, when the person reading is someone else (a thread shared with them, or an
    /// owner reading everyone's): the sidebar marks it "shared by …". Filled in by the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "sqlx", sqlx(skip))]
    pub shared_by: Option<String>,
    /// Whether the person reading may delete it: their own, or anyone's for an owner by role. Filled in
    /// by the server in a thread list (elsewhere `false`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(feature = "sqlx", sqlx(skip))]
    pub may_delete: bool,
}

/// Who may read a thread besides its owner (who alone writes to it; owners by role read every thread).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "with", rename_all = "snake_case", deny_unknown_fields)]
pub enum Sharing {
    /// Nobody else: the default.
    Private,
    /// Everyone signed in.
    Everyone,
    /// These people (by id).
    People { people: Vec<PersonId> },
}

/// The most people a thread is shared with by name.
pub const MAX_SHARED_PEOPLE: usize = 200;

/// A change to a thread; absent fields stay as they are.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadPatch {
    pub title: Option<String>,
    pub archived: Option<bool>,
    pub pinned: Option<bool>,
}

/// Which threads to list: one page, newest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadQuery {
    pub archived: bool,
    /// Only threads last updated before this one (ties: a smaller id).
    pub before: Option<ThreadCursor>,
    pub limit: u32,
    /// Only pinned threads (`Some(true)`), only the others (`Some(false)`), or both.
    #[serde(default)]
    pub pinned: Option<bool>,
}

impl Default for ThreadQuery {
    fn default() -> Self {
        Self { archived: false, before: None, limit: 50, pinned: None }
    }
}

/// The `format` of a thread's JSON export.
pub const THREAD_EXPORT_FORMAT: &str = "warden.thread.v1";

/// A thread as exported to JSON and imported back: its messages on every branch (blocks included, no
/// rendered HTML), its tool calls with their outputs, and its approvals with their decisions. Thread
/// rules are not in it: a standing permission is never carried from a file into a server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadExport {
    pub format: String,
    pub exported_at: String,
    pub thread: Thread,
    /// In the order they were written: a message comes after its parent.
    pub messages: Vec<StoredMessage>,
    pub tool_calls: Vec<ToolCallRecord>,
    pub approvals: Vec<Approval>,
    /// The last message of the branch shown. Absent (files from before branches): the messages are
    /// one branch, each following the one before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head_id: Option<MessageId>,
    /// Each message's parent, by id; a message not in it starts the thread. Read only with `head_id`.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub parents: std::collections::BTreeMap<MessageId, MessageId>,
}

/// One thread a search found: where it matched best, with the matching words marked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchHit {
    pub thread: Thread,
    /// The message that matched (`None`: the title).
    pub message_id: Option<MessageId>,
    /// The text around the match, in pieces; `hit` pieces are the words searched for.
    pub snippet: Vec<SnippetPiece>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnippetPiece {
    pub text: String,
    pub hit: bool,
}

/// A thread's switches, set from the composer: whether the model is offered tools at all, whether
/// MCP servers' tools are among them, and the step limit of its runs (`None`: the server's default).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadOptions {
    pub tools: bool,
    pub mcp: bool,
    #[serde(default)]
    pub max_steps: Option<u32>,
}

impl ThreadOptions {
    /// The step limits a thread may choose.
    pub const STEP_LIMITS: std::ops::RangeInclusive<u32> = 1..=100;
}

impl Default for ThreadOptions {
    fn default() -> Self {
        Self { tools: true, mcp: true, max_steps: None }
    }
}

/// A message as stored, in thread order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredMessage {
    pub id: MessageId,
    pub run_id: Option<RunId>,
    pub role: Role,
    /// The text blocks joined: what a reader sees.
    pub content: String,
    /// The model's text as sanitised HTML, rendered from Markdown on the server (the browser never
    /// parses Markdown); `None` for the person's own words, which are shown as plain text.
    #[serde(default)]
    pub html: Option<String>,
    pub blocks: Vec<Block>,
    pub created_at: String,
}

/// Everything a chat page shows: the thread, its messages, its tool calls with their approvals,
/// the run in progress (if any) and the thread's standing rules.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadDetail {
    #[serde(flatten)]
    pub thread: Thread,
    pub messages: Vec<StoredMessage>,
    pub tool_calls: Vec<ToolCallRecord>,
    pub approvals: Vec<Approval>,
    pub active_run: Option<RunSummary>,
    /// The last run, if it failed: the page offers Retry.
    pub last_error: Option<String>,
    pub rules: Vec<ThreadRule>,
    /// Whether commands run confined on this machine (the card of a command says so).
    pub sandbox: SandboxInfo,
    /// The model this thread chose (`None`: the default).
    #[serde(default)]
    pub model: Option<crate::provider::ModelChoice>,
    /// Tools, MCP tools and the step limit of this thread's runs.
    #[serde(default)]
    pub options: ThreadOptions,
    /// The step limit of a run when the thread sets none.
    #[serde(default)]
    pub default_max_steps: u32,
    /// The messages shown that have siblings (other versions: an edited prompt, another answer).
    #[serde(default)]
    pub branches: Vec<BranchPoint>,
    /// The thread's connection checks (MCP servers a run found offline or disabled), oldest first;
    /// a pending one is a Connect / Continue anyway card.
    #[serde(default)]
    pub connection_checks: Vec<ConnectionCheck>,
    /// Whether the chosen branch has messages before the first of `messages`. A chat page shows a
    /// long thread's newest messages and adds earlier ones when the person asks ([`ThreadSlice`]);
    /// the API's thread is whole (`false`).
    #[serde(default)]
    pub earlier: bool,
    /// Whether the person reading may write to it (they own it): otherwise the page is read-only,
    /// with no composer and no edit or regenerate.
    #[serde(default)]
    pub writable: bool,
    /// The last answer of each run a person stopped: the page marks it as cut off there.
    #[serde(default)]
    pub stopped_answers: Vec<MessageId>,
}

/// Messages of a thread's chosen branch just before the first one a page shows, with their calls,
/// the calls' approvals and their other versions: what "Show earlier messages" adds
/// ([`ThreadDetail::prepend`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadSlice {
    pub thread_id: ThreadId,
    /// The message the slice ends just before.
    pub before: MessageId,
    pub messages: Vec<StoredMessage>,
    pub tool_calls: Vec<ToolCallRecord>,
    pub approvals: Vec<Approval>,
    pub branches: Vec<BranchPoint>,
    /// Whether there are messages before these too.
    pub earlier: bool,
}

/// A message of the chosen branch with other versions: the picker shows "2 / 3" and switches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BranchPoint {
    pub message_id: MessageId,
    /// Every version's id, the message itself among them, in the order they were written.
    pub siblings: Vec<MessageId>,
}

impl ThreadDetail {
    /// Patches what the page shows with one event of this thread's run: a record an event carries
    /// replaces the one with its id (or is added), so applying an event twice, or an event the
    /// thread already reflects, changes nothing. Events of another thread are ignored.
    pub fn apply(&mut self, event: &RunEvent) {
        match event {
            RunEvent::MessageStored { message } => upsert(&mut self.messages, message.clone(), |m| &m.id),
            RunEvent::ToolCall { call, .. } | RunEvent::ToolResult { call, .. } => self.put_call(call),
            RunEvent::ApprovalRequest { approval } => self.put_approval(approval),
            RunEvent::ApprovalResolved { approval, call, rule, .. } => {
                self.put_approval(approval);
                self.put_call(call);
                if let Some(rule) = rule.as_ref().filter(|r| r.thread_id == self.thread.id) {
                    upsert(&mut self.rules, rule.clone(), |r| &r.id);
                }
            }
            RunEvent::ThreadUpdated { thread_id, title } if *thread_id == self.thread.id => {
                self.thread.title = title.clone();
            }
            RunEvent::ConnectionCheck { check } if check.thread_id == self.thread.id => {
                upsert(&mut self.connection_checks, check.clone(), |c| &c.id);
            }
            RunEvent::Step { n, max, .. } => {
                if let Some(run) = &mut self.active_run {
                    (run.step, run.max_steps) = (*n, *max);
                }
            }
            RunEvent::RunFinished { message_id, stopped } => {
                self.active_run = None;
                self.last_error = None;
                if let Some(id) = message_id.as_ref().filter(|_| *stopped) {
                    if !self.stopped_answers.contains(id) {
                        self.stopped_answers.push(id.clone());
                    }
                }
            }
            RunEvent::RunFailed { message } => {
                self.active_run = None;
                self.last_error = Some(message.clone());
            }
            RunEvent::RunStarted { .. }
            | RunEvent::TextDelta { .. }
            | RunEvent::ToolProgress { .. }
            | RunEvent::ThreadUpdated { .. }
            | RunEvent::ConnectionCheck { .. }
            | RunEvent::TurnRestarted {} => {}
        }
    }

    /// Puts `slice` in front of the shown messages, if it ends where they begin (one read for an
    /// older view of the thread, say before a branch switch, is not applied: `false`). What is
    /// shown already stays as it is.
    pub fn prepend(&mut self, slice: &ThreadSlice) -> bool {
        if slice.thread_id != self.thread.id || self.messages.first().map(|m| &m.id) != Some(&slice.before) {
            return false;
        }
        in_front(&mut self.messages, &slice.messages, |m| &m.id);
        in_front(&mut self.tool_calls, &slice.tool_calls, |c| &c.id);
        in_front(&mut self.approvals, &slice.approvals, |a| &a.id);
        in_front(&mut self.branches, &slice.branches, |b| &b.message_id);
        self.earlier = slice.earlier;
        true
    }

    fn put_call(&mut self, call: &ToolCallRecord) {
        if call.thread_id == self.thread.id {
            upsert(&mut self.tool_calls, call.clone(), |c| &c.id);
        }
    }

    fn put_approval(&mut self, approval: &Approval) {
        if approval.thread_id == self.thread.id {
            upsert(&mut self.approvals, approval.clone(), |a| &a.id);
        }
    }
}

/// Replaces the record with the same id, or appends it (records arrive in the order they were made).
fn upsert<T, K: PartialEq>(records: &mut Vec<T>, record: T, id: impl Fn(&T) -> &K) {
    match records.iter_mut().find(|r| id(r) == id(&record)) {
        Some(slot) => *slot = record,
        None => records.push(record),
    }
}

/// Puts the `older` records that `records` lacks in front of them, in their order.
fn in_front<T: Clone, K: Eq + std::hash::Hash>(records: &mut Vec<T>, older: &[T], id: impl Fn(&T) -> &K) {
    let known: std::collections::HashSet<&K> = records.iter().map(&id).collect();
    let mut merged: Vec<T> = older.iter().filter(|o| !known.contains(id(o))).cloned().collect();
    merged.append(records);
    *records = merged;
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::approval::{ApprovalStatus, DecidedBy, Decision, RuleMatcher};
    use crate::run::{RunStatus, ToolCallStatus};
    use crate::tool::{Risk, ToolContent, ToolOrigin};

    fn detail() -> ThreadDetail {
        ThreadDetail {
            thread: Thread {
                id: "t".into(),
                title: "T".into(),
                archived: false,
                pinned: false,
                created_at: "2026-01-01T00:00:00Z".into(),
                updated_at: "2026-01-01T00:00:00Z".into(),
                pending_approvals: 0,
                imported_at: None,
                owner_id: None,
                shared_by: None,
                may_delete: false,
            },
            messages: vec![message("m1", Role::User)],
            stopped_answers: vec![],
            tool_calls: vec![],
            approvals: vec![],
            active_run: Some(RunSummary {
                id: "r".into(),
                thread_id: "t".into(),
                status: RunStatus::Running,
                step: 1,
                max_steps: 10,
                error: None,
                created_at: "2026-01-01T00:00:00Z".into(),
                model: None,
            }),
            last_error: None,
            rules: vec![],
            sandbox: SandboxInfo { available: true, detail: "confined".into() },
            model: None,
            options: ThreadOptions::default(),
            default_max_steps: 10,
            branches: vec![],
            connection_checks: vec![],
            earlier: false,
            writable: true,
        }
    }

    fn message(id: &str, role: Role) -> StoredMessage {
        StoredMessage {
            id: id.into(),
            run_id: Some("r".into()),
            role,
            content: id.into(),
            html: None,
            blocks: vec![Block::Text { text: id.into() }],
            created_at: "2026-01-01T00:00:00Z".into(),
        }
    }

    fn call(thread: &str, status: ToolCallStatus) -> ToolCallRecord {
        ToolCallRecord {
            id: "c1".into(),
            run_id: "r".into(),
            thread_id: thread.into(),
            message_id: "m2".into(),
            call_id: "call_1".into(),
            name: "shell".into(),
            origin: ToolOrigin::BuiltIn,
            arguments: json!({"command": "echo hi"}),
            summary: "Run `echo hi`".into(),
            risk: Risk::Low,
            needs_approval: true,
            preview: None,
            status,
            output: (status == ToolCallStatus::Done).then(|| vec![ToolContent::Text { text: "hi".into() }]),
            is_error: false,
            truncated: false,
            failure: None,
            created_at: "2026-01-01T00:00:00Z".into(),
            finished_at: None,
        }
    }

    fn approval(status: ApprovalStatus) -> Approval {
        Approval {
            id: "a1".into(),
            run_id: "r".into(),
            thread_id: "t".into(),
            tool_call_id: "c1".into(),
            tool: "shell".into(),
            origin: ToolOrigin::BuiltIn,
            arguments: json!({"command": "echo hi"}),
            summary: "Run `echo hi`".into(),
            risk: Risk::Low,
            preview: None,
            status,
            created_at: "2026-01-01T00:00:00Z".into(),
            decided_at: None,
            expires_at: None,
            decision: (status != ApprovalStatus::Pending)
                .then(|| Decision { status, by: DecidedBy::Rule { rule_id: "rule".into() } }),
            route: None,
            votes: Vec::new(),
        }
    }

    /// One approval round trip as the stream tells it.
    fn round_trip() -> Vec<RunEvent> {
        let rule = ThreadRule {
            id: "rule".into(),
            thread_id: "t".into(),
            tool: "shell".into(),
            matcher: RuleMatcher::AnyArguments,
            created_at: "2026-01-01T00:00:00Z".into(),
        };
        let pending = call("t", ToolCallStatus::Pending);
        vec![
            RunEvent::Step { n: 2, max: 10, action: "Thinking".into() },
            RunEvent::MessageStored { message: message("m2", Role::Assistant) },
            RunEvent::ToolCall { id: "c1".into(), name: "shell".into(), arguments: json!({}), call: pending },
            RunEvent::ApprovalRequest { approval: approval(ApprovalStatus::Pending) },
            RunEvent::ApprovalResolved {
                approval_id: "a1".into(),
                tool_call_id: "c1".into(),
                decision: ApprovalStatus::Approved,
                arguments: json!({}),
                approval: approval(ApprovalStatus::Approved),
                call: call("t", ToolCallStatus::Approved),
                rule: Some(rule),
            },
            RunEvent::ToolResult {
                tool_call_id: "c1".into(),
                output: "hi".into(),
                is_error: false,
                truncated: false,
                call: call("t", ToolCallStatus::Done),
            },
            RunEvent::ThreadUpdated { thread_id: "t".into(), title: "Saying hi".into() },
            RunEvent::MessageStored { message: message("m3", Role::Assistant) },
            RunEvent::RunFinished { message_id: Some("m3".into()), stopped: false },
        ]
    }

    fn slice(before: &str) -> ThreadSlice {
        let mut earlier_call = call("t", ToolCallStatus::Done);
        earlier_call.message_id = "m0".into();
        ThreadSlice {
            thread_id: "t".into(),
            before: before.into(),
            messages: vec![message("u0", Role::User), message("m0", Role::Assistant)],
            tool_calls: vec![earlier_call],
            approvals: vec![approval(ApprovalStatus::Approved)],
            branches: vec![BranchPoint { message_id: "u0".into(), siblings: vec!["u0".into(), "u0b".into()] }],
            earlier: true,
        }
    }

    #[test]
    fn earlier_messages_go_in_front_of_the_shown_ones_with_their_calls() {
        let mut shown = detail();
        shown.earlier = true;
        shown.messages.push(message("m2", Role::Assistant));
        let mut later_call = call("t", ToolCallStatus::Pending);
        later_call.id = "c2".into();
        shown.tool_calls.push(later_call);

        assert!(shown.prepend(&slice("m1")));

        let ids: Vec<&str> = shown.messages.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(ids, ["u0", "m0", "m1", "m2"]);
        let calls: Vec<&str> = shown.tool_calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(calls, ["c1", "c2"]);
        assert_eq!(shown.approvals.len(), 1);
        assert_eq!(shown.branches[0].message_id, "u0");
        assert!(shown.earlier, "the slice says more come before it");
    }

    #[test]
    fn a_slice_read_for_another_first_message_or_thread_changes_nothing() {
        let mut shown = detail();
        shown.earlier = true;
        let before = shown.clone();
        assert!(!shown.prepend(&slice("m9")), "the page's first message is m1");
        let mut other = slice("m1");
        other.thread_id = "other".into();
        assert!(!shown.prepend(&other));
        assert_eq!(shown, before);
    }

    #[test]
    fn a_record_shown_already_is_kept_as_it_is() {
        let mut shown = detail();
        let mut newer = approval(ApprovalStatus::Pending);
        newer.summary = "as the page has it".into();
        shown.approvals.push(newer);
        let mut last = slice("m1");
        last.earlier = false;
        assert!(shown.prepend(&last));
        assert_eq!(shown.approvals.len(), 1);
        assert_eq!(shown.approvals[0].summary, "as the page has it");
        assert!(!shown.earlier, "the first message is shown now");
    }

    #[test]
    fn a_round_trip_of_events_patches_the_thread_into_what_the_store_holds() {
        let mut shown = detail();
        for event in &round_trip() {
            shown.apply(event);
        }
        let ids: Vec<&str> = shown.messages.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(ids, ["m1", "m2", "m3"]);
        assert_eq!(shown.tool_calls.len(), 1);
        assert_eq!(shown.tool_calls[0].status, ToolCallStatus::Done);
        assert_eq!(shown.tool_calls[0].output_text().as_deref(), Some("hi"));
        assert_eq!(shown.approvals.len(), 1);
        assert_eq!(shown.approvals[0].status, ApprovalStatus::Approved);
        assert_eq!(shown.rules.len(), 1);
        assert_eq!(shown.thread.title, "Saying hi");
        assert_eq!(shown.active_run, None);
    }

    #[test]
    fn events_applied_again_over_a_fresher_copy_end_in_the_same_state() {
        // What the page does when a refetch lands while events arrived: it applies them again.
        let mut once = detail();
        for event in &round_trip() {
            once.apply(event);
        }
        let mut twice = once.clone();
        for event in &round_trip() {
            twice.apply(event);
        }
        assert_eq!(twice, once);
    }

    #[test]
    fn a_failed_run_shows_its_error_and_a_step_moves_the_counter() {
        let mut shown = detail();
        shown.apply(&RunEvent::Step { n: 4, max: 10, action: "Thinking".into() });
        assert_eq!(shown.active_run.as_ref().map(|r| r.step), Some(4));
        shown.apply(&RunEvent::RunFailed { message: "the model is down".into() });
        assert_eq!((shown.active_run.is_none(), shown.last_error.as_deref()), (true, Some("the model is down")));
    }

    #[test]
    fn a_connection_check_event_adds_the_card_and_its_decision_replaces_it_in_place() {
        use crate::connection::{CheckReason, CheckStatus, ConnectionCheck, ServerDown};
        let check = |thread: &str, status: CheckStatus| ConnectionCheck {
            id: "k1".into(),
            run_id: "r".into(),
            thread_id: thread.into(),
            server: "fx".into(),
            reason: CheckReason::CalledTool { tool: "fx__echo".into() },
            down: ServerDown::Disabled,
            status,
            error: None,
            created_at: "2026-01-01T00:00:00Z".into(),
            decided_at: None,
        };
        let mut shown = detail();
        shown.apply(&RunEvent::ConnectionCheck { check: check("elsewhere", CheckStatus::Pending) });
        assert!(shown.connection_checks.is_empty(), "another thread's check");
        shown.apply(&RunEvent::ConnectionCheck { check: check("t", CheckStatus::Pending) });
        let failed = ConnectionCheck { error: Some("connection refused".into()), ..check("t", CheckStatus::Pending) };
        shown.apply(&RunEvent::ConnectionCheck { check: failed.clone() });
        assert_eq!(shown.connection_checks, [failed]);
        shown.apply(&RunEvent::ConnectionCheck { check: check("t", CheckStatus::ContinuedWithout) });
        assert_eq!(shown.connection_checks.len(), 1);
        assert_eq!(shown.connection_checks[0].status, CheckStatus::ContinuedWithout);
    }

    #[test]
    fn records_of_another_thread_are_not_shown() {
        let mut shown = detail();
        let other = call("elsewhere", ToolCallStatus::Pending);
        shown.apply(&RunEvent::ToolCall { id: "c1".into(), name: "shell".into(), arguments: json!({}), call: other });
        shown.apply(&RunEvent::ThreadUpdated { thread_id: "elsewhere".into(), title: "Other".into() });
        assert!(shown.tool_calls.is_empty());
        assert_eq!(shown.thread.title, "T");
    }
}
