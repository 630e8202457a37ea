//! One list of threads (pinned, active or archived), newest first, a page at a time with "Load more".
//! Pages loaded with "Load more" belong to one version of the list and are dropped when it changes.
//! The list is read again when a thread changes (created, renamed, titled, archived, pinned,
//! deleted, a run ended); a row's count of what waits comes from the inbox's live feed, so an
//! approval or a check coming and going does not read the lists again.

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::use_location;

use crate::context::ThreadsChanged;
use crate::error::AppError;
use crate::layout::thread_item::ThreadItem;
use crate::model::{Thread, ThreadPage};
use crate::server_fns::list_threads;
use crate::ui::error_notice::ErrorNotice;

/// Which of the sidebar's lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    /// Pinned and not archived; shown (with its heading) only when it has any.
    Pinned,
    /// Neither pinned nor archived.
    Active,
    Archived,
}

impl Which {
    /// The class of the list's box (the style hides "No threads yet." below a pinned list with rows).
    fn class(self) -> &'static str {
        match self {
            Which::Pinned => "thread-group pinned",
            Which::Active => "thread-group active",
            Which::Archived => "thread-group archived",
        }
    }

    /// `(archived, pinned)` as `list_threads` takes them.
    fn query(self) -> (bool, Option<bool>) {
        match self {
            Which::Pinned => (false, Some(true)),
            Which::Active => (false, Some(false)),
            Which::Archived => (true, None),
        }
    }
}

#[component]
pub fn ThreadList(which: Which) -> impl IntoView {
    let changed = expect_context::<ThreadsChanged>();
    let (archived, pinned) = which.query();
    // The list's version: a thread changed.
    let version = Memo::new(move |_| changed.0.get());
    let first = Resource::new(move || version.get(), move |_| list_threads(archived, pinned, None));
    // `(list version, pages after the first)`.
    let more = RwSignal::new((0u32, Vec::<ThreadPage>::new()));
    let more_error = RwSignal::new(None::<AppError>);
    let location = use_location();
    let active_id = Memo::new(move |_| location.pathname.get().strip_prefix("/chat/").map(str::to_string));

    let render = move |page: ThreadPage| {
        let version = version.get();
        let (threads, next) = more.with(|(v, pages)| {
            let mut threads: Vec<Thread> = page.threads.clone();
            let mut next = page.next.clone();
            if *v == version {
                for p in pages {
                    threads.extend(p.threads.iter().cloned());
                    next = p.next.clone();
                }
            }
            (threads, next)
        });
        let load_more = next.map(|cursor| {
            let on_click = move |_| {
                let cursor = cursor.clone();
                spawn_local(async move {
                    match list_threads(archived, pinned, Some(cursor)).await {
                        Ok(page) => more
                            .try_update(|(v, pages)| {
                                if *v != version {
                                    *v = version;
                                    pages.clear();
                                }
                                pages.push(page);
                            })
                            .unwrap_or_default(),
                        Err(e) => {
                            more_error.try_set(Some(e));
                        }
                    }
                });
            };
            view! { <button type="button" class="load-more" on:click=on_click>"Load more"</button> }
        });
        if which == Which::Pinned && threads.is_empty() {
            return ().into_any();
        }
        let empty = threads.is_empty().then(|| {
            view! { <p class="empty">{if archived { "No archived threads." } else { "No threads yet." }}</p> }
        });
        let heading = (which == Which::Pinned).then(|| view! { <h3 class="list-heading">"Pinned"</h3> });
        view! {
            {heading}
            {empty}
            <ul class="thread-list">
                {threads.into_iter().map(|thread| view! { <ThreadItem thread active_id/> }).collect_view()}
            </ul>
            {load_more}
        }
        .into_any()
    };

    view! {
        <div class=which.class()>
            <Transition fallback=|| view! { <p class="loading">"Loading threads…"</p> }>
                {move || Suspend::new(async move {
                    match first.await {
                        Ok(page) => render(page),
                        Err(error) => view! { <ErrorNotice error/> }.into_any(),
                    }
                })}
            </Transition>
            {move || more_error.get().map(|error| view! { <ErrorNotice error/> })}
        </div>
    }
}
