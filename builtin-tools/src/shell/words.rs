//! One shell word, read through brush-parser's word pieces: its plain literal value when every piece
//! is literal text (no expansion, substitution, glob, brace, tilde, `$'…'` or `$"…"`), otherwise a
//! display form that keeps the source text of each expansion; and the command substitutions inside it.

use brush_parser::word::{self, WordPiece, WordPieceWithSource};
use brush_parser::ParserOptions;

/// What a word is made of.
#[derive(Debug, Default)]
pub struct ReadWord {
    /// The word after quote removal if it is plain literal text, else `None`.
    pub literal: Option<String>,
    /// Quote-removed literal parts with the source text of every expansion, e.g. `$HOME` or `$(date)`.
    pub display: String,
    /// The bodies of `$(…)` and `` `…` `` substitutions anywhere in the word, in order.
    pub substitutions: Vec<String>,
    /// Holds a substitution inside another expansion (`${x:-$(cmd)}`), which is not read further.
    pub opaque: bool,
}

/// Characters that are not literal when unquoted: glob patterns (`*?[]`), brace expansion (`{}`),
/// and `$`/`` ` `` that the piece parser left as text. A `~` is checked on its own (`tilde_may_expand`).
const UNQUOTED_SPECIAL: &[char] = &['*', '?', '[', ']', '{', '}', '$', '`'];

/// Reads one word as the tokenizer left it (quotes included). `None` if the word does not parse.
pub fn read_word(raw: &str, options: &ParserOptions) -> Option<ReadWord> {
    let pieces = word::parse(raw, options).ok()?;
    let mut out = ReadWord { literal: Some(String::new()), ..ReadWord::default() };
    for piece in &pieces {
        read_piece(raw, piece, false, &mut out);
    }
    Some(out)
}

/// Reads a here-document body (quotes are literal there); only called when the delimiter was unquoted,
/// so `$…` and backquotes in it expand.
pub fn read_heredoc(body: &str, options: &ParserOptions) -> Option<ReadWord> {
    let pieces = word::parse_heredoc(body, options).ok()?;
    let mut out = ReadWord { literal: Some(String::new()), ..ReadWord::default() };
    for piece in &pieces {
        read_piece(body, piece, true, &mut out);
    }
    Some(out)
}

fn read_piece(raw: &str, piece: &WordPieceWithSource, in_double_quotes: bool, out: &mut ReadWord) {
    let source = raw.get(piece.start_index..piece.end_index).unwrap_or("$?");
    match &piece.piece {
        WordPiece::Text(text) => {
            let special = if in_double_quotes {
                text.contains(['$', '`'])
            } else if raw == "[" || raw == "]" {
                false // a lone bracket is no pattern: the `[` command
            } else {
                text.contains(UNQUOTED_SPECIAL) || tilde_may_expand(text, piece.start_index == 0)
            };
            if special {
                out.literal = None;
            }
            push(out, text, text);
        }
        WordPiece::SingleQuotedText(text) => push(out, text, text),
        WordPiece::EscapeSequence(escape) => {
            let value = unescape(escape, in_double_quotes);
            push(out, &value, &value);
        }
        WordPiece::DoubleQuotedSequence(inner) => {
            for inner_piece in inner {
                read_piece(raw, inner_piece, true, out);
            }
        }
        WordPiece::CommandSubstitution(body) => {
            out.substitutions.push(body.clone());
            expansion(out, source);
        }
        WordPiece::BackquotedCommandSubstitution(body) => {
            out.substitutions.push(unescape_backquoted(body));
            expansion(out, source);
        }
        WordPiece::AnsiCQuotedText(_)
        | WordPiece::GettextDoubleQuotedSequence(_)
        | WordPiece::TildeExpansion(_)
        | WordPiece::ParameterExpansion(_)
        | WordPiece::ArithmeticExpression(_) => {
            // `${x:-$(cmd)}` or `$"…$(cmd)"` hide a command in a form the piece parser keeps as text.
            if source.get(1..).is_some_and(|rest| rest.contains(['$', '`'])) {
                out.opaque = true;
            }
            expansion(out, source);
        }
    }
}

