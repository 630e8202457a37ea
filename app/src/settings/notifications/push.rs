//! "Allow notifications on this browser" and "Stop": plain buttons that `/notifications.js` acts on (the
//! browser's permission, the service worker, `PushManager.subscribe` with the server's VAPID key, and the
//! subscription registered as the person's channel). What happened, or why not, shows in the status line.

use leptos::prelude::*;

#[component]
pub fn PushButtons() -> impl IntoView {
    view! {
        <div class="push-buttons" role="group" aria-label="Notifications on this browser">
            <button type="button" data-push="allow" data-push-name="This browser">
                "Allow notifications on this browser"
            </button>
            <button type="button" data-push="stop">"Stop notifications on this browser"</button>
            <p class="hint" data-push-status="" aria-live="polite"></p>
        </div>
    }
}
