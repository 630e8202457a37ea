//! The inbox's keyboard focus (its keys are listed in `ui::shortcuts`, with the page's others):
//! where the focus goes after a decision, and, in the browser, moving focus among the items and
//! finding the focused one. The items are `.inbox-item` elements with their key in `data-key`.
//!
//! After a decision the focus follows items, not places: new requests arrive at the top, so the
//! item "now in that place" may be one nobody has looked at, and a following `a` would approve it.
//! The focus goes only to an item that was listed when the person last moved the focus themselves.

use crate::model::inbox::item::ItemKey;

/// The item a new focus goes to: one step from `current` (none focused: the first), kept in range.
pub fn step(current: Option<usize>, forward: bool, len: usize) -> Option<usize> {
    if len == 0 {
        return None;
    }
    Some(match (current, forward) {
        (None, _) => 0,
        (Some(i), true) => (i + 1).min(len - 1),
        (Some(i), false) => i.saturating_sub(1),
    })
}

/// Where the focus goes once the list shows a decision: taken when the decision is asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FocusPlan {
    pub decided: ItemKey,
    /// In order: the decided item itself (still listed under "All"), the one after it, the one
    /// before it; neighbours only if they were listed when the person last moved the focus.
    pub candidates: Vec<ItemKey>,
}

impl FocusPlan {
    /// `listed`: the items on the page now, in order; `seen`: those listed at the person's last
    /// focus action (a key, a click, Tab).
    pub fn new(decided: ItemKey, listed: &[ItemKey], seen: &[ItemKey]) -> Self {
        let mut candidates = vec![decided.clone()];
        if let Some(at) = listed.iter().position(|k| *k == decided) {
            let after = listed.get(at + 1);
            let before = at.checked_sub(1).and_then(|i| listed.get(i));
            candidates.extend([after, before].into_iter().flatten().filter(|k| seen.contains(k)).cloned());
        }
        Self { decided, candidates }
    }

