//! One list of threads (active or archived), newest first, a page at a time with "Load more".
//! Pages loaded with "Load more" belong to one version of the list and are dropped when it changes.

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::use_location;

use crate::components::error_notice::ErrorNotice;
use crate::components::thread_item::ThreadItem;
use crate::error::AppError;
use crate::model::{Thread, ThreadPage};
use crate::server_fns::list_threads;
use crate::ThreadsChanged;

#[component]
pub fn ThreadList(archived: bool) -> impl IntoView {
    let changed = expect_context::<ThreadsChanged>();
    let first = Resource::new(move || changed.0.get(), move |_| list_threads(archived, None));
    // `(list version, pages after the first)`.
    let more = RwSignal::new((0u32, Vec::<ThreadPage>::new()));
    let more_error = RwSignal::new(None::<AppError>);
    let location = use_location();
    let active_id = Memo::new(move |_| location.pathname.get().strip_prefix("/chat/").map(str::to_string));

    let render = move |page: ThreadPage| {
        let version = changed.0.get();
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
                    match list_threads(archived, Some(cursor)).await {
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
        let empty = threads.is_empty().then(|| {
            view! { <p class="empty">{if archived { "No archived threads." } else { "No threads yet." }}</p> }
        });
        view! {
            {empty}
            <ul class="thread-list">
                {threads.into_iter().map(|thread| view! { <ThreadItem thread active_id/> }).collect_view()}
            </ul>
            {load_more}
        }
    };

    view! {
        <Transition fallback=|| view! { <p class="loading">"Loading threads…"</p> }>
            {move || Suspend::new(async move {
                match first.await {
                    Ok(page) => render(page).into_any(),
                    Err(error) => view! { <ErrorNotice error/> }.into_any(),
                }
            })}
        </Transition>
        {move || more_error.get().map(|error| view! { <ErrorNotice error/> })}
    }
}
