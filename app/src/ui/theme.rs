//! The colour theme: the system's (the default), light or dark. The choice is a cookie the server reads
//! to render `<html data-theme=…>`, so a page never flashes the other theme before the script runs;
//! the toggle changes the attribute at once and writes the cookie. The CSS does the rest
//! (`color-scheme` with `light-dark()` colours).

use leptos::prelude::*;

/// The cookie that keeps the choice (a year; the site's own, sent only to it).
pub const COOKIE: &str = "warden_theme";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Theme {
    #[default]
    System,
    Light,
    Dark,
}

impl Theme {
    /// The value of `data-theme` and of the cookie.
    pub fn as_str(self) -> &'static str {
        match self {
            Theme::System => "system",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    /// Anything else (or nothing) is the system's theme.
    pub fn parse(text: &str) -> Self {
        match text.trim() {
            "light" => Theme::Light,
            "dark" => Theme::Dark,
            _ => Theme::System,
        }
    }

    /// The next one the toggle goes to.
    pub fn next(self) -> Self {
        match self {
            Theme::System => Theme::Light,
            Theme::Light => Theme::Dark,
            Theme::Dark => Theme::System,
        }
    }

    /// What the toggle says it is now.
    pub fn label(self) -> &'static str {
        match self {
            Theme::System => "Theme: system",
            Theme::Light => "Theme: light",
            Theme::Dark => "Theme: dark",
        }
    }

    /// The theme a `Cookie` header asks for.
    pub fn from_cookie_header(header: &str) -> Self {
        header
            .split(';')
            .filter_map(|pair| pair.trim().split_once('='))
            .find(|(name, _)| *name == COOKIE)
            .map(|(_, value)| Theme::parse(value))
            .unwrap_or_default()
    }
}

/// The theme of the page being rendered: on the server from the request's cookie, in the browser
/// from what the server put on `<html>`.
pub fn current() -> Theme {
    #[cfg(feature = "ssr")]
    {
        use_context::<http::request::Parts>()
            .and_then(|parts| parts.headers.get(http::header::COOKIE)?.to_str().ok().map(Theme::from_cookie_header))
            .unwrap_or_default()
    }
    #[cfg(all(feature = "hydrate", not(feature = "ssr")))]
    {
        document()
            .document_element()
            .and_then(|html| html.get_attribute("data-theme"))
            .map(|t| Theme::parse(&t))
            .unwrap_or_default()
    }
    #[cfg(not(any(feature = "ssr", feature = "hydrate")))]
    {
        Theme::System
    }
}

/// Shows `theme` now and keeps it for the next pages.
#[cfg(feature = "hydrate")]
fn apply(theme: Theme) {
    use wasm_bindgen::JsCast;
    if let Some(html) = document().document_element() {
        let _ = html.set_attribute("data-theme", theme.as_str());
    }
    if let Ok(doc) = document().dyn_into::<web_sys::HtmlDocument>() {
        let _ = doc.set_cookie(&format!("{COOKIE}={}; Path=/; Max-Age=31536000; SameSite=Strict", theme.as_str()));
    }
}

/// The sidebar's button: system → light → dark → system.
#[component]
pub fn ThemeToggle() -> impl IntoView {
    let theme = RwSignal::new(current());
    let on_click = move |_| {
        let next = theme.get_untracked().next();
        theme.set(next);
        #[cfg(feature = "hydrate")]
        apply(next);
    };
    view! {
        <button type="button" class="theme-toggle" title="Switch between the system's, light and dark themes" on:click=on_click>
            {move || theme.get().label()}
        </button>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cookie_header_is_read_by_name_and_anything_unknown_is_the_system_theme() {
        assert_eq!(Theme::from_cookie_header("a=1; warden_theme=dark; b=2"), Theme::Dark);
        assert_eq!(Theme::from_cookie_header("warden_theme=light"), Theme::Light);
        assert_eq!(Theme::from_cookie_header("warden_theme=\"><script>"), Theme::System);
        assert_eq!(Theme::from_cookie_header("other_warden_theme=dark"), Theme::System);
        assert_eq!(Theme::from_cookie_header(""), Theme::System);
    }

    #[test]
    fn the_toggle_goes_round_all_three() {
        let mut theme = Theme::System;
        let mut seen = Vec::new();
        for _ in 0..3 {
            theme = theme.next();
            seen.push(theme.as_str());
        }
        assert_eq!(seen, ["light", "dark", "system"]);
    }
}
