//! Share, in the header of a thread of the person's own: a small dialog that says who besides them may
//! read it (nobody, everyone signed in, or people chosen by name) and stores the choice. Sharing lets
//! others read, never write.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::error::AppError;
use crate::server_fns::sharing::{get_sharing, list_people_names, set_sharing};
use warden_types::id::{PersonId, ThreadId};
use warden_types::person::PersonName;
use warden_types::thread::Sharing;

/// The choice of the dialog's three.
#[derive(Clone, Copy, PartialEq, Eq)]
enum With {
    Private,
    Everyone,
    People,
}

#[component]
pub fn ShareControl(thread_id: ThreadId) -> impl IntoView {
    let open = RwSignal::new(false);
    let with = RwSignal::new(With::Private);
    let chosen = RwSignal::new(Vec::<PersonId>::new());
    let people = RwSignal::new(None::<Vec<PersonName>>);
    let error = RwSignal::new(None::<AppError>);
    let saved = RwSignal::new(false);
    let id = StoredValue::new(thread_id);

    let load = move || {
        let thread = id.get_value();
        spawn_local(async move {
            match (get_sharing(thread).await, list_people_names().await) {
                (Ok(sharing), Ok(names)) => {
                    let (w, c) = match sharing {
                        Sharing::Private => (With::Private, Vec::new()),
                        Sharing::Everyone => (With::Everyone, Vec::new()),
                        Sharing::People { people } => (With::People, people),
                    };
                    with.try_set(w);
                    chosen.try_set(c);
                    people.try_set(Some(names));
                }
                (Err(e), _) | (_, Err(e)) => {
                    error.try_set(Some(e));
                }
            }
        });
    };
    let toggle = move |_| {
        let opening = !open.get_untracked();
        open.set(opening);
        saved.set(false);
        error.set(None);
        if opening {
            load();
        }
    };
    let save = move |_| {
        let sharing = match with.get_untracked() {
            With::Private => Sharing::Private,
            With::Everyone => Sharing::Everyone,
            With::People => Sharing::People { people: chosen.get_untracked() },
        };
        let thread = id.get_value();
        saved.set(false);
        error.set(None);
        spawn_local(async move {
            match set_sharing(thread, sharing).await {
                Ok(_) => {
                    saved.try_set(true);
                }
                Err(e) => {
                    error.try_set(Some(e));
                }
            }
        });
    };
    let choice = move |value: With, label: &'static str| {
        view! {
            <label class="share-choice">
                <input type="radio" name="share-with" prop:checked=move || with.get() == value
                    on:change=move |_| with.set(value)/>
                {label}
            </label>
        }
    };
    let person = move |p: PersonName| {
        let pid = p.id.clone();
        let checked = {
            let pid = pid.clone();
            move || chosen.get().contains(&pid)
        };
        view! {
            <li>
                <label>
                    <input type="checkbox" prop:checked=checked on:change=move |ev| {
                        let on = event_target_checked(&ev);
                        let pid = pid.clone();
                        chosen.update(|c| {
                            c.retain(|x| *x != pid);
                            if on {
                                c.push(pid);
                            }
                        });
                    }/>
                    {p.name}
                </label>
            </li>
        }
    };

    view! {
        <div class="share">
            <button type="button" class="share-button" aria-expanded=move || open.get().to_string()
                aria-controls="share-dialog" on:click=toggle>"Share"</button>
            <Show when=move || open.get()>
                <div class="share-dialog" id="share-dialog" role="dialog" aria-labelledby="share-title">
                    <h2 id="share-title">"Share this thread"</h2>
                    <p class="hint">"People you share it with can read it; only you can write to it."</p>
                    <fieldset>
                        <legend>"Who can read it"</legend>
                        {choice(With::Private, "Only me")}
                        {choice(With::Everyone, "Everyone signed in")}
                        {choice(With::People, "People I choose")}
                    </fieldset>
                    <Show when=move || with.get() == With::People>
                        <fieldset>
                            <legend>"People"</legend>
                            {move || match people.get() {
                                None => view! { <p>"Loading people…"</p> }.into_any(),
                                Some(list) if list.is_empty() => view! { <p>"Nobody else has an account yet."</p> }.into_any(),
                                Some(list) => view! { <ul class="share-people">{list.into_iter().map(person).collect_view()}</ul> }.into_any(),
                            }}
                        </fieldset>
                    </Show>
                    <div class="share-actions">
                        <button type="button" on:click=save>"Save sharing"</button>
                        <button type="button" on:click=move |_| open.set(false)>"Close"</button>
                    </div>
                    <p role="status">{move || saved.get().then_some("Sharing saved.")}</p>
                    {move || error.get().map(|error| view! { <crate::ui::error_notice::ErrorNotice error/> })}
                </div>
            </Show>
        </div>
    }
}
