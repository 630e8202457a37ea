//! The audit log: every decision on an approval, from Warden's own chats and from outside clients,
//! in one shape for the `/audit` page and the JSON Lines and CSV exports. What an entry shows came
//! from a model or a client: render it as text only.

use crate::id::{ClientId, RunId, ThreadId};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::cursor::AuditCursor;

/// Where the approval was asked for.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::EnumIter,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum AuditSource {
    /// A tool call in one of Warden's own chats.
    Chat,
    /// A request from a registered outside client (an executor or agent).
    Outside,
}

/// What the decision was.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::EnumIter,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum AuditOutcome {
    Approved,
    /// Denied (a chat call) or rejected (an outside request) by a person.
    Denied,
    /// Nobody decided in time.
    TimedOut,
    /// The run stopped before anyone decided (chats only).
    Cancelled,
    /// Approved, but the target changed before it ran; a new approval took its place (chats only).
    Superseded,
}

/// Who or what decided.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::EnumIter,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum AuditDecider {
    Person,
    /// A thread rule ("allow for this thread").
    Rule,
    /// The outside clients' auto-approve policy (global or the client's own).
    Policy,
    Timeout,
    RunStopped,
    TargetChanged,
    /// A thread rule cleared the call but was revoked before it started: it asked again.
    RuleRevoked,
    /// An outside request on the card of one of Warden's calls, rejected as that call ended first.
    CallEnded,
}

macro_rules! labels {
    ($ty:ty) => {
        impl $ty {
            /// The stored and filtered-on name (`snake_case`).
            pub fn as_str(self) -> &'static str {
                self.into()
            }

            pub fn all() -> impl Iterator<Item = Self> {
                <Self as strum::IntoEnumIterator>::iter()
            }
        }
    };
}
labels!(AuditSource);
labels!(AuditOutcome);
labels!(AuditDecider);

impl AuditDecider {
    /// Whether nobody decided this one by hand: a rule, a policy, a timeout, a stop or a change did.
    pub fn is_automatic(self) -> bool {
        self != AuditDecider::Person
    }
}

/// Which decisions to list. Every field is optional; together they narrow the list.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditFilter {
    #[serde(default)]
    pub source: Option<AuditSource>,
    #[serde(default)]
    pub outcome: Option<AuditOutcome>,
    #[serde(default)]
    pub decided_by: Option<AuditDecider>,
}

/// One page of the audit log: the filter, where to continue, and how many.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditQuery {
    #[serde(default)]
    pub source: Option<AuditSource>,
    #[serde(default)]
    pub outcome: Option<AuditOutcome>,
    #[serde(default)]
    pub decided_by: Option<AuditDecider>,
    /// The `next` of the page before: the entries decided before it.
    #[serde(default)]
    pub before: Option<AuditCursor>,
    /// At most this many (default 50, at most 500).
    #[serde(default)]
    pub limit: Option<u32>,
}

impl AuditQuery {
    pub fn filter(&self) -> AuditFilter {
        AuditFilter { source: self.source, outcome: self.outcome, decided_by: self.decided_by }
    }
}

/// One decision, from either source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditEntry {
    /// Warden's id of the approval (chat) or of the outside request.
    pub id: String,
    pub source: AuditSource,
    /// When it was asked for.
    pub created_at: String,
    pub decided_at: String,
    pub outcome: AuditOutcome,
    pub decided_by: AuditDecider,
    /// How it was decided, in words: the thread rule or the policy rule that decided, the timeout.
    pub how: String,
    /// The person's reason, or why it timed out.
    pub reason: Option<String>,
    /// The tool (chat) or the request kind (`security_evaluation`, `code_response`).
    pub what: String,
    /// One line on what it would do.
    pub summary: String,
    /// `low`, `medium` or `high`, when known.
    pub risk: Option<String>,
    pub thread_id: Option<ThreadId>,
    pub run_id: Option<RunId>,
    pub client_id: Option<ClientId>,
    pub client_name: Option<String>,
    /// The arguments as the model proposed them (chat), or the request as the client sent it.
    pub arguments: Value,
    /// The code the decision was about, if any: a shell command, a security evaluation's code, a
    /// code response's stdout.
    pub code: Option<String>,
    /// What the person changed before approving: the edited arguments (chat) or the edited code
    /// (outside, a string).
    pub edited: Option<Value>,
}

/// A line of a diff between what was asked and what the person approved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiffLine {
    pub change: DiffChange,
    /// The line without its newline.
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiffChange {
    /// Names the field the following lines belong to.
    Field,
    Same,
    Removed,
    Added,
}

/// An entry as the page shows it: with the person's edit as a diff (made on the server).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditRow {
    pub entry: AuditEntry,
    pub diff: Vec<DiffLine>,
}

/// One page, newest decision first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AuditPage {
    pub rows: Vec<AuditRow>,
    /// Pass as `before` for the next (older) page; none when this is the last.
    pub next: Option<AuditCursor>,
}
