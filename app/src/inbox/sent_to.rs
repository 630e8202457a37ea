//! "Notified": what Warden sent about a request away from the app, folded under the item: to whom, by
//! which channel, and what became of it (sending, delivered with the channel's answer, failed with why,
//! opened). Read when unfolded, again each time.

use leptos::prelude::*;
use leptos::task::spawn_local;
use warden_types::notification::{NotificationReason, NotificationRecord};

use crate::model::inbox::item::ItemKey;
use crate::server_fns::sent::sent_notifications;
use crate::ui::timestamp::Timestamp;

#[component]
pub fn SentTo(key: ItemKey) -> impl IntoView {
    let sent = RwSignal::new(None::<Result<Vec<NotificationRecord>, String>>);
    let open = RwSignal::new(false);
    // The summary's click (a key press on it clicks too) opens the details: read the log then.
    let toggled = move |_| {
        open.update(|o| *o = !*o);
        if open.get_untracked() {
            let key = key.clone();
            spawn_local(async move {
                sent.set(Some(sent_notifications(key).await.map_err(|e| e.to_string())));
            });
        }
    };
    view! {
        <details class="sent-to">
            <summary on:click=toggled>"Notified"</summary>
            {move || match sent.get() {
                None => view! { <p class="muted">"Loading…"</p> }.into_any(),
                Some(Err(error)) => view! { <p class="error">{error}</p> }.into_any(),
                Some(Ok(list)) if list.is_empty() => {
                    view! { <p class="muted">"Nothing was sent: nobody it waits for has a channel (Settings → Notifications)."</p> }
                        .into_any()
                }
                Some(Ok(list)) => view! {
                    <ul class="sent-list">
                        {list.into_iter().map(|n| view! { <li>{row(n)}</li> }).collect_view()}
                    </ul>
                }
                .into_any(),
            }}
        </details>
    }
}

fn row(n: NotificationRecord) -> impl IntoView {
    let who = n.person_name.clone().unwrap_or_else(|| "Shared channel".into());
    let why = match n.reason {
        NotificationReason::Request => "",
        NotificationReason::Reminder => " (reminder)",
        NotificationReason::Escalated => " (escalated)",
    };
    let state = n.state();
    let (when, said) = match state {
        "opened" => (n.opened_at.clone(), n.detail.clone()),
        "delivered" => (n.delivered_at.clone(), n.detail.clone()),
        "failed" => (n.failed_at.clone(), n.error.clone()),
        _ => (Some(n.created_at.clone()), None),
    };
    view! {
        <span class="sent-who" dir="auto">{who}</span>
        " · " {n.channel_kind.replace('_', " ")} " “" <span dir="auto">{n.channel_name.clone()}</span> "”" {why} " · "
        <span class=format!("sent-state sent-{state}")>{state}</span>
        {when.map(|at| view! { " " <Timestamp at=at/> })}
        {said.map(|s| view! { <span class="sent-detail">{format!(" — {s}")}</span> })}
    }
}
