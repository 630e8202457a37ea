//! Syntax highlighting of code, on the server only (nothing of it is in the wasm): an outside
//! request's code and the model's fenced code blocks (`markdown`). syntect's Sublime grammars turn
//! the code into `<span class="hl-…">` around escaped text, and the result is sanitised down to
//! exactly that (spans with a class) before the page puts it in as HTML. The code came from an
//! outside client or a model, so it is never trusted to be harmless text.

use std::sync::LazyLock;

use syntect::html::{ClassStyle, ClassedHTMLGenerator};
use syntect::parsing::{SyntaxReference, SyntaxSet};
use syntect::util::LinesWithEndings;

/// Code longer than this is shown escaped but not highlighted: the grammars' regexes take time
/// in proportion to the text, and a person does not read more than this closely anyway.
pub const MAX_HIGHLIGHT_BYTES: usize = 64 * 1024;
/// The prefix of every class the highlighter writes (style/main.css colours them).
pub const CLASS_PREFIX: &str = "hl-";

/// The grammars syntect ships, loaded once on first use. Immutable data, not a service: nothing
/// to replace in a test, so a lazy static rather than something carried in the app state.
static SYNTAXES: LazyLock<SyntaxSet> = LazyLock::new(SyntaxSet::load_defaults_newlines);

/// Highlighted code as safe HTML, and the name of the grammar used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Highlighted {
    pub html: String,
    pub syntax: String,
}

/// Highlights `code` in the grammar named by `language` (a name or file extension, as a client
/// gives it: `python`, `py`, `bash`, `js`), else the one its first line says (`#!/bin/sh`).
/// `None` when no grammar fits or the code is too long: the page shows it as plain text then.
/// CPU work: call it off the async runtime.
pub fn highlight(code: &str, language: Option<&str>) -> Option<Highlighted> {
    if code.len() > MAX_HIGHLIGHT_BYTES {
        return None;
    }
    let syntax = find_syntax(code, language)?;
    let html = to_spans(code, syntax)?;
    Some(Highlighted { html: sanitise(&html), syntax: syntax.name.clone() })
}

fn find_syntax<'a>(code: &str, language: Option<&str>) -> Option<&'a SyntaxReference> {
    let syntaxes = &*SYNTAXES;
    let by_name = language.map(str::trim).filter(|l| !l.is_empty()).and_then(|language| {
        syntaxes.find_syntax_by_token(language).or_else(|| syntaxes.find_syntax_by_name(language))
    });
    by_name
        .or_else(|| syntaxes.find_syntax_by_first_line(code))
        .filter(|syntax| syntax.name != syntaxes.find_syntax_plain_text().name)
}

fn to_spans(code: &str, syntax: &SyntaxReference) -> Option<String> {
    let mut html = ClassedHTMLGenerator::new_with_class_style(
        syntax,
        &SYNTAXES,
        ClassStyle::SpacedPrefixed { prefix: CLASS_PREFIX },
    );
    for line in LinesWithEndings::from(code) {
        html.parse_html_for_line_which_includes_newline(line).ok()?;
    }
    Some(html.finalize())
}

/// Keeps `<span class>` and text; anything else is escaped away. The generator already escapes
/// the code, so this changes nothing in practice; it makes "only spans" a property of this
/// function instead of a trust in the generator.
fn sanitise(html: &str) -> String {
    ammonia::Builder::empty().add_tags(["span"]).add_tag_attributes("span", ["class"]).clean(html).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_is_highlighted_into_classed_spans() {
        let shown = highlight("import os\nprint('hi')  # say hi\n", Some("python")).unwrap();
        assert_eq!(shown.syntax, "Python");
        assert!(
            shown.html.contains(r#"<span class="hl-keyword hl-control hl-import hl-python">import</span>"#),
            "{}",
            shown.html
        );
        assert!(shown.html.contains("hl-comment"), "{}", shown.html);
    }

    #[test]
    fn markup_in_the_code_stays_text() {
        let code = "echo '<script>alert(1)</script>' <img src=x onerror=alert(2)>\n";
        for language in ["bash", "sh", "html", "js"] {
            let shown = highlight(code, Some(language)).unwrap();
            let tags: Vec<&str> = shown.html.match_indices('<').map(|(at, _)| &shown.html[at..]).collect();
            assert!(
                tags.iter().all(|t| t.starts_with("<span class=\"hl-") || t.starts_with("</span>")),
                "{language}: only classed spans: {}",
                shown.html
            );
            assert!(shown.html.contains("&lt;"), "{language}: {}", shown.html);
        }
    }

    #[test]
    fn the_first_line_names_the_grammar_when_the_client_did_not() {
        let shown = highlight("#!/bin/bash\nrm -rf build\n", None).unwrap();
        assert!(shown.syntax.contains("bash"), "{}", shown.syntax);
    }

    #[test]
    fn unknown_languages_and_oversized_code_are_left_to_plain_text() {
        assert_eq!(highlight("a < b && c", Some("no-such-language")), None);
        assert_eq!(highlight("a < b && c", None), None);
        let big = format!("x = 1 # {}\n", "y".repeat(MAX_HIGHLIGHT_BYTES));
        assert_eq!(highlight(&big, Some("python")), None);
    }
}
