//! Syntax highlighting of code, on the server only (nothing of it is in the wasm): an outside
//! request's code and the model's fenced code blocks (`markdown`). syntect's Sublime grammars name
//! each token's scopes; the token gets the one colour class its innermost coloured scope says
//! ([`CLASSES`]), and a run of tokens of one class shares one `<span class="hl-…">` around escaped
//! text. The result is sanitised down to exactly that (spans with a class) before the page puts it in
//! as HTML. The code came from an outside client or a model, so it is never trusted to be harmless text.
//!
//! Why not syntect's own `ClassedHTMLGenerator`: it nests a span per scope with every scope atom as a
//! class (`<span class="hl-meta hl-function hl-rust"><span class="hl-storage hl-type hl-function
//! hl-rust">fn</span>`…), about 150 bytes per token; a chat page with ten answers of sixty lines of
//! code weighed 4.1 MB (it is in the page twice, as HTML and in the hydration data). The colours
//! the stylesheet gives depend only on the innermost coloured scope, which is what is kept.

use std::sync::LazyLock;

use syntect::easy::ScopeRegionIterator;
use syntect::parsing::{ParseState, Scope, ScopeStack, SyntaxReference, SyntaxSet};
use syntect::util::LinesWithEndings;

/// Code longer than this is shown escaped but not highlighted: the grammars' regexes take time
/// in proportion to the text, and a person does not read more than this closely anyway.
pub const MAX_HIGHLIGHT_BYTES: usize = 64 * 1024;
/// The prefix of every class the highlighter writes (style/main.css colours them).
pub const CLASS_PREFIX: &str = "hl-";

/// Scope prefixes and the class a token inside one is shown with (style/main.css), first match wins.
pub const CLASSES: [(&str, &str); 9] = [
    ("comment", "hl-comment"),
    ("invalid", "hl-invalid"),
    ("string", "hl-string"),
    ("keyword", "hl-keyword"),
    ("storage", "hl-keyword"),
    ("constant", "hl-constant"),
    ("support", "hl-constant"),
    ("entity.name", "hl-name"),
    ("variable.parameter", "hl-param"),
];

/// The grammars syntect ships, loaded once on first use. Immutable data, not a service: nothing
/// to replace in a test, so a lazy static rather than something carried in the app state.
static SYNTAXES: LazyLock<SyntaxSet> = LazyLock::new(SyntaxSet::load_defaults_newlines);

/// [`CLASSES`] as syntect scopes.
static CLASS_SCOPES: LazyLock<Vec<(Scope, &'static str)>> =
    LazyLock::new(|| CLASSES.iter().filter_map(|(prefix, class)| Some((Scope::new(prefix).ok()?, *class))).collect());

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

/// The class of a token with these scopes: its innermost scope that has a colour.
fn class_of(stack: &ScopeStack) -> Option<&'static str> {
    stack
        .as_slice()
        .iter()
        .rev()
        .find_map(|scope| CLASS_SCOPES.iter().find(|(prefix, _)| prefix.is_prefix_of(*scope)).map(|(_, class)| *class))
}

/// The code as escaped text in flat spans, one per run of tokens of one class.
fn to_spans(code: &str, syntax: &SyntaxReference) -> Option<String> {
    let mut state = ParseState::new(syntax);
    let mut stack = ScopeStack::new();
    let mut spans = Spans::with_capacity(code.len() * 2);
    for line in LinesWithEndings::from(code) {
        let ops = state.parse_line(line, &SYNTAXES).ok()?;
        for (text, op) in ScopeRegionIterator::new(&ops, line) {
            stack.apply(op).ok()?;
            if !text.is_empty() {
                spans.push(class_of(&stack), text);
            }
        }
    }
    Some(spans.finish())
}

/// HTML being written: the class of the span open, if any, and whitespace not yet placed (inside the
/// open span when the next token has its class, else after it).
struct Spans {
    html: String,
    open: Option<&'static str>,
    blank: String,
}

impl Spans {
    fn with_capacity(capacity: usize) -> Self {
        Self { html: String::with_capacity(capacity), open: None, blank: String::new() }
    }

    fn push(&mut self, class: Option<&'static str>, text: &str) {
        if text.trim().is_empty() {
            self.blank.push_str(text);
            return;
        }
        if class != self.open {
            if self.open.is_some() {
                self.html.push_str("</span>");
            }
            self.html.push_str(&self.blank);
            if let Some(class) = class {
                self.html.push_str("<span class=\"");
                self.html.push_str(class);
                self.html.push_str("\">");
            }
            self.open = class;
        } else {
            self.html.push_str(&self.blank);
        }
        self.blank.clear();
        // Writing to a String cannot fail.
        let _ = pulldown_cmark_escape::escape_html_body_text(&mut self.html, text);
    }

    fn finish(mut self) -> String {
        if self.open.is_some() {
            self.html.push_str("</span>");
        }
        self.html.push_str(&self.blank);
        self.html
    }
}

/// Keeps `<span class>` and text; anything else is escaped away. The writer above already escapes
/// the code, so this changes nothing in practice; it makes "only spans" a property of this
/// function instead of a trust in the writer.
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
        assert!(shown.html.starts_with(r#"<span class="hl-keyword">import</span> os"#), "{}", shown.html);
        assert!(shown.html.contains(r#"<span class="hl-string">'hi'</span>"#), "{}", shown.html);
        assert!(shown.html.contains(r#"<span class="hl-comment"># say hi"#), "{}", shown.html);
    }

    /// One flat span per coloured run: a token's class is its innermost coloured scope (an escape
    /// inside a string is a constant), and spans do not nest.
    #[test]
    fn each_token_gets_its_innermost_colour_in_flat_spans() {
        let shown = highlight("fn add(x: u32) -> &'static str { \"a\\nb\" }\n", Some("rust")).unwrap();
        assert!(
            shown.html.starts_with(r#"<span class="hl-keyword">fn</span> <span class="hl-name">add</span>"#),
            "{}",
            shown.html
        );
        assert!(shown.html.contains(r#"<span class="hl-param">x</span>"#), "{}", shown.html);
        assert!(shown.html.contains(r#"<span class="hl-constant">\n</span>"#), "{}", shown.html);
        let mut depth = 0i32;
        for (at, _) in shown.html.match_indices('<') {
            depth += if shown.html[at..].starts_with("</span>") { -1 } else { 1 };
            assert!((0..=1).contains(&depth), "spans never nest: {}", shown.html);
        }
        assert_eq!(depth, 0, "every span is closed: {}", shown.html);
        let text = ammonia::Builder::empty().clean(&shown.html).to_string();
        assert_eq!(text, "fn add(x: u32) -&gt; &amp;'static str { \"a\\nb\" }\n", "the code is all there, escaped");
    }

    #[test]
    fn every_class_written_is_one_the_stylesheet_knows() {
        let code = "import os # c\nclass A:\n  def f(self, x=1): return 'x' + str(x) + None\n";
        let shown = highlight(code, Some("python")).unwrap();
        let known: Vec<&str> = CLASSES.iter().map(|(_, class)| *class).collect();
        for (at, _) in shown.html.match_indices("class=\"") {
            let class = &shown.html[at + 7..][..shown.html[at + 7..].find('"').unwrap()];
            assert!(known.contains(&class), "{class} in {}", shown.html);
        }
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