    /// What to do with a list (each item's key and whether it is pending).
    pub fn next(&self, listed: &[(ItemKey, bool)]) -> FocusStep {
        if listed.iter().any(|(k, pending)| *k == self.decided && *pending) {
            // A list asked for before the decision landed.
            return FocusStep::Wait;
        }
        match self.candidates.iter().find(|c| listed.iter().any(|(k, _)| k == *c)) {
            Some(key) => FocusStep::Focus(key.clone()),
            None => FocusStep::Leave,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FocusStep {
    /// The list does not show the decision yet.
    Wait,
    Focus(ItemKey),
    /// None of the candidates is listed: the focus is left where it is (nowhere).
    Leave,
}

#[cfg(feature = "hydrate")]
pub use browser::*;

#[cfg(feature = "hydrate")]
mod browser {
    use leptos::prelude::document;
    use wasm_bindgen::JsCast;
    use web_sys::HtmlElement;

    use crate::model::inbox::item::ItemKey;

    const ITEM: &str = ".inbox-item";

    fn items() -> Vec<HtmlElement> {
        let Ok(list) = document().query_selector_all(ITEM) else { return Vec::new() };
        (0..list.length()).filter_map(|i| list.item(i)?.dyn_into::<HtmlElement>().ok()).collect()
    }

    /// The focused item (or the one the focus is inside), its key and its place in the list.
    pub fn focused() -> Option<(ItemKey, usize)> {
        let active = document().active_element()?;
        let item = active.closest(ITEM).ok()??;
        let key = ItemKey::from_attr(&item.get_attribute("data-key")?)?;
        let index = items().iter().position(|e| e.is_same_node(Some(&item)))?;
        Some((key, index))
    }

    /// Whether the focus is on an item itself (not on a button or link inside it).
    pub fn item_has_focus() -> bool {
        document().active_element().is_some_and(|e| e.matches(ITEM).unwrap_or(false))
    }

    pub fn item_count() -> usize {
        items().len()
    }

    /// Focuses the item at `index` (the last one if there are fewer).
    pub fn focus_item(index: usize) {
        let items = items();
        if let Some(item) = items.get(index).or(items.last()) {
            let _ = item.focus();
        }
    }

    /// The keys of the items on the page, in order.
    pub fn listed_keys() -> Vec<ItemKey> {
        items().iter().filter_map(|e| ItemKey::from_attr(&e.get_attribute("data-key")?)).collect()
    }

    /// Focuses the item `key`, if it is on the page.
    pub fn focus_key(key: &ItemKey) {
        let attr = key.to_attr();
        if let Some(item) = items().into_iter().find(|e| e.get_attribute("data-key").as_deref() == Some(attr.as_str()))
        {
            let _ = item.focus();
        }
    }

    /// Whether the focus is nowhere (its item left the page) or still in the item `key`: then the
    /// page may move it; otherwise the person has put it somewhere since.
    pub fn focus_is_free(key: &ItemKey) -> bool {
        let document = document();
        let Some(active) = document.active_element() else { return true };
        if document.body().is_some_and(|body| body.is_same_node(Some(&active))) {
            return true;
        }
        let item = active.closest(ITEM).ok().flatten();
        item.and_then(|i| i.get_attribute("data-key")).is_some_and(|k| k == key.to_attr())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn focus_moves_one_step_and_stays_in_the_list() {
        assert_eq!(step(None, true, 3), Some(0));
        assert_eq!(step(None, false, 3), Some(0));
        assert_eq!(step(Some(0), true, 3), Some(1));
        assert_eq!(step(Some(2), true, 3), Some(2));
        assert_eq!(step(Some(0), false, 3), Some(0));
        assert_eq!(step(Some(1), false, 3), Some(0));
        assert_eq!(step(None, true, 0), None);
    }

    fn keys(ids: &[&str]) -> Vec<ItemKey> {
        ids.iter().map(|id| ItemKey::Outside(id.to_string())).collect()
    }

    fn pending(ids: &[&str]) -> Vec<(ItemKey, bool)> {
        keys(ids).into_iter().map(|k| (k, true)).collect()
    }

    #[test]
    fn after_a_decision_the_focus_goes_to_the_next_item_then_the_previous_one_by_key() {
        let seen = keys(&["c", "b", "a"]);
        let plan = FocusPlan::new(ItemKey::Outside("b".into()), &seen, &seen);
        assert_eq!(plan.next(&pending(&["c", "b", "a"])), FocusStep::Wait, "the decision is not listed yet");
        assert_eq!(plan.next(&pending(&["c", "a"])), FocusStep::Focus(ItemKey::Outside("a".into())));
        // A request that arrived meanwhile takes the top place: the focus still goes to `a`.
        assert_eq!(plan.next(&pending(&["new", "c", "a"])), FocusStep::Focus(ItemKey::Outside("a".into())));
        // `a` was decided elsewhere meanwhile: the one before.
        assert_eq!(plan.next(&pending(&["c"])), FocusStep::Focus(ItemKey::Outside("c".into())));
        assert_eq!(plan.next(&pending(&[])), FocusStep::Leave);
        // Under "All" the decided item stays listed, decided: the focus stays on it.
        let listed = vec![(ItemKey::Outside("c".into()), true), (ItemKey::Outside("b".into()), false)];
        assert_eq!(plan.next(&listed), FocusStep::Focus(ItemKey::Outside("b".into())));
    }

    #[test]
    fn the_focus_never_goes_to_an_item_that_arrived_after_the_person_last_moved_it() {
        // The person focused `b` while only `b` was listed; `new` arrived above it since.
        let plan = FocusPlan::new(ItemKey::Outside("b".into()), &keys(&["new", "b"]), &keys(&["b"]));
        assert_eq!(plan.candidates, keys(&["b"]));
        assert_eq!(plan.next(&pending(&["new"])), FocusStep::Leave);
        // One that was there is still a neighbour.
        let plan = FocusPlan::new(ItemKey::Outside("b".into()), &keys(&["new", "b", "a"]), &keys(&["b", "a"]));
        assert_eq!(plan.next(&pending(&["new"])), FocusStep::Leave);
        assert_eq!(plan.next(&pending(&["new", "a"])), FocusStep::Focus(ItemKey::Outside("a".into())));
    }
}