/// A `~` expands at the start of a word, and in assignments (and bash's assignment-like arguments)
/// after `=` or `:`; `HEAD~1` is literal.
fn tilde_may_expand(text: &str, at_word_start: bool) -> bool {
    (at_word_start && text.starts_with('~')) || text.contains("=~") || text.contains(":~")
}

fn push(out: &mut ReadWord, literal: &str, display: &str) {
    if let Some(value) = out.literal.as_mut() {
        value.push_str(literal);
    }
    out.display.push_str(display);
}

fn expansion(out: &mut ReadWord, source: &str) {
    out.literal = None;
    out.display.push_str(source);
}

/// `\x` outside double quotes is `x`; inside them only `\$ \` \" \\` lose the backslash (the piece
/// parser leaves other backslashes as text). A backslash-newline is a line continuation.
fn unescape(escape: &str, in_double_quotes: bool) -> String {
    let mut chars = escape.chars();
    chars.next();
    match chars.next() {
        Some('\n') | None => String::new(),
        Some(c) if !in_double_quotes || matches!(c, '$' | '`' | '"' | '\\') => c.to_string(),
        Some(c) => format!("\\{c}"),
    }
}

/// Inside backquotes `\\`, `` \` `` and `\$` stand for the character itself (POSIX 2.6.3).
fn unescape_backquoted(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('\\', Some(&next @ ('\\' | '`' | '$'))) => {
                out.push(next);
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn literal(raw: &str) -> Option<String> {
        read_word(raw, &super::super::command_line::parser_options()).and_then(|w| w.literal)
    }

    #[test]
    fn quoting_is_removed_from_literal_words() {
        for (raw, value) in [
            ("show", "show"),
            ("'a b'", "a b"),
            ("\"a b\"", "a b"),
            ("a\\ b", "a b"),
            ("\"a\\\"b\\$c\\\\d\\e\"", "a\"b$c\\d\\e"),
            ("sh\"ow\"", "show"),
            ("'it'\\''s'", "it's"),
            ("''", ""),
            ("\"*\"", "*"),
            ("'~'", "~"),
            ("--output=x", "--output=x"),
            ("HEAD~1", "HEAD~1"),
            ("[", "["),
            ("]", "]"),
        ] {
            assert_eq!(literal(raw).as_deref(), Some(value), "{raw:?}");
        }
    }

    #[test]
    fn expansions_quoting_forms_and_patterns_are_not_literal() {
        for raw in [
            "$x",
            "\"$x\"",
            "${x}",
            "$(id)",
            "`id`",
            "$((1+2))",
            "$'a'",
            "$\"a\"",
            "~",
            "~/x",
            "a=~/x",
            "a:~/x",
            "a*",
            "a?",
            "[ab]",
            "{a,b}",
            "a{b",
            "\"a`id`\"",
            "$",
        ] {
            assert_eq!(literal(raw), None, "{raw:?}");
        }
    }

    #[test]
    fn substitutions_are_collected_even_inside_parameter_defaults() {
        let opts = super::super::command_line::parser_options();
        let subs = |raw: &str| read_word(raw, &opts).map(|w| w.substitutions).unwrap_or_default();
        assert_eq!(subs("$(rm x)"), ["rm x"]);
        assert_eq!(subs("\"a`rm \\`id\\``\""), ["rm `id`"]);
        assert!(read_word("${x:-$(rm y)}", &opts).is_some_and(|w| w.opaque));
        assert!(read_word("\"${x:-`rm y`}\"", &opts).is_some_and(|w| w.opaque));
        assert!(read_word("${x:-y}", &opts).is_some_and(|w| !w.opaque));
    }
}
