//! The order of the inbox: newest first, a fair share for each source when there are too many, and
//! rows that keep their places while the page is open.

use super::item::{InboxItem, ItemKey};

/// Most items one list carries, newest first.
pub const MAX_LISTED: usize = 500;

/// Puts the items in inbox order, newest first (the stored times are RFC 3339 in UTC with
/// milliseconds on both sides, so they sort as text); ties by key, so the order is stable.
pub fn sort_newest_first(items: &mut [InboxItem]) {
    items.sort_by(|a, b| b.created_at().cmp(a.created_at()).then_with(|| a.key().to_attr().cmp(&b.key().to_attr())));
}

/// Who an item came from, for [`fair_share`]: Warden's own chats (their approvals, connection checks
/// and the requests on their calls' cards) or one outside client.
fn source_of(item: &InboxItem) -> &str {
    match item {
        InboxItem::Chat(_) | InboxItem::Check(_) => "",
        InboxItem::Outside(r) if r.linked_call.is_some() => "",
        InboxItem::Outside(r) => r.client_id.as_str(),
    }
}

/// At most `max` of `items`, shared out among their sources: the pending ones first, then the newest,
/// taken from each source in turn, so a client that floods the inbox fills only its own share and
/// never hides a chat's approval or another client's request. In inbox order.
pub fn fair_share(mut items: Vec<InboxItem>, max: usize) -> Vec<InboxItem> {
    if items.len() > max {
        sort_newest_first(&mut items);
        // Pending before decided (stable: newest first within each).
        items.sort_by_key(|item| !item.is_pending());
        let mut by_source: Vec<(String, std::collections::VecDeque<InboxItem>)> = Vec::new();
        for item in items {
            let source = source_of(&item).to_string();
            match by_source.iter_mut().find(|(s, _)| *s == source) {
                Some((_, queue)) => queue.push_back(item),
                None => by_source.push((source, [item].into())),
            }
        }
        let mut taken = Vec::with_capacity(max);
        while taken.len() < max && by_source.iter().any(|(_, queue)| !queue.is_empty()) {
            for (_, queue) in &mut by_source {
                if taken.len() < max {
                    taken.extend(queue.pop_front());
                }
            }
        }
        items = taken;
    }
    sort_newest_first(&mut items);
    items
}

/// The order the inbox shows its rows in, kept while the page is open: an item listed stays where it
/// is, and one that arrives later goes below the rest (a flood of requests never moves a row, or its
/// Approve button, under the person's pointer). [`RowOrder::arrived`] counts those below.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowOrder {
    keys: Vec<ItemKey>,
    /// Items that arrived after the order was last started over, in `keys`.
    arrived: Vec<ItemKey>,
    started: bool,
}

impl RowOrder {
    /// `items` (in inbox order) in the order their rows keep; the first list sets it.
    pub fn arrange(&mut self, items: Vec<InboxItem>) -> Vec<InboxItem> {
        let listed: std::collections::HashSet<ItemKey> = items.iter().map(InboxItem::key).collect();
        self.keys.retain(|key| listed.contains(key));
        self.arrived.retain(|key| listed.contains(key));
        let mut position: std::collections::HashMap<ItemKey, usize> =
            self.keys.iter().enumerate().map(|(i, key)| (key.clone(), i)).collect();
        for item in &items {
            let key = item.key();
            if !position.contains_key(&key) {
                position.insert(key.clone(), self.keys.len());
                if self.started {
                    self.arrived.push(key.clone());
                }
                self.keys.push(key);
            }
        }
        self.started = true;
        let mut items = items;
        items.sort_by_key(|item| position.get(&item.key()).copied().unwrap_or(usize::MAX));
        items
    }

    /// How many rows arrived below since the order was started over.
    pub fn arrived(&self) -> usize {
        self.arrived.len()
    }

    /// Forgets the order: the next list is shown in inbox order (newest first).
    pub fn start_over(&mut self) {
        *self = Self::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::inbox::fixtures::{chat, outside, response};
    use crate::model::ApprovalStatus;
    use warden_outside::RequestStatus;

    #[test]
    fn the_list_is_newest_first_across_sources() {
        let mut items = vec![
            chat("a", "run1", ApprovalStatus::Pending, "2026-01-01T00:00:01.000Z"),
            outside("x", "cl1", response(), RequestStatus::Pending, "2026-01-01T00:00:03.000Z"),
            chat("b", "run1", ApprovalStatus::Pending, "2026-01-01T00:00:02.000Z"),
        ];
        sort_newest_first(&mut items);
        let order: Vec<String> = items.iter().map(|i| i.key().to_attr()).collect();
        assert_eq!(order, ["outside:x", "chat:b", "chat:a"]);
    }

    /// 600 requests of one client, newer than everything else, take only their share of the 500 listed:
    /// the chat's approval and the other client's request are still there.
    #[test]
    fn a_flood_from_one_client_hides_no_other_source() {
        let mut items = vec![
            chat("mine", "run1", ApprovalStatus::Pending, "2026-01-01T00:00:01.000Z"),
            outside("quiet", "cl2", response(), RequestStatus::Pending, "2026-01-01T00:00:02.000Z"),
        ];
        for i in 0..600 {
            let at = format!("2026-01-01T01:{:02}:{:02}.000Z", i / 60, i % 60);
            items.push(outside(&format!("flood{i}"), "cl1", response(), RequestStatus::Pending, &at));
        }
        let listed = fair_share(items, MAX_LISTED);
        assert_eq!(listed.len(), MAX_LISTED);
        let keys: Vec<String> = listed.iter().map(|i| i.key().to_attr()).collect();
        assert!(keys.contains(&"chat:mine".to_string()) && keys.contains(&"outside:quiet".to_string()));
        // Newest first still; the flood's newest are the ones kept.
        assert_eq!(keys[0], "outside:flood599");
        assert_eq!(keys[MAX_LISTED - 1], "chat:mine");
        // Under the cap nothing is left out.
        assert_eq!(fair_share(listed[..10].to_vec(), MAX_LISTED).len(), 10);
    }

    /// Rows keep their places: what arrives goes below, what is decided leaves, and starting over
    /// shows the newest first again.
    #[test]
    fn rows_keep_their_places_and_newcomers_go_below() {
        let at = |s: u32| format!("2026-01-01T00:00:{s:02}.000Z");
        let item = |id: &str, s: u32| chat(id, "run1", ApprovalStatus::Pending, &at(s));
        let keys = |items: &[InboxItem]| items.iter().map(|i| i.key().to_attr()).collect::<Vec<_>>();
        let mut order = RowOrder::default();
        let first = order.arrange(vec![item("b", 2), item("a", 1)]);
        assert_eq!(keys(&first), ["chat:b", "chat:a"]);
        assert_eq!(order.arrived(), 0);
        // Newer ones arrive (listed first by the server), one is decided.
        let next = order.arrange(vec![item("d", 4), item("c", 3), item("b", 2)]);
        assert_eq!(keys(&next), ["chat:b", "chat:d", "chat:c"]);
        assert_eq!(order.arrived(), 2);
        let later = order.arrange(vec![item("e", 5), item("d", 4), item("c", 3), item("b", 2)]);
        assert_eq!(keys(&later), ["chat:b", "chat:d", "chat:c", "chat:e"]);
        order.start_over();
        let fresh = order.arrange(vec![item("e", 5), item("d", 4), item("c", 3), item("b", 2)]);
        assert_eq!(keys(&fresh), ["chat:e", "chat:d", "chat:c", "chat:b"]);
        assert_eq!(order.arrived(), 0);
    }
}
