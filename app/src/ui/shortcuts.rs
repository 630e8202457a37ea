//! The keyboard shortcuts of every page (the inbox adds its own): which key does what,
//! listed in the dialog `?` opens from the same table. Single keys act only while the person is not
//! typing in a field; Ctrl+K (⌘K) works from anywhere.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Global {
    Search,
    NewChat,
    Composer,
    Stop,
    Help,
}

/// Every shortcut with its key, as the dialog lists them.
pub const GLOBAL_SHORTCUTS: [(&str, Global, &str); 6] = [
    ("/", Global::Search, "Search the threads"),
    ("Ctrl+K", Global::Search, "Search the threads, even while typing"),
    ("n", Global::NewChat, "Start a new chat"),
    ("c", Global::Composer, "Write a message (focus the message box)"),
    ("Escape", Global::Stop, "Stop the run that is answering (outside a field)"),
    ("?", Global::Help, "Show these shortcuts"),
];

/// The approval card's own keys, listed in the dialog too (the card handles them while it has focus).
pub const CARD_SHORTCUTS: [(&str, &str); 3] = [
    ("a", "Approve the focused approval card"),
    ("d", "Deny it (with the reason typed, if any)"),
    ("e", "Edit its arguments"),
];

/// The shortcut of a key press (`KeyboardEvent.key`): `ctrl` is Ctrl or ⌘, `typing` whether the focus
/// is in a text field.
pub fn global_shortcut(key: &str, ctrl: bool, alt: bool, typing: bool) -> Option<Global> {
    if ctrl && !alt && key.eq_ignore_ascii_case("k") {
        return Some(Global::Search);
    }
    if ctrl || alt || typing {
        return None;
    }
    match key {
        "/" => Some(Global::Search),
        "n" => Some(Global::NewChat),
        "c" => Some(Global::Composer),
        "Escape" => Some(Global::Stop),
        "?" => Some(Global::Help),
        _ => None,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InboxShortcut {
    Next,
    Previous,
    Approve,
    Deny,
    ToggleSelect,
    Open,
}

/// The inbox's own keys, as its page and the dialog list them.
pub const INBOX_SHORTCUTS: [(&str, InboxShortcut, &str); 6] = [
    ("j", InboxShortcut::Next, "Focus the next item"),
    ("k", InboxShortcut::Previous, "Focus the previous item"),
    ("a", InboxShortcut::Approve, "Approve the focused item"),
    ("d", InboxShortcut::Deny, "Deny the focused item"),
    ("x", InboxShortcut::ToggleSelect, "Select or unselect the focused item for a batch decision"),
    ("Enter", InboxShortcut::Open, "Open the focused item (its thread, or the request full screen)"),
];

/// The shortcut of a key press (`KeyboardEvent.key`), if any. Presses with Ctrl, Alt or Meta are
/// the browser's.
pub fn inbox_shortcut(key: &str, with_modifier: bool) -> Option<InboxShortcut> {
    if with_modifier {
        return None;
    }
    INBOX_SHORTCUTS.iter().find(|(k, _, _)| *k == key).map(|(_, s, _)| *s)
}

/// Whether the key press is typing into a field (shortcuts stay out of its way). A checkbox
/// is not a field.
#[cfg(feature = "hydrate")]
pub fn is_typing(event: &web_sys::KeyboardEvent) -> bool {
    use wasm_bindgen::JsCast;
    use web_sys::{Element, HtmlElement};
    let Some(target) = event.target().and_then(|t| t.dyn_into::<Element>().ok()) else { return false };
    match target.tag_name().to_ascii_lowercase().as_str() {
        "textarea" | "select" => true,
        "input" => target.get_attribute("type").is_none_or(|t| t != "checkbox"),
        _ => target.dyn_ref::<HtmlElement>().is_some_and(|e| e.is_content_editable()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_keys_wait_until_the_person_is_not_typing_and_ctrl_k_does_not() {
        assert_eq!(global_shortcut("/", false, false, false), Some(Global::Search));
        assert_eq!(global_shortcut("/", false, false, true), None);
        assert_eq!(global_shortcut("n", false, false, true), None);
        assert_eq!(global_shortcut("k", true, false, true), Some(Global::Search));
        assert_eq!(global_shortcut("K", true, false, false), Some(Global::Search));
        assert_eq!(global_shortcut("n", true, false, false), None, "Ctrl+N is the browser's");
        assert_eq!(global_shortcut("?", false, false, false), Some(Global::Help));
        assert_eq!(global_shortcut("x", false, false, false), None);
    }

    #[test]
    fn the_dialog_lists_every_global_shortcut() {
        for global in [Global::Search, Global::NewChat, Global::Composer, Global::Stop, Global::Help] {
            assert!(GLOBAL_SHORTCUTS.iter().any(|(_, g, _)| *g == global), "{global:?}");
        }
    }

    #[test]
    fn each_listed_key_has_its_shortcut_and_modifiers_are_left_alone() {
        assert_eq!(inbox_shortcut("j", false), Some(InboxShortcut::Next));
        assert_eq!(inbox_shortcut("a", false), Some(InboxShortcut::Approve));
        assert_eq!(inbox_shortcut("Enter", false), Some(InboxShortcut::Open));
        assert_eq!(inbox_shortcut("a", true), None, "Ctrl+A selects the page's text");
        assert_eq!(inbox_shortcut("q", false), None);
    }
}
