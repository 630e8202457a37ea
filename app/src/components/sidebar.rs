//! The thread sidebar: New chat, the active threads newest first, and an Archived section that
//! loads when opened, the links to the inbox (with its count), the settings and the audit log, and
//! the theme toggle.

use leptos::prelude::*;

use crate::components::inbox_link::InboxLink;
use crate::components::thread_list::ThreadList;
use crate::theme::ThemeToggle;

#[component]
pub fn Sidebar() -> impl IntoView {
    let show_archived = RwSignal::new(false);
    view! {
        <nav class="sidebar" id="sidebar" aria-label="Threads">
            <a class="new-chat" href="/">"New chat"</a>
            <h2 class="visually-hidden">"Threads"</h2>
            <ThreadList archived=false/>
            <button
                type="button"
                class="archived-toggle"
                aria-expanded=move || show_archived.get().to_string()
                on:click=move |_| show_archived.update(|s| *s = !*s)
            >
                "Archived"
            </button>
            <Show when=move || show_archived.get()>
                <section aria-label="Archived threads">
                    <ThreadList archived=true/>
                </section>
            </Show>
            <InboxLink/>
            <a class="settings-link" href="/settings">"Settings"</a>
            <a class="audit-link" href="/audit">"Audit log"</a>
            <ThemeToggle/>
        </nav>
    }
}
