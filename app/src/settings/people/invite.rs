//! The form that invites someone: a role, perhaps their name, how long the link works. The link is shown
//! once, after it is made, with a button that copies it; Warden keeps only its hash.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::server_fns::people::{invite_person, InvitationMade};
use crate::settings::people::PeopleUi;
use crate::ui::clipboard::copy_text;
use warden_types::person::Role;

/// The choices of how long a link works, in days.
const VALID_DAYS: [(u64, &str); 3] = [(1, "1 day"), (7, "7 days"), (30, "30 days")];

#[component]
pub fn InviteForm(ui: PeopleUi) -> impl IntoView {
    let role = RwSignal::new(Role::Member);
    let name = RwSignal::new(String::new());
    let days = RwSignal::new(7u64);
    let made = RwSignal::new(None::<InvitationMade>);
    let busy = RwSignal::new(false);
    let copied = RwSignal::new(false);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        busy.set(true);
        copied.set(false);
        ui.error.set(None);
        let name = Some(name.get_untracked()).filter(|n| !n.trim().is_empty());
        let (role, days) = (role.get_untracked(), days.get_untracked());
        spawn_local(async move {
            match invite_person(role, name, days).await {
                Ok(invitation) => {
                    made.try_set(Some(invitation));
                    ui.refresh();
                }
                Err(error) => {
                    ui.error.try_set(Some(format!("Could not make the invitation: {error}")));
                }
            }
            busy.try_set(false);
        });
    };
    let link = move || made.get().map(|m| format!("{}{}", origin(), m.path));
    let copy = move |_| {
        if let Some(link) = link() {
            spawn_local(async move {
                let done = copy_text(&link).await;
                copied.try_set(done);
            });
        }
    };
    view! {
        <form class="invite-form" on:submit=submit aria-label="Invite someone">
            <label>
                "Role "
                <select on:change=move |ev| {
                    if let Ok(r) = event_target_value(&ev).parse::<Role>() {
                        role.set(r);
                    }
                }>
                    {Role::ALL.into_iter().map(|r| view! {
                        <option value=r.as_str() selected={move || role.get() == r}>{r.label()}</option>
                    }).collect_view()}
                </select>
            </label>
            <label>
                "Name (optional) "
                <input type="text" dir="auto" maxlength="100" prop:value=move || name.get()
                    on:input=move |ev| name.set(event_target_value(&ev))/>
            </label>
            <label>
                "Link works for "
                <select on:change=move |ev| {
                    if let Ok(d) = event_target_value(&ev).parse::<u64>() {
                        days.set(d);
                    }
                }>
                    {VALID_DAYS.into_iter().map(|(d, label)| view! {
                        <option value=d.to_string() selected={move || days.get() == d}>{label}</option>
                    }).collect_view()}
                </select>
            </label>
            <button type="submit" disabled=move || busy.get()>"Create invitation link"</button>
        </form>
        {move || link().map(|link| view! {
            <div class="invite-link" role="status">
                <p>"Send this link to the person you invite. It works once, and is not shown again:"</p>
                <p><code class="invite-url">{link}</code></p>
                <button type="button" on:click=copy>{move || if copied.get() { "Copied" } else { "Copy link" }}</button>
            </div>
        })}
    }
}

/// This page's origin (`https://host:port`), which the link is made on.
fn origin() -> String {
    #[cfg(feature = "hydrate")]
    if let Some(origin) = web_sys::window().and_then(|w| w.location().origin().ok()) {
        return origin;
    }
    String::new()
}
