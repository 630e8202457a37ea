//! Markdown from the model, rendered to HTML that is safe to insert: raw HTML in the source is shown
//! as text, and the output goes through `ammonia`, which drops scripts, event handlers and
//! `javascript:` links. Runs the same on the server (SSR) and in the browser.

use pulldown_cmark::{html, Event, Options, Parser};

/// Renders untrusted Markdown to sanitised HTML.
pub fn render(markdown: &str) -> String {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let events = Parser::new_ext(markdown, options).map(|event| match event {
        // Show what the model wrote instead of letting it become markup.
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        other => other,
    });
    let mut unsafe_html = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut unsafe_html, events);
    ammonia::Builder::default()
        .link_rel(Some("noopener noreferrer nofollow"))
        .clean(&unsafe_html)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::render;

    #[test]
    fn code_blocks_and_emphasis_survive() {
        let html = render("Hello *world*\n\n```rust\nfn main() {}\n```");
        assert!(html.contains("<em>world</em>"), "{html}");
        assert!(html.contains("<pre><code"), "{html}");
        assert!(html.contains("fn main() {}"), "{html}");
    }

    #[test]
    fn raw_html_is_shown_as_text_not_run() {
        let html = render("look <img src=x onerror=alert(1)> here <script>alert(2)</script>");
        assert!(!html.contains("<img"), "{html}");
        assert!(!html.contains("<script"), "{html}");
        assert!(html.contains("&lt;img"), "{html}");
    }

    #[test]
    fn javascript_links_lose_their_href() {
        let html = render("[click](javascript:alert(1)) and <a href=\"javascript:alert(2)\">x</a>");
        assert!(html.contains("<a rel=\"noopener noreferrer nofollow\">click</a>"), "{html}");
        // The raw anchor is shown as text, not as a link.
        assert!(!html.contains("<a href"), "{html}");
    }

    #[test]
    fn ordinary_links_are_kept_with_a_safe_rel() {
        let html = render("[docs](https://example.com/docs)");
        assert!(html.contains("href=\"https://example.com/docs\""), "{html}");
        assert!(html.contains("noopener"), "{html}");
    }
}
