//! The interface's icons: a small set drawn inline as SVG (outline, 24 × 24, after the Lucide set's
//! shapes), so nothing is loaded from elsewhere. They decorate: each sits beside the words of its
//! button or link, hidden from assistive technology, so every control keeps its name.

use leptos::prelude::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Icon {
    Plus,
    Search,
    Pin,
    Pencil,
    Archive,
    Trash,
    Copy,
    Regenerate,
    Download,
    Inbox,
    Settings,
    Audit,
    Stop,
    Send,
    Menu,
}

impl Icon {
    /// The outline's path data.
    fn paths(self) -> &'static [&'static str] {
        match self {
            Icon::Plus => &["M12 5v14", "M5 12h14"],
            Icon::Search => &["M19 11a8 8 0 1 1-16 0 8 8 0 0 1 16 0", "m21 21-4.3-4.3"],
            Icon::Pin => &[
                "M12 17v5",
                "M9 10.76a2 2 0 0 1-1.11 1.79l-1.78.9A2 2 0 0 0 5 15.24V16a1 1 0 0 0 1 1h12a1 1 0 0 0 1-1v-.76a2 2 0 0 0-1.11-1.79l-1.78-.9A2 2 0 0 1 15 10.76V7a1 1 0 0 1 1-1 2 2 0 0 0 0-4H8a2 2 0 0 0 0 4 1 1 0 0 1 1 1z",
            ],
            Icon::Pencil => &[
                "M21.17 6.81a1 1 0 0 0-3.99-3.99L3.84 16.17a2 2 0 0 0-.5.83l-1.32 4.35a.5.5 0 0 0 .62.62l4.35-1.32a2 2 0 0 0 .83-.5z",
            ],
            Icon::Archive => &[
                "M3 3h18a1 1 0 0 1 1 1v3a1 1 0 0 1-1 1H3a1 1 0 0 1-1-1V4a1 1 0 0 1 1-1z",
                "M4 8v11a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2V8",
                "M10 12h4",
            ],
            Icon::Trash => &["M3 6h18", "M19 6v14c0 1-1 2-2 2H7c-1 0-2-1-2-2V6", "M8 6V4c0-1 1-2 2-2h4c1 0 2 1 2 2v2"],
            Icon::Copy => &[
                "M10 8h10a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H10a2 2 0 0 1-2-2V10a2 2 0 0 1 2-2z",
                "M4 16c-1.1 0-2-.9-2-2V4c0-1.1.9-2 2-2h10c1.1 0 2 .9 2 2",
            ],
            Icon::Regenerate => &[
                "M3 12a9 9 0 0 1 9-9 9.75 9.75 0 0 1 6.74 2.74L21 8",
                "M21 3v5h-5",
                "M21 12a9 9 0 0 1-9 9 9.75 9.75 0 0 1-6.74-2.74L3 16",
                "M8 16H3v5",
            ],
            Icon::Download => &["M21 15v4a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2v-4", "m7 10 5 5 5-5", "M12 15V3"],
            Icon::Inbox => &[
                "M22 12h-6l-2 3h-4l-2-3H2",
                "M5.45 5.11 2 12v6a2 2 0 0 0 2 2h16a2 2 0 0 0 2-2v-6l-3.45-6.89A2 2 0 0 0 16.76 4H7.24a2 2 0 0 0-1.79 1.11z",
            ],
            Icon::Settings => &[
                "M15 12a3 3 0 1 1-6 0 3 3 0 0 1 6 0",
                "M12 2v3M12 19v3M4.9 4.9 7 7M17 17l2.1 2.1M2 12h3M19 12h3M4.9 19.1 7 17M17 7l2.1-2.1",
            ],
            Icon::Audit => &[
                "M9 5H7a2 2 0 0 0-2 2v12a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V7a2 2 0 0 0-2-2h-2",
                "M10 3h4a1 1 0 0 1 1 1v2a1 1 0 0 1-1 1h-4a1 1 0 0 1-1-1V4a1 1 0 0 1 1-1z",
                "M9 12h6M9 16h6",
            ],
            Icon::Stop => &["M7 6h10a1 1 0 0 1 1 1v10a1 1 0 0 1-1 1H7a1 1 0 0 1-1-1V7a1 1 0 0 1 1-1z"],
            Icon::Send => &["M22 2 11 13", "M22 2l-7 20-4-9-9-4z"],
            Icon::Menu => &["M4 6h16M4 12h16M4 18h16"],
        }
    }
}

/// `icon` drawn in the current text colour, at the text's size.
#[component]
pub fn IconSvg(icon: Icon) -> impl IntoView {
    view! {
        <svg
            class="icon"
            aria-hidden="true"
            focusable="false"
            viewBox="0 0 24 24"
            fill="none"
            stroke="currentColor"
            stroke-width="2"
            stroke-linecap="round"
            stroke-linejoin="round"
        >
            {icon.paths().iter().map(|d| view! { <path d=*d/> }).collect_view()}
        </svg>
    }
}
