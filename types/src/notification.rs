//! Reaching a person away from the app: which request a notification or a decision link is about, why it
//! was sent, and what became of it (sent, delivered by the channel, opened by the person), as the inbox
//! shows "what was sent to whom".

use serde::{Deserialize, Serialize};

use crate::id::{ApprovalId, NotificationId, OutsideRequestId, PersonId};

/// A request a person is asked to decide: a gated call of Warden's own runs or an outside request.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", content = "id", rename_all = "snake_case")]
pub enum RequestRef {
    Approval(ApprovalId),
    Outside(OutsideRequestId),
}

impl RequestRef {
    /// How the kind is stored (`approval`, `outside`).
    pub fn kind(&self) -> &'static str {
        match self {
            RequestRef::Approval(_) => "approval",
            RequestRef::Outside(_) => "outside",
        }
    }

    pub fn id(&self) -> &str {
        match self {
            RequestRef::Approval(id) => id.as_str(),
            RequestRef::Outside(id) => id.as_str(),
        }
    }

    /// The request a stored kind and id name; `None` for a kind this build does not know.
    pub fn from_parts(kind: &str, id: String) -> Option<Self> {
        match kind {
            "approval" => Some(RequestRef::Approval(id.into())),
            "outside" => Some(RequestRef::Outside(id.into())),
            _ => None,
        }
    }
}

/// Why a notification was sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::IntoStaticStr, strum::EnumString)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum NotificationReason {
    /// The request arrived and is theirs to decide.
    Request,
    /// Nobody decided yet: asked again.
    Reminder,
    /// Nobody answered in time: the request went to the next group.
    Escalated,
}

/// One message sent about a request, and what became of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotificationRecord {
    pub id: NotificationId,
    pub request: RequestRef,
    /// Whose channel it went to (`None`: a shared channel, such as a team's chat).
    pub person_id: Option<PersonId>,
    /// Their name when it was sent.
    pub person_name: Option<String>,
    /// `email`, `webhook`, `slack`, `discord`, `ntfy`, `web_push`.
    pub channel_kind: String,
    pub channel_name: String,
    pub reason: NotificationReason,
    /// The escalation step it belongs to (0: the first group).
    pub step: u32,
    pub created_at: String,
    /// When the channel took it, and its answer ("250 2.0.0 queued", "HTTP 201").
    pub delivered_at: Option<String>,
    pub detail: Option<String>,
    /// When sending failed, and why.
    pub failed_at: Option<String>,
    pub error: Option<String>,
    /// When a link it carried was first opened.
    pub opened_at: Option<String>,
}

impl NotificationRecord {
    /// Its state in a word: `opened`, `delivered`, `failed`, `sending`.
    pub fn state(&self) -> &'static str {
        if self.opened_at.is_some() {
            "opened"
        } else if self.delivered_at.is_some() {
            "delivered"
        } else if self.failed_at.is_some() {
            "failed"
        } else {
            "sending"
        }
    }
}
