//! What the inbox shows: every approval, from Warden's own chats (gated tool calls and connection
//! checks, a run waiting for an MCP server) and from outside clients (their requests), as one list;
//! the filters on it; and the rule for batch decisions. Plain data and functions, the same on the
//! server and in the browser, one job a module.

pub mod decide;
pub mod filter;
pub mod item;
pub mod list;
pub mod order;
pub mod trim;

#[cfg(test)]
mod fixtures;

/// A connection check across the modules: listed with the chats, without risk, never batched.
#[cfg(test)]
mod tests {
    use super::decide::batch_group;
    use super::filter::{InboxFilter, SourceFilter, StatusFilter};
    use super::fixtures::{chat, check};
    use super::item::ItemKey;
    use super::order::sort_newest_first;
    use crate::model::{ApprovalStatus, CheckStatus};

    #[test]
    fn a_connection_check_is_a_chat_item_without_risk_that_is_never_batched() {
        let waiting = check("c", CheckStatus::Pending, "2026-01-01T00:00:03.000Z");
        assert_eq!(waiting.key().to_attr(), "check:c");
        assert_eq!(ItemKey::from_attr("check:c"), Some(waiting.key()));
        assert_eq!(waiting.href(), "/chat/t1");
        assert_eq!(waiting.title(), "fx is offline");
        let chats = InboxFilter { source: SourceFilter::Chat, risk: None, status: StatusFilter::Pending };
        assert!(chats.matches(&waiting));
        assert!(InboxFilter::default().matches(&waiting));
        let client = InboxFilter { source: SourceFilter::Client("cl1".into()), ..InboxFilter::default() };
        assert!(!client.matches(&waiting));
        let risky = InboxFilter { risk: Some("low".into()), ..InboxFilter::default() };
        assert!(!risky.matches(&waiting), "a check has no risk");
        for status in [StatusFilter::Pending, StatusFilter::Decided, StatusFilter::Expired, StatusFilter::All] {
            let filter = InboxFilter { status, ..InboxFilter::default() };
            for s in
                [CheckStatus::Pending, CheckStatus::Connected, CheckStatus::ContinuedWithout, CheckStatus::Cancelled]
            {
                let asked = status.check_statuses().iter().any(|q| q.is_none_or(|q| q == s));
                assert_eq!(asked, filter.matches(&check("c", s, "2026-01-01T00:00:01.000Z")), "{status:?} {s:?}");
            }
        }
        let approval = chat("a", "run1", ApprovalStatus::Pending, "2026-01-01T00:00:01.000Z");
        assert!(batch_group(&[&waiting]).unwrap_err().contains("on its own"));
        assert!(batch_group(&[&approval, &waiting]).unwrap_err().contains("on its own"));
        let mut items = vec![approval, waiting];
        sort_newest_first(&mut items);
        assert_eq!(items[0].key(), ItemKey::Check("c".into()), "newest first with the approvals");
    }
}
