//! Outside clients and requests as Warden stores them and the inbox shows them. Every string in a
//! request came from a client: render it as text only.

use serde::{Deserialize, Serialize};
use warden_types::id::{ClientId, OutsideRequestId, PersonId, ThreadId, ToolCallId};
use warden_types::policy::{ApprovalRoute, Vote};

use crate::policy::ClientPolicy;
use crate::protocol::{
    check_bytes, ClientFrame, DecidedBy, DecisionFrame, RequestKind, RiskLevel, SecurityEvaluation, Verdict,
    MAX_REASON_BYTES, MAX_TEXT_BYTES,
};

/// Longest client name, in characters.
pub const MAX_CLIENT_NAME_CHARS: usize = 64;

/// A registered executor or agent. Its token is stored only as a hash. Read straight from its row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(sqlx::FromRow))]
pub struct Client {
    pub id: ClientId,
    pub name: String,
    /// What this client's requests are decided by instead of the global policy.
    #[cfg_attr(feature = "server", sqlx(json))]
    pub policy: ClientPolicy,
    pub created_at: String,
    /// When the token was revoked; a revoked client can no longer connect or send.
    pub revoked_at: Option<String>,
    /// The person who registered it: its requests are asked by them. `None` only for a client registered
    /// before Warden knew people and not yet adopted by the founding owner (done at every start).
    #[serde(default)]
    pub created_by: Option<PersonId>,
}

/// A client just registered, with its token: the only time the token exists outside the client.
#[derive(Clone, Serialize, Deserialize)]
pub struct NewClient {
    pub client: Client,
    pub token: String,
}

impl std::fmt::Debug for NewClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewClient").field("client", &self.client).field("token", &"<redacted>").finish()
    }
}

/// Where an outside request is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, strum::Display, strum::EnumString)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum RequestStatus {
    Pending,
    Approved,
    Rejected,
    /// Nobody decided in time: answered `rejected`, decided by `timeout`.
    Expired,
}

/// How a request was decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    pub decision: Verdict,
    pub reason: Option<String>,
    pub edited_code: Option<String>,
    pub decided_by: DecidedBy,
    /// The person who decided, when a person did (never a client or an agent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub person: Option<PersonId>,
}

/// One request from an outside client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutsideRequest {
    /// Warden's id.
    pub id: OutsideRequestId,
    pub client_id: ClientId,
    pub client_name: String,
    /// The person whose client asked (the client's owner): routing and no-self-approval go by them.
    #[serde(default)]
    pub asked_by: Option<PersonId>,
    /// The client's own id, unique per client.
    pub client_request_id: String,
    pub kind: RequestKind,
    /// The frame as the client sent it (with the canonical `type`).
    pub request: ClientFrame,
    /// The risk the client claims for its code (its `risk_level`): shown as the client's, never as
    /// Warden's.
    pub risk: Option<RiskLevel>,
    /// Warden's own reading of the code's risk ([`warden_risk`]): a shell command's by Warden's shell
    /// risk reader; `None` where Warden cannot judge the code. Worked out as the request is read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warden_risk: Option<RiskLevel>,
    /// Warden's id of the security evaluation a code response follows.
    pub follows: Option<OutsideRequestId>,
    pub status: RequestStatus,
    pub decision: Option<Decision>,
    pub created_at: String,
    /// When a pending request is answered `rejected` by timeout.
    pub expires_at: String,
    pub decided_at: Option<String>,
    /// When the decision was sent to the client.
    pub delivered_at: Option<String>,
    /// Warden's own tool call this request belongs to (see [`LinkedCall`]); `None` for a request shown
    /// in the inbox on its own.
    #[serde(default)]
    pub linked_call: Option<LinkedCall>,
    /// Who decides it: the approval policy that matched when it arrived, copied (`None`: from before
    /// routing, or decided on arrival; any owner or approver decides alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route: Option<ApprovalRoute>,
    /// The people who voted, in order, on the code shown ([`OutsideRequest::shown`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub votes: Vec<Vote>,
    /// An approver's edit of the code while a quorum counts: what the card shows and the votes are on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shown_code: Option<String>,
    /// Bumped by every vote: a vote is written only on the votes it counted.
    #[serde(skip)]
    pub revision: i64,
}

