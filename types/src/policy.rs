//! Approval policies as they are stored, edited in Settings and copied onto an approval: which requests a
//! policy matches (source, tool, MCP server, risk, requester), who decides them, how many of those must
//! approve, whether the requester may be one of them, and how long a card waits. The matching and the tally
//! are `warden-policies`'; these are the records both sides of the wire share.

use serde::{Deserialize, Serialize};

use crate::approval::Verdict;
use crate::id::{PersonId, PolicyId};
use crate::person::{ActingPerson, Role};
use crate::tool::Risk;

/// Where a request comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, strum::IntoStaticStr, strum::EnumString)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Source {
    /// A call the model of one of Warden's own chats asked for.
    Chat,
    /// A request of an outside client (an executor or an agent with a client token).
    OutsideClient,
    /// A coding agent's request (Claude Code and the like, through the outside protocol).
    CodingAgent,
}

impl Source {
    pub const ALL: [Source; 3] = [Source::Chat, Source::OutsideClient, Source::CodingAgent];

    pub fn as_str(self) -> &'static str {
        self.into()
    }

    pub fn label(self) -> &'static str {
        match self {
            Source::Chat => "Chat",
            Source::OutsideClient => "Outside client",
            Source::CodingAgent => "Coding agent",
        }
    }
}

/// Who a policy's requester condition names: one person, or everyone with a role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RequesterMatch {
    Person { id: PersonId },
    Role { role: Role },
}

/// What a request must be for a policy to apply; every condition given must hold (none given: every request).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyMatch {
    #[serde(default)]
    pub source: Option<Source>,
    /// The tool's name, exactly or as a glob (`*` any run of characters, `?` one): `write_*`.
    #[serde(default)]
    pub tool: Option<String>,
    /// The MCP server whose tool it is (built-in tools have none).
    #[serde(default)]
    pub mcp_server: Option<String>,
    /// The request's risk is at least this.
    #[serde(default)]
    pub risk_at_least: Option<Risk>,
    #[serde(default)]
    pub requester: Option<RequesterMatch>,
}

/// Who may decide: the people named and everyone with one of the roles (only roles that decide count).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Approvers {
    #[serde(default)]
    pub people: Vec<PersonId>,
    #[serde(default)]
    pub roles: Vec<Role>,
}

/// A policy as an owner writes it (new, or in place of one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyInput {
    pub name: String,
    #[serde(default, rename = "match")]
    pub matches: PolicyMatch,
    pub approvers: Approvers,
    /// How many distinct approvers must approve (at least 1).
    #[serde(default = "one")]
    pub quorum: u32,
    /// Whether the person who asked may be one of them. Off by default when more than one must approve.
    #[serde(default)]
    pub self_approval: Option<bool>,
    /// How long a card waits before it times out; `None`: the server's setting.
    #[serde(default)]
    pub timeout_secs: Option<u64>,
}

fn one() -> u32 {
    1
}

/// A stored policy. Policies are tried in `position` order; the first that matches routes the request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Policy {
    pub id: PolicyId,
    pub name: String,
    pub position: u32,
    #[serde(rename = "match")]
    pub matches: PolicyMatch,
    pub approvers: Approvers,
    pub quorum: u32,
    pub self_approval: bool,
    pub timeout_secs: Option<u64>,
    pub created_at: String,
    pub updated_at: String,
}

/// The policy that routed an approval, as it was then.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoutedBy {
    pub id: PolicyId,
    pub name: String,
}

/// Who decides one approval, copied from its policy when the card was made (a later edit of the policy
/// does not change a waiting card). Without a policy: any owner or approver, one approval, the requester
/// included (a one-person install as before).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalRoute {
    /// `None`: no policy matched.
    pub policy: Option<RoutedBy>,
    pub approvers: Approvers,
    pub quorum: u32,
    pub self_approval: bool,
    /// Who asked (`None`: a run from before requesters were recorded, the founding owner's).
    pub requester: Option<ActingPerson>,
    pub timeout_secs: Option<u64>,
}

impl ApprovalRoute {
    /// The route when no policy matches.
    pub fn unrouted(requester: Option<ActingPerson>) -> Self {
        Self {
            policy: None,
            approvers: Approvers { people: Vec::new(), roles: vec![Role::Owner, Role::Approver] },
            quorum: 1,
            self_approval: true,
            requester,
            timeout_secs: None,
        }
    }
}

/// One person's vote on an approval, bound to the arguments they approved (or denied).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Vote {
    pub person: ActingPerson,
    pub verdict: Verdict,
    pub at: String,
    /// Where it was cast, when not in the app.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<VoteVia>,
}

/// Where a vote was cast, when not in the app.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "sqlx", derive(sqlx::Type), sqlx(rename_all = "snake_case"))]
pub enum VoteVia {
    /// A single-use decision link from a notification (mail, chat, push), confirmed on its page.
    Link,
}

/// The people who decided and the policy that routed it, in words, for the audit log: "approved by Ann,
/// then Bea (policy “Two for writes”)", "Ann approved, then Cy denied".
pub fn who_decided(votes: &[Vote], route: Option<&ApprovalRoute>) -> Option<String> {
    if votes.is_empty() {
        return None;
    }
    let names = |verdict: Verdict| -> Vec<String> {
        votes
            .iter()
            .filter(|v| v.verdict == verdict)
            .map(|v| match v.via {
                Some(VoteVia::Link) => format!("{} (by link)", v.person.name),
                None => v.person.name.clone(),
            })
            .collect()
    };
    let (approved, denied) = (names(Verdict::Approve), names(Verdict::Deny));
    let mut parts = Vec::new();
    if !approved.is_empty() {
        parts.push(format!("approved by {}", approved.join(", then ")));
    }
    if !denied.is_empty() {
        parts.push(format!("denied by {}", denied.join(", then ")));
    }
    let mut text = parts.join("; ");
    if let Some(policy) = route.and_then(|r| r.policy.as_ref()) {
        text.push_str(&format!(" (policy \u{201c}{}\u{201d})", policy.name));
    }
    Some(text)
}
