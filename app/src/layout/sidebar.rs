//! The thread sidebar: New chat, the search box (its results take the lists' place while it holds
//! words), the pinned threads, the active threads newest first, and an Archived section that loads
//! when opened, the links to the inbox (with its count), the settings and the audit log, and the
//! theme toggle.

use leptos::prelude::*;

use crate::layout::inbox_link::InboxLink;
use crate::layout::thread_list::{ThreadList, Which};
use crate::layout::thread_search::{SearchBox, SearchResults};
use crate::server_fns::people::who_am_i;
use crate::ui::icon::{Icon, IconSvg};
use crate::ui::theme::ThemeToggle;

#[component]
pub fn Sidebar() -> impl IntoView {
    crate::layout::thread_row_state::ThreadRowState::provide();
    let show_archived = RwSignal::new(false);
    let query = RwSignal::new(String::new());
    let searching = Memo::new(move |_| query.with(|q| !q.trim().is_empty()));
    // Viewers read what is shared with them: no New chat.
    let me = Resource::new(|| (), |_| who_am_i());
    let chats = move || async move { me.await.is_ok_and(|p| p.role.chats()) };
    view! {
        <nav class="sidebar" id="sidebar" aria-label="Threads">
            <Transition fallback=|| ()>
                {move || Suspend::new(async move {
                    chats().await.then(|| view! { <a class="new-chat" href="/"><IconSvg icon=Icon::Plus/>"New chat"</a> })
                })}
            </Transition>
            <SearchBox query/>
            <h2 class="visually-hidden">"Threads"</h2>
            <Show
                when=move || searching.get()
                fallback=move || view! {
                    <ThreadList which=Which::Pinned/>
                    <ThreadList which=Which::Active/>
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
                            <ThreadList which=Which::Archived/>
                        </section>
                    </Show>
                }
            >
                <SearchResults query/>
            </Show>
            <InboxLink/>
            <a class="settings-link" href="/settings"><IconSvg icon=Icon::Settings/>"Settings"</a>
            <a class="audit-link" href="/audit"><IconSvg icon=Icon::Audit/>"Audit log"</a>
            <ThemeToggle/>
        </nav>
    }
}