/// The running tool call of one of Warden's own runs that an outside request named as its own
/// (`warden_call_id`) when it arrived: the request shows on that call's card in the thread and counts
/// with the thread, not as an inbox item of its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkedCall {
    /// Warden's id of the tool call.
    pub call_id: ToolCallId,
    pub thread_id: ThreadId,
}

impl OutsideRequest {
    /// The request as a person deciding it is shown: the client's frame with an approver's edit of the
    /// code in place of the client's code (while a quorum counts).
    pub fn as_shown(&self) -> ClientFrame {
        match (&self.request, &self.shown_code) {
            (ClientFrame::SecurityEvaluation(evaluation), Some(code)) => {
                ClientFrame::SecurityEvaluation(SecurityEvaluation { code: code.clone(), ..evaluation.clone() })
            }
            (frame, _) => frame.clone(),
        }
    }

    /// The request, if `person` may read it: an owner every one; anyone else those their own clients
    /// asked and those routed to them.
    pub fn readable_by(self, person: &warden_types::person::ActingPerson) -> Option<Self> {
        let readable = person.role == warden_types::person::Role::Owner
            || self.asked_by.as_ref() == Some(&person.id)
            || warden_policies::may_decide(&self.route(), person).is_ok();
        readable.then_some(self)
    }

    /// Who decides it (requests from before routing: the unrouted default).
    pub fn route(&self) -> ApprovalRoute {
        self.route.clone().unwrap_or_else(|| ApprovalRoute::unrouted(None))
    }

    /// The code a person approving it is shown: an approver's edit while a quorum counts, else the
    /// client's (`None` for a code response, which has no code to run).
    pub fn shown(&self) -> Option<&str> {
        match &self.request {
            ClientFrame::SecurityEvaluation(evaluation) => Some(self.shown_code.as_deref().unwrap_or(&evaluation.code)),
            ClientFrame::CodeResponse(_) => None,
        }
    }

    /// The decision frame the client receives, once decided.
    pub fn decision_frame(&self) -> Option<DecisionFrame> {
        let d = self.decision.as_ref()?;
        Some(DecisionFrame {
            id: self.client_request_id.clone(),
            request_id: self.id.clone(),
            decision: d.decision,
            reason: d.reason.clone(),
            edited_code: d.edited_code.clone(),
            decided_by: d.decided_by.clone(),
        })
    }
}

/// The languages Warden reads as shell commands.
#[cfg(feature = "server")]
const SHELL_LANGUAGES: &[&str] = &["bash", "sh", "shell", "zsh", "dash", "console", "shell-session", "shellscript"];

/// Warden's own risk of a request's code, by Warden's shell risk reader when the code is a shell
/// command (a language of [`SHELL_LANGUAGES`]); a Claude Code call with a field that changes what it
/// may do (`permission_prompt::flagged_field`) is high whatever its code. `None` when Warden cannot
/// judge it (other languages, output to pass on).
#[cfg(feature = "server")]
pub fn warden_risk(frame: &ClientFrame) -> Option<RiskLevel> {
    use warden_tools::{shell_risk, Risk};
    let ClientFrame::SecurityEvaluation(evaluation) = frame else { return None };
    let metadata = evaluation.metadata.as_ref();
    let tool = metadata.and_then(|m| m.get("tool_name")).and_then(serde_json::Value::as_str);
    let flagged = match (tool, metadata.and_then(|m| m.get(crate::permission_prompt::OTHER_INPUT))) {
        (Some(tool), Some(serde_json::Value::Object(other))) => {
            other.keys().any(|field| crate::permission_prompt::flagged_field(tool, field))
        }
        _ => false,
    };
    let language = evaluation.language.as_deref().unwrap_or_default().to_ascii_lowercase();
    let shell = SHELL_LANGUAGES.contains(&language.as_str()).then(|| match shell_risk(&evaluation.code) {
        Risk::Low => RiskLevel::Low,
        Risk::Medium => RiskLevel::Medium,
        Risk::High => RiskLevel::High,
    });
    if flagged {
        Some(RiskLevel::High)
    } else {
        shell
    }
}

