//! Which items the inbox lists: by source (chats, one outside client), risk and status, and the
//! statuses each filter asks the stores for.

use serde::{Deserialize, Serialize};
use warden_outside::RequestStatus;

use super::item::{InboxItem, ItemState};
use crate::model::{ApprovalStatus, CheckStatus};

/// Which items the inbox lists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InboxFilter {
    pub source: SourceFilter,
    /// `low`, `medium` or `high`; `None` for any (and for code responses, which have no risk).
    pub risk: Option<String>,
    pub status: StatusFilter,
}

impl Default for InboxFilter {
    fn default() -> Self {
        Self { source: SourceFilter::All, risk: None, status: StatusFilter::Pending }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "id", rename_all = "snake_case")]
pub enum SourceFilter {
    All,
    Chat,
    /// One outside client, by id.
    Client(String),
}

impl SourceFilter {
    /// The `<select>` value: `all`, `chat` or `client:<id>`.
    pub fn to_value(&self) -> String {
        match self {
            SourceFilter::All => "all".into(),
            SourceFilter::Chat => "chat".into(),
            SourceFilter::Client(id) => format!("client:{id}"),
        }
    }

    pub fn from_value(value: &str) -> Self {
        match value {
            "chat" => SourceFilter::Chat,
            other => match other.strip_prefix("client:") {
                Some(id) if !id.is_empty() => SourceFilter::Client(id.to_string()),
                _ => SourceFilter::All,
            },
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StatusFilter {
    Pending,
    Decided,
    Expired,
    All,
}

impl StatusFilter {
    pub fn to_value(self) -> &'static str {
        match self {
            StatusFilter::Pending => "pending",
            StatusFilter::Decided => "decided",
            StatusFilter::Expired => "expired",
            StatusFilter::All => "all",
        }
    }

    pub fn from_value(value: &str) -> Self {
        match value {
            "decided" => StatusFilter::Decided,
            "expired" => StatusFilter::Expired,
            "all" => StatusFilter::All,
            _ => StatusFilter::Pending,
        }
    }
}

impl StatusFilter {
    /// The statuses of chat approvals to ask the store for, one query each (`None`: any).
    pub fn chat_statuses(self) -> &'static [Option<ApprovalStatus>] {
        match self {
            StatusFilter::Pending => &[Some(ApprovalStatus::Pending)],
            StatusFilter::Decided => &[
                Some(ApprovalStatus::Approved),
                Some(ApprovalStatus::Denied),
                Some(ApprovalStatus::Cancelled),
                Some(ApprovalStatus::Superseded),
            ],
            StatusFilter::Expired => &[Some(ApprovalStatus::TimedOut)],
            StatusFilter::All => &[None],
        }
    }

    /// The statuses of outside requests to ask the hub for, one query each (`None`: any).
    pub fn outside_statuses(self) -> &'static [Option<RequestStatus>] {
        match self {
            StatusFilter::Pending => &[Some(RequestStatus::Pending)],
            StatusFilter::Decided => &[Some(RequestStatus::Approved), Some(RequestStatus::Rejected)],
            StatusFilter::Expired => &[Some(RequestStatus::Expired)],
            StatusFilter::All => &[None],
        }
    }

    /// The statuses of connection checks to ask the store for, one query each (`None`: any).
    pub fn check_statuses(self) -> &'static [Option<CheckStatus>] {
        match self {
            StatusFilter::Pending => &[Some(CheckStatus::Pending)],
            StatusFilter::Decided => {
                &[Some(CheckStatus::Connected), Some(CheckStatus::ContinuedWithout), Some(CheckStatus::Cancelled)]
            }
            // A check waits as long as its run does.
            StatusFilter::Expired => &[],
            StatusFilter::All => &[None],
        }
    }
}

impl InboxFilter {
    pub fn wants_chat(&self) -> bool {
        matches!(self.source, SourceFilter::All | SourceFilter::Chat)
    }

    /// The outside client to list: `Some(None)` for all of them, `None` for none.
    pub fn wants_outside(&self) -> Option<Option<&str>> {
        match &self.source {
            SourceFilter::All => Some(None),
            SourceFilter::Chat => None,
            SourceFilter::Client(id) => Some(Some(id)),
        }
    }

