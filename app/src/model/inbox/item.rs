//! One approval in the inbox, whichever side asked for it: its key (stable across refreshes), where
//! it is in its life, what a batch decision with it would span, and how the list shows it.

use serde::{Deserialize, Serialize};
use warden_outside::{OutsideRequest, RequestStatus};

use crate::model::{Approval, ApprovalStatus, CheckStatus, ThreadCheck};
use crate::wording::{check_decision_text, decision_text, kind_label, outside_decision_text, risk_label};
use warden_types::id::PersonId;

/// One approval in the inbox.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "source", content = "item", rename_all = "snake_case")]
pub enum InboxItem {
    /// A gated tool call of one of Warden's runs.
    Chat(Box<Approval>),
    /// A request of an outside executor or agent.
    Outside(Box<OutsideRequest>),
    /// A connection check: a run of a chat waits for an MCP server that is offline or disabled.
    Check(Box<ThreadCheck>),
}

/// Which item: stable across refreshes, and written into the page as `data-key`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "source", content = "id", rename_all = "snake_case")]
pub enum ItemKey {
    Chat(String),
    Outside(String),
    Check(String),
}

impl ItemKey {
    /// `chat:<id>`, `outside:<id>` or `check:<id>`.
    pub fn to_attr(&self) -> String {
        match self {
            ItemKey::Chat(id) => format!("chat:{id}"),
            ItemKey::Outside(id) => format!("outside:{id}"),
            ItemKey::Check(id) => format!("check:{id}"),
        }
    }

    pub fn from_attr(attr: &str) -> Option<Self> {
        match attr.split_once(':')? {
            ("chat", id) if !id.is_empty() => Some(ItemKey::Chat(id.to_string())),
            ("outside", id) if !id.is_empty() => Some(ItemKey::Outside(id.to_string())),
            ("check", id) if !id.is_empty() => Some(ItemKey::Check(id.to_string())),
            _ => None,
        }
    }
}

/// Where an item is in its life, as the status filter sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemState {
    Pending,
    /// Approved, denied, cancelled, superseded: someone or something decided.
    Decided,
    /// Nobody decided in time.
    Expired,
}

/// What a batch decision may span: the pending approvals of one run, or of one outside client.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", content = "id", rename_all = "snake_case")]
pub enum BatchGroup {
    Run(String),
    Client(String),
}

impl InboxItem {
    pub fn key(&self) -> ItemKey {
        match self {
            InboxItem::Chat(a) => ItemKey::Chat(a.id.to_string()),
            InboxItem::Outside(r) => ItemKey::Outside(r.id.to_string()),
            InboxItem::Check(c) => ItemKey::Check(c.check.id.to_string()),
        }
    }

    pub fn created_at(&self) -> &str {
        match self {
            InboxItem::Chat(a) => &a.created_at,
            InboxItem::Outside(r) => &r.created_at,
            InboxItem::Check(c) => &c.check.created_at,
        }
    }

    /// `low`, `medium` or `high`; a code response and a connection check have none. An outside
    /// request's is the higher of the client's claim and Warden's own reading: a client cannot
    /// lower it.
    pub fn risk(&self) -> Option<&'static str> {
        match self {
            InboxItem::Chat(a) => Some(a.risk.label()),
            InboxItem::Outside(r) => r.risk.max(r.warden_risk).map(risk_label),
            InboxItem::Check(_) => None,
        }
    }

    pub fn state(&self) -> ItemState {
        match self {
            InboxItem::Chat(a) => match a.status {
                ApprovalStatus::Pending => ItemState::Pending,
                ApprovalStatus::TimedOut => ItemState::Expired,
                _ => ItemState::Decided,
            },
            InboxItem::Outside(r) => match r.status {
                RequestStatus::Pending => ItemState::Pending,
                RequestStatus::Expired => ItemState::Expired,
                RequestStatus::Approved | RequestStatus::Rejected => ItemState::Decided,
            },
            InboxItem::Check(c) => match c.check.status {
                CheckStatus::Pending => ItemState::Pending,
                _ => ItemState::Decided,
            },
        }
    }

    /// Changes whenever the item must be drawn again: decided, expired, given more time, voted on, edited.
    pub fn revision(&self) -> String {
        match self {
            // A vote (quorum) or an approver's edit leaves it pending: the votes and the shown arguments count.
            InboxItem::Chat(a) => format!(
                "{:?}|{}|{}|{}",
                a.status,
                a.decided_at.as_deref().unwrap_or_default(),
                a.votes.iter().map(|v| v.person.id.as_str()).collect::<Vec<_>>().join(","),
                a.arguments
            ),
            InboxItem::Outside(r) => format!(
                "{:?}|{}|{}|{}|{}",
                r.status,
                r.decided_at.as_deref().unwrap_or_default(),
                r.expires_at,
                r.votes.iter().map(|v| v.person.id.as_str()).collect::<Vec<_>>().join(","),
                r.shown_code.as_deref().unwrap_or_default()
            ),
            // A Connect that did not connect leaves it pending with its error.
            InboxItem::Check(c) => format!(
                "{:?}|{}|{}",
                c.check.status,
                c.check.decided_at.as_deref().unwrap_or_default(),
                c.check.error.as_deref().unwrap_or_default()
            ),
        }
    }

    pub fn is_pending(&self) -> bool {
        self.state() == ItemState::Pending
    }

    /// What a batch decision with it would span; `None` for a connection check, which is decided
    /// on its own (Connect or Continue anyway is no approval or denial).
    pub fn group(&self) -> Option<BatchGroup> {
        match self {
            InboxItem::Chat(a) => Some(BatchGroup::Run(a.run_id.to_string())),
            InboxItem::Outside(r) => Some(BatchGroup::Client(r.client_id.to_string())),
            InboxItem::Check(_) => None,
        }
    }

    /// Where Enter (or "Open") takes the person: the chat of the run (also for an outside request on the
    /// card of one of its calls), or the request full screen.
    pub fn href(&self) -> String {
        match self {
            InboxItem::Chat(a) => format!("/chat/{}", a.thread_id),
            InboxItem::Outside(r) => match &r.linked_call {
                Some(linked) => format!("/chat/{}", linked.thread_id),
                None => format!("/approvals/{}", r.id),
            },
            InboxItem::Check(c) => format!("/chat/{}", c.check.thread_id),
        }
    }

    /// The item's heading. Chat summaries come from the model's call: text only.
    pub fn title(&self) -> String {
        match self {
            InboxItem::Chat(a) => a.summary.clone(),
            InboxItem::Outside(r) => format!("{} from {}", kind_label(r.kind), r.client_name),
            InboxItem::Check(c) => format!("{} is {}", c.check.server, c.check.down.label()),
        }
    }

    /// How it was decided, in words (or that it waits), for the person `me`; `decider`: the name of the
    /// person who decided an outside request (it names them by id).
    pub fn outcome(&self, me: Option<&PersonId>, decider: Option<&str>) -> String {
        match self {
            InboxItem::Chat(a) => decision_text(a, me),
            InboxItem::Outside(r) => outside_decision_text(r, me, decider),
            InboxItem::Check(c) => check_decision_text(c),
        }
    }
}
