//! The inbox's keyboard shortcuts: which key does what (listed on the page from the same table),
//! and, in the browser, moving focus among the items and finding the focused one. The items are
//! `.inbox-item` elements with their key in `data-key`.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shortcut {
    Next,
    Previous,
    Approve,
    Deny,
    ToggleSelect,
    Open,
}

/// Every shortcut with its key, as the page lists them.
pub const SHORTCUTS: [(&str, Shortcut, &str); 6] = [
    ("j", Shortcut::Next, "Focus the next item"),
    ("k", Shortcut::Previous, "Focus the previous item"),
    ("a", Shortcut::Approve, "Approve the focused item"),
    ("d", Shortcut::Deny, "Deny the focused item"),
    ("x", Shortcut::ToggleSelect, "Select or unselect the focused item for a batch decision"),
    ("Enter", Shortcut::Open, "Open the focused item (its thread, or the request full screen)"),
];

/// The shortcut of a key press (`KeyboardEvent.key`), if any. Presses with Ctrl, Alt or Meta are
/// the browser's.
pub fn shortcut(key: &str, with_modifier: bool) -> Option<Shortcut> {
    if with_modifier {
        return None;
    }
    SHORTCUTS.iter().find(|(k, _, _)| *k == key).map(|(_, s, _)| *s)
}

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

#[cfg(feature = "hydrate")]
pub use browser::*;

#[cfg(feature = "hydrate")]
mod browser {
    use leptos::prelude::document;
    use wasm_bindgen::JsCast;
    use web_sys::{Element, HtmlElement, KeyboardEvent};

    use crate::inbox::ItemKey;

    const ITEM: &str = ".inbox-item";

    /// Whether the key press is typing into a field (shortcuts stay out of its way). A checkbox
    /// is not a field.
    pub fn is_typing(event: &KeyboardEvent) -> bool {
        let Some(target) = event.target().and_then(|t| t.dyn_into::<Element>().ok()) else { return false };
        match target.tag_name().to_ascii_lowercase().as_str() {
            "textarea" | "select" => true,
            "input" => target.get_attribute("type").is_none_or(|t| t != "checkbox"),
            _ => target.dyn_ref::<HtmlElement>().is_some_and(|e| e.is_content_editable()),
        }
    }

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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_listed_key_has_its_shortcut_and_modifiers_are_left_alone() {
        assert_eq!(shortcut("j", false), Some(Shortcut::Next));
        assert_eq!(shortcut("a", false), Some(Shortcut::Approve));
        assert_eq!(shortcut("Enter", false), Some(Shortcut::Open));
        assert_eq!(shortcut("a", true), None, "Ctrl+A selects the page's text");
        assert_eq!(shortcut("q", false), None);
    }

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
}
