//! The sidebar's link to the inbox, with the number of approvals waiting (kept live by `InboxLive`).

use leptos::prelude::*;

use crate::inbox_live::InboxLive;
use crate::ui::icon::{Icon, IconSvg};

#[component]
pub fn InboxLink() -> impl IntoView {
    let live = expect_context::<InboxLive>();
    view! {
        <a class="inbox-link" href="/inbox">
            <IconSvg icon=Icon::Inbox/>
            "Inbox"
            {move || match live.total() {
                0 => None,
                n => Some(view! {
                    <span class="inbox-badge">{n}<span class="visually-hidden">" waiting"</span></span>
                }),
            }}
        </a>
    }
}
