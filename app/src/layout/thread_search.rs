//! The sidebar's search over thread titles and messages: the box (focused from anywhere with `/` or
//! Ctrl+K, cleared with Escape) and, while it holds words, the threads found, best first, each with the
//! words around its best match and the matching ones marked. The snippet arrives as plain pieces and is
//! shown as text: nothing a model wrote becomes markup here.

use leptos::prelude::*;

use crate::model::SearchHit;
use crate::server_fns::search_threads;
use crate::ui::error_notice::ErrorNotice;

/// The box's id, for the shortcut that focuses it.
pub const SEARCH_BOX_ID: &str = "thread-search";

#[component]
pub fn SearchBox(query: RwSignal<String>) -> impl IntoView {
    let on_keydown = move |ev: leptos::ev::KeyboardEvent| {
        if ev.key() == "Escape" && !query.get_untracked().is_empty() {
            ev.stop_propagation();
            query.set(String::new());
        }
    };
    view! {
        <div class="thread-search" role="search">
            <label class="visually-hidden" for=SEARCH_BOX_ID>"Search threads"</label>
            <input
                id=SEARCH_BOX_ID
                type="search"
                dir="auto"
                placeholder="Search  /"
                autocomplete="off"
                prop:value=move || query.get()
                on:input=move |ev| query.set(event_target_value(&ev))
                on:keydown=on_keydown
            />
        </div>
    }
}

/// What the search found for `query` (which is not empty).
#[component]
pub fn SearchResults(query: RwSignal<String>) -> impl IntoView {
    let found = Resource::new(move || query.get(), |q| async move { search_threads(q).await });
    view! {
        <section class="search-results" aria-label="Search results">
            <Transition fallback=|| view! { <p class="loading">"Searching…"</p> }>
                {move || Suspend::new(async move {
                    match found.await {
                        Ok(hits) if hits.is_empty() => view! { <p class="empty">"Nothing found."</p> }.into_any(),
                        Ok(hits) => view! {
                            <ul class="thread-list">
                                {hits.into_iter().map(|hit| view! { <SearchHitView hit/> }).collect_view()}
                            </ul>
                        }
                        .into_any(),
                        Err(error) => view! { <ErrorNotice error/> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

#[component]
fn SearchHitView(hit: SearchHit) -> impl IntoView {
    let href = match &hit.message_id {
        // `?m=`: a long thread's page reaches back to the message, so the anchor is there.
        Some(message) => format!("/chat/{}?m={message}#m-{message}", hit.thread.id),
        None => format!("/chat/{}", hit.thread.id),
    };
    let snippet = hit
        .snippet
        .into_iter()
        .map(|piece| match piece.hit {
            true => view! { <mark>{piece.text}</mark> }.into_any(),
            false => piece.text.into_any(),
        })
        .collect_view();
    view! {
        <li class="search-hit">
            <a href=href>
                <span class="search-title" dir="auto">{hit.thread.title}</span>
                {hit.thread.archived.then(|| view! { <span class="search-archived">" (archived)"</span> })}
                <span class="search-snippet" dir="auto">{snippet}</span>
            </a>
        </li>
    }
}
