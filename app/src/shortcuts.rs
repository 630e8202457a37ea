//! The keyboard shortcuts of every page (the inbox adds its own, `inbox_keys`): which key does what,
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
}