/// The risk approval policies match a request on: the higher of the client's claim and Warden's own
/// reading, so a client claiming less than its code does cannot slip past a rule for risky requests. A
/// code response (output to pass on) with no claim is low.
#[cfg(feature = "server")]
pub fn routing_risk(frame: &ClientFrame) -> warden_types::tool::Risk {
    use warden_types::tool::Risk;
    match frame.risk().max(warden_risk(frame)).unwrap_or(RiskLevel::Low) {
        RiskLevel::Low => Risk::Low,
        RiskLevel::Medium => Risk::Medium,
        RiskLevel::High => Risk::High,
    }
}

/// The tool name approval policies match a request on: a coding agent's tool (`Bash`, `Write`, as its
/// permission prompt names it), else the kind of request (`security_evaluation`, `code_response`).
#[cfg(feature = "server")]
pub fn routing_tool(frame: &ClientFrame, source: warden_types::policy::Source) -> String {
    let tool = match (source, frame) {
        (warden_types::policy::Source::CodingAgent, ClientFrame::SecurityEvaluation(evaluation)) => evaluation
            .metadata
            .as_ref()
            .and_then(|m| m.get("tool_name"))
            .and_then(serde_json::Value::as_str)
            .map(str::to_string),
        _ => None,
    };
    tool.unwrap_or_else(|| frame.kind().to_string())
}

/// A person's decision on one outside request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecisionInput {
    pub decision: Verdict,
    #[serde(default)]
    pub reason: Option<String>,
    /// Only for approving a security evaluation: the code to run instead.
    #[serde(default)]
    pub edited_code: Option<String>,
}

impl DecisionInput {
    /// Checks the input against the request it decides; an edit equal to the code is no edit.
    pub fn checked(mut self, request: &ClientFrame) -> Result<Self, String> {
        if let Some(reason) = &self.reason {
            check_bytes("reason", reason, MAX_REASON_BYTES)?;
        }
        self.reason = self.reason.filter(|r| !r.trim().is_empty());
        if let Some(edited) = &self.edited_code {
            check_bytes("edited_code", edited, MAX_TEXT_BYTES)?;
            let ClientFrame::SecurityEvaluation(evaluation) = request else {
                return Err("`edited_code` applies only to a security evaluation".into());
            };
            if self.decision != Verdict::Approved {
                return Err("`edited_code` comes only with `approved`".into());
            }
            if *edited == evaluation.code {
                self.edited_code = None;
            }
        }
        Ok(self)
    }
}

/// Which requests the inbox lists, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestQuery {
    #[serde(default)]
    pub status: Option<RequestStatus>,
    #[serde(default)]
    pub client_id: Option<ClientId>,
    /// Only those linked to a call of Warden's own runs (`true`) or only those that are not (`false`).
    #[serde(default)]
    pub linked: Option<bool>,
    /// At most this many (default 100, at most 500).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// What the inbox hears about as it happens (see `OutsideHub::subscribe`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum InboxEvent {
    /// A request now waits for a person.
    Pending { request: Box<OutsideRequest> },
    /// A request was decided (by a person, a policy or a timeout).
    Decided { request: Box<OutsideRequest> },
    /// A person voted on a request that still waits for more approvals (a quorum), or edited its code.
    Voted { request: Box<OutsideRequest> },
}
