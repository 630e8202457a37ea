//! Approvals: a person's (or a rule's, or a timeout's) decision on one gated tool call, the decision
//! as it arrives from a person, and the thread rules ("allow for this thread") it can leave behind.

use crate::id::{ApprovalId, RuleId, RunId, ThreadId, ToolCallId};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::policy::{ApprovalRoute, Vote};
use crate::tool::{Preview, Risk, ToolOrigin};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, strum::IntoStaticStr, strum::EnumString)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
#[cfg_attr(feature = "sqlx", derive(sqlx::Type), sqlx(rename_all = "snake_case"))]
pub enum ApprovalStatus {
    Pending,
    Approved,
    Denied,
    TimedOut,
    /// The run was stopped before anyone decided.
    Cancelled,
    /// Approved, but what the call would change (a file's content) changed after the card was
    /// shown: it did not run, and a new approval with the new preview took its place.
    Superseded,
}

impl ApprovalStatus {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
    pub fn parse(s: &str) -> Option<Self> {
        s.parse().ok()
    }
}

/// How a decision was made. [`DecidedByKind`] names the kinds as the `by` tag does (for filtering).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, strum::EnumDiscriminants)]
#[serde(tag = "by", rename_all = "snake_case")]
#[strum_discriminants(name(DecidedByKind), derive(strum::IntoStaticStr), strum(serialize_all = "snake_case"))]
pub enum DecidedBy {
    User {
        /// The arguments as the person edited them, if they did.
        edited_arguments: Option<Value>,
        reason: Option<String>,
        scope: Scope,
        /// The person let this one command use the network (the sandbox keeps it off otherwise).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        network: bool,
        /// The people who decided, in the order they voted: the approvers whose approvals made the quorum,
        /// or the one who denied (after any who had approved). Empty for decisions from before people.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        votes: Vec<Vote>,
    },
    Rule {
        rule_id: RuleId,
    },
    Timeout,
    /// The run was stopped while the approval waited.
    RunStopped,
    /// The call's target changed after the card was shown; `replaced_by` is the new approval.
    TargetChanged {
        replaced_by: ApprovalId,
    },
    /// A thread rule cleared the call, but was revoked before the call started: it did not run and
    /// asks again; `replaced_by` is the new approval.
    RuleRevoked {
        rule_id: RuleId,
        replaced_by: ApprovalId,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    #[default]
    Once,
    Thread,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    pub status: ApprovalStatus,
    #[serde(flatten)]
    pub by: DecidedBy,
}

impl Decision {
    /// The people who decided, in the order they voted (none for a rule, a timeout or a stop).
    pub fn votes(&self) -> &[Vote] {
        match &self.by {
            DecidedBy::User { votes, .. } => votes,
            _ => &[],
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Approval {
    pub id: ApprovalId,
    pub run_id: RunId,
    pub thread_id: ThreadId,
    pub tool_call_id: ToolCallId,
    pub tool: String,
    pub origin: ToolOrigin,
    pub arguments: Value,
    pub summary: String,
    pub risk: Risk,
    pub preview: Option<Preview>,
    pub status: ApprovalStatus,
    pub created_at: String,
    pub decided_at: Option<String>,
    pub expires_at: Option<String>,
    pub decision: Option<Decision>,
    /// Who decides it and how many must approve (`None` for approvals from before routing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route: Option<ApprovalRoute>,
    /// The votes so far, oldest first, on the arguments shown now (an edit restarts them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub votes: Vec<Vote>,
}

impl Approval {
    /// Whether the person approved this call with network access.
    pub fn network_granted(&self) -> bool {
        self.status == ApprovalStatus::Approved
            && matches!(&self.decision, Some(Decision { by: DecidedBy::User { network: true, .. }, .. }))
    }

    /// The thread rule that approved this call, if one did.
    pub fn cleared_by_rule(&self) -> Option<&RuleId> {
        match &self.decision {
            Some(Decision { status: ApprovalStatus::Approved, by: DecidedBy::Rule { rule_id } }) => Some(rule_id),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::IntoStaticStr, strum::EnumString)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
#[cfg_attr(feature = "sqlx", derive(sqlx::Type), sqlx(rename_all = "snake_case"))]
pub enum Verdict {
    Approve,
    Deny,
}

/// A person's decision as it arrives (from the UI or `POST /api/approvals/{id}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecisionInput {
    pub decision: Verdict,
    #[serde(default)]
    pub scope: Scope,
    /// Edited arguments: validated against the tool's schema, then used instead of the model's.
    pub arguments: Option<Value>,
    pub reason: Option<String>,
    /// With scope `thread` on `shell`: allow every command starting with this prefix instead of
    /// only this exact command.
    pub prefix: Option<String>,
    /// "With network": this one approved command may use the network. Only for tools that run
    /// commands in the sandbox, only with `approve` and scope `once` (a rule never grants it).
    #[serde(default)]
    pub network: bool,
}

impl DecisionInput {
    /// Approve this one call as shown.
    pub fn approve() -> Self {
        Self {
            decision: Verdict::Approve,
            scope: Scope::Once,
            arguments: None,
            reason: None,
            prefix: None,
            network: false,
        }
    }

    /// Deny this one call, with the person's reason if they gave one.
    pub fn deny(reason: Option<String>) -> Self {
        Self { decision: Verdict::Deny, reason, ..Self::approve() }
    }
}

/// "Allow for this thread": later calls of `tool` in the thread that match run without asking.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadRule {
    pub id: RuleId,
    pub thread_id: ThreadId,
    pub tool: String,
    pub matcher: RuleMatcher,
    pub created_at: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RuleMatcher {
    /// Exactly these arguments.
    ExactArguments { arguments: Value },
    /// Any call of the tool.
    AnyArguments,
    /// `shell` only: every part of the command starts with this prefix.
    CommandPrefix { prefix: String },
}

impl RuleMatcher {
    /// The rule in words, for the rules panel.
    pub fn describe(&self) -> String {
        match self {
            RuleMatcher::ExactArguments { arguments } => format!("with exactly {arguments}"),
            RuleMatcher::AnyArguments => "any arguments".to_string(),
            RuleMatcher::CommandPrefix { prefix } => format!("commands starting with `{prefix}`"),
        }
    }
}

/// What an approval card would show for arguments a person is editing, before they approve them: the
/// call's summary and its preview (a file write's diff against the file as it is now).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EditPreview {
    pub summary: String,
    pub preview: Option<Preview>,
}
