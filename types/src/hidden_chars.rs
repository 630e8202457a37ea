//! Characters a person cannot see, or that change how the text around them reads (Trojan Source):
//! bidi overrides and isolates, zero-width characters, other format and control characters, spaces
//! that are not U+0020, line and paragraph separators. Every card shows them as a visible marker
//! (`⟨U+202E⟩`), and the shell risk reader never calls a command with one "low". One table for both.

use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

/// Whether `c` is hidden or direction-changing: shown as its marker, never raw. Tab and line feed
/// are the only control characters shown as themselves.
pub fn is_hidden(c: char) -> bool {
    match c {
        '\t' | '\n' | ' ' => false,
        // Letters and marks that draw nothing: Hangul fillers, the braille blank, the combining
        // grapheme joiner and the variation selectors.
        '\u{034F}' | '\u{115F}' | '\u{1160}' | '\u{2800}' | '\u{3164}' | '\u{FFA0}' => true,
        '\u{180B}'..='\u{180F}' | '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}' => true,
        _ => matches!(
            c.general_category(),
            GeneralCategory::Format
                | GeneralCategory::Control
                | GeneralCategory::SpaceSeparator
                | GeneralCategory::LineSeparator
                | GeneralCategory::ParagraphSeparator
                | GeneralCategory::PrivateUse
                | GeneralCategory::Surrogate
                | GeneralCategory::Unassigned
        ),
    }
}

/// Whether `c` changes the direction text is shown in (embeddings, overrides, isolates, marks).
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Whether `text` holds any hidden or direction-changing character.
pub fn has_hidden(text: &str) -> bool {
    text.chars().any(is_hidden)
}

/// How `c` is shown: `⟨U+202E⟩`.
pub fn marker(c: char) -> String {
    format!("⟨U+{:04X}⟩", c as u32)
}

/// A short name of `c`, for a tooltip; the commonest ones only.
pub fn name(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{061C}' => "ARABIC LETTER MARK",
        '\u{00A0}' => "NO-BREAK SPACE",
        '\u{00AD}' => "SOFT HYPHEN",
        '\u{200B}' => "ZERO WIDTH SPACE",
        '\u{200C}' => "ZERO WIDTH NON-JOINER",
        '\u{200D}' => "ZERO WIDTH JOINER",
        '\u{200E}' => "LEFT-TO-RIGHT MARK",
        '\u{200F}' => "RIGHT-TO-LEFT MARK",
        '\u{2028}' => "LINE SEPARATOR",
        '\u{2029}' => "PARAGRAPH SEPARATOR",
        '\u{202A}' => "LEFT-TO-RIGHT EMBEDDING",
        '\u{202B}' => "RIGHT-TO-LEFT EMBEDDING",
        '\u{202C}' => "POP DIRECTIONAL FORMATTING",
        '\u{202D}' => "LEFT-TO-RIGHT OVERRIDE",
        '\u{202E}' => "RIGHT-TO-LEFT OVERRIDE",
        '\u{2060}' => "WORD JOINER",
        '\u{2066}' => "LEFT-TO-RIGHT ISOLATE",
        '\u{2067}' => "RIGHT-TO-LEFT ISOLATE",
        '\u{2068}' => "FIRST STRONG ISOLATE",
        '\u{2069}' => "POP DIRECTIONAL ISOLATE",
        '\u{FEFF}' => "ZERO WIDTH NO-BREAK SPACE (BOM)",
        '\r' => "CARRIAGE RETURN",
        '\u{1B}' => "ESCAPE",
        _ => return None,
    })
}

/// A run of `text`: characters shown as they are, or one hidden character.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece<'a> {
    Shown(&'a str),
    Hidden(char),
}

/// `text` as runs of shown text and single hidden characters, in order.
pub fn pieces(text: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (at, c) in text.char_indices() {
        if is_hidden(c) {
            if start < at {
                out.push(Piece::Shown(&text[start..at]));
            }
            out.push(Piece::Hidden(c));
            start = at + c.len_utf8();
        }
    }
    if start < text.len() {
        out.push(Piece::Shown(&text[start..]));
    }
    out
}

/// `text` with every hidden character replaced by its marker, for places that show plain text only
/// (an editor's field, a tooltip).
pub fn made_visible(text: &str) -> String {
    pieces(text)
        .into_iter()
        .map(|piece| match piece {
            Piece::Shown(s) => s.to_string(),
            Piece::Hidden(c) => marker(c),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bidi_zero_width_and_separators_are_hidden() {
        let listed = [
            '\u{202A}',
            '\u{202B}',
            '\u{202C}',
            '\u{202D}',
            '\u{202E}',
            '\u{2066}',
            '\u{2067}',
            '\u{2068}',
            '\u{2069}',
            '\u{200B}',
            '\u{200C}',
            '\u{200D}',
            '\u{200E}',
            '\u{200F}',
            '\u{FEFF}',
            '\u{2028}',
            '\u{2029}',
            '\u{061C}',
            '\u{00AD}',
            '\u{2060}',
            '\u{00A0}',
            '\u{3000}',
            '\u{3164}',
            '\u{FE0F}',
            '\u{E0041}',
            '\u{E0100}',
            '\r',
            '\u{1B}',
            '\u{7F}',
            '\u{0}',
            '\u{85}',
            '\u{E000}',
            '\u{10FFFF}',
        ];
        for c in listed {
            assert!(is_hidden(c), "{}", marker(c));
        }
    }

    #[test]
    fn ordinary_text_tab_and_newline_are_shown() {
        for text in ["ls -la /tmp\n\techo ok", "héllo wörld", "日本語のテキスト", "שלום عربى", "emoji 🎉 ✓"]
        {
            assert!(!has_hidden(text), "{text}");
            assert_eq!(made_visible(text), text);
        }
    }

    #[test]
    fn the_bidi_controls_are_those_that_change_direction() {
        assert!(is_bidi_control('\u{202E}') && is_bidi_control('\u{2067}') && is_bidi_control('\u{200F}'));
        assert!(!is_bidi_control('\u{200B}') && !is_bidi_control('a'));
    }

    #[test]
    fn a_trojan_source_line_is_cut_into_shown_runs_and_markers() {
        let line = "echo ok #\u{202E} }\u{2066}rm -rf ~\u{2069}";
        assert_eq!(
            pieces(line),
            vec![
                Piece::Shown("echo ok #"),
                Piece::Hidden('\u{202E}'),
                Piece::Shown(" }"),
                Piece::Hidden('\u{2066}'),
                Piece::Shown("rm -rf ~"),
                Piece::Hidden('\u{2069}'),
            ]
        );
        assert_eq!(made_visible(line), "echo ok #⟨U+202E⟩ }⟨U+2066⟩rm -rf ~⟨U+2069⟩");
        assert_eq!(made_visible("\u{200B}"), "⟨U+200B⟩");
        assert_eq!(marker('\u{E0041}'), "⟨U+E0041⟩");
    }
}