    pub fn matches(&self, item: &InboxItem) -> bool {
        let source = match (&self.source, item) {
            (SourceFilter::All, _) => true,
            (SourceFilter::Chat, InboxItem::Chat(_) | InboxItem::Check(_)) => true,
            // On the card of one of Warden's calls: the chat's.
            (SourceFilter::Chat, InboxItem::Outside(r)) => r.linked_call.is_some(),
            (SourceFilter::Client(id), InboxItem::Outside(r)) => r.client_id == *id,
            _ => false,
        };
        let risk = self.risk.as_deref().is_none_or(|want| item.risk() == Some(want));
        let status = match self.status {
            StatusFilter::All => true,
            StatusFilter::Pending => item.state() == ItemState::Pending,
            StatusFilter::Decided => item.state() == ItemState::Decided,
            StatusFilter::Expired => item.state() == ItemState::Expired,
        };
        source && risk && status
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::inbox::fixtures::{chat, evaluation, outside, response};
    use crate::model::inbox::item::ItemKey;
    use warden_outside::protocol::RiskLevel;

    #[test]
    fn filters_select_by_source_risk_and_state() {
        let pending_chat = chat("a", "run1", ApprovalStatus::Pending, "2026-01-01T00:00:01.000Z");
        let timed_out = chat("b", "run1", ApprovalStatus::TimedOut, "2026-01-01T00:00:02.000Z");
        let high = outside("x", "cl1", evaluation(RiskLevel::High), RequestStatus::Pending, "2026-01-01T00:00:03.000Z");
        let expired = outside("y", "cl2", response(), RequestStatus::Expired, "2026-01-01T00:00:04.000Z");
        let approved =
            outside("z", "cl2", evaluation(RiskLevel::Low), RequestStatus::Approved, "2026-01-01T00:00:05.000Z");
        let all = [&pending_chat, &timed_out, &high, &expired, &approved];
        let keys = |filter: &InboxFilter| -> Vec<ItemKey> {
            all.iter().filter(|i| filter.matches(i)).map(|i| i.key()).collect()
        };
        assert_eq!(keys(&InboxFilter::default()), [pending_chat.key(), high.key()]);
        let expired_any = InboxFilter { status: StatusFilter::Expired, ..InboxFilter::default() };
        assert_eq!(keys(&expired_any), [timed_out.key(), expired.key()]);
        let client2 = InboxFilter { source: SourceFilter::Client("cl2".into()), risk: None, status: StatusFilter::All };
        assert_eq!(keys(&client2), [expired.key(), approved.key()]);
        let high_only = InboxFilter { risk: Some("high".into()), status: StatusFilter::All, ..InboxFilter::default() };
        assert_eq!(keys(&high_only), [high.key()]);
        let decided_chat = InboxFilter { source: SourceFilter::Chat, risk: None, status: StatusFilter::Decided };
        assert!(keys(&decided_chat).is_empty());
    }

    #[test]
    fn each_status_filter_asks_the_stores_for_exactly_the_statuses_it_shows() {
        use ApprovalStatus as A;
        let chat_all = [A::Pending, A::Approved, A::Denied, A::TimedOut, A::Cancelled, A::Superseded];
        let outside_all =
            [RequestStatus::Pending, RequestStatus::Approved, RequestStatus::Rejected, RequestStatus::Expired];
        for status in [StatusFilter::Pending, StatusFilter::Decided, StatusFilter::Expired, StatusFilter::All] {
            let filter = InboxFilter { status, ..InboxFilter::default() };
            for s in chat_all {
                let asked = status.chat_statuses().iter().any(|q| q.is_none_or(|q| q == s));
                let item = chat("a", "run1", s, "2026-01-01T00:00:01.000Z");
                assert_eq!(asked, filter.matches(&item), "{status:?} {s:?}");
            }
            for s in outside_all {
                let asked = status.outside_statuses().iter().any(|q| q.is_none_or(|q| q == s));
                let item = outside("x", "cl1", evaluation(RiskLevel::Low), s, "2026-01-01T00:00:01.000Z");
                assert_eq!(asked, filter.matches(&item), "{status:?} {s:?}");
            }
        }
    }

    #[test]
    fn keys_and_filter_values_round_trip_through_the_page() {
        for key in [ItemKey::Chat("a-1".into()), ItemKey::Outside("o:2".into())] {
            assert_eq!(ItemKey::from_attr(&key.to_attr()), Some(key));
        }
        assert_eq!(ItemKey::from_attr("chat:"), None);
        assert_eq!(ItemKey::from_attr("other:x"), None);
        for source in [SourceFilter::All, SourceFilter::Chat, SourceFilter::Client("c1".into())] {
            assert_eq!(SourceFilter::from_value(&source.to_value()), source);
        }
        for status in [StatusFilter::Pending, StatusFilter::Decided, StatusFilter::Expired, StatusFilter::All] {
            assert_eq!(StatusFilter::from_value(status.to_value()), status);
        }
    }
}
