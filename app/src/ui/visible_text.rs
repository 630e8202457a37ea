//! Text a model or a client wrote, shown so that nothing in it hides: every invisible or
//! direction-changing character (`warden_types::hidden_chars`: bidi overrides and isolates, zero-width
//! characters, other format and control characters, odd spaces) becomes a marker such as `⟨U+202E⟩`
//! in a style of its own, and a card holding any says so. Every card's command, diff, code,
//! arguments, explanation and output goes through here (chat approval card, inbox item, full-screen
//! view, the call's outside request, the audit log).

use leptos::prelude::*;
use warden_types::hidden_chars::{has_hidden, is_bidi_control, marker, name, pieces, Piece};

/// `text` as text nodes, each hidden character a marked `<span>` (text only: nothing is HTML).
pub fn visible(text: impl Into<String>) -> AnyView {
    let text = text.into();
    if !has_hidden(&text) {
        return text.into_any();
    }
    pieces(&text)
        .into_iter()
        .map(|piece| match piece {
            Piece::Shown(shown) => shown.to_string().into_any(),
            Piece::Hidden(c) => {
                let title = match name(c) {
                    Some(name) => format!("Hidden character U+{:04X} {name}", c as u32),
                    None => format!("Hidden character U+{:04X}", c as u32),
                };
                let class = if is_bidi_control(c) { "hidden-char bidi" } else { "hidden-char" };
                view! { <span class=class title=title>{marker(c)}</span> }.into_any()
            }
        })
        .collect_view()
        .into_any()
}

/// The note a card shows above `texts` when any of them holds a hidden character; `what` names it
/// ("command", "code", "change").
pub fn hidden_chars_note<'a>(what: &str, texts: impl IntoIterator<Item = &'a str>) -> Option<AnyView> {
    if !texts.into_iter().any(has_hidden) {
        return None;
    }
    let text = format!(
        "This {what} contains hidden or direction-changing characters, shown as ⟨U+…⟩ markers: it may read \
         differently in an editor or a terminal than what it does."
    );
    Some(view! { <p class="hidden-chars-note" role="note">{text}</p> }.into_any())
}
