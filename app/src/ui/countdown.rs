//! The time an outside request has left before it times out (and is answered `rejected`), ticking
//! in the browser, with a warning in its last half minute and "Extend" for more time.

use leptos::prelude::*;
use leptos::task::spawn_local;
use warden_outside::OutsideRequest;

use crate::server_fns::inbox::extend_outside;

/// How much "Extend" adds, in seconds.
pub const EXTEND_SECS: u64 = 120;
/// From how many seconds left the countdown warns.
const WARN_SECS: f64 = 30.0;

/// The time now in milliseconds since the epoch, ticking every second while its owner lives;
/// `None` on the server and before hydration, so both render the same.
#[derive(Clone, Copy)]
pub struct Clock(pub RwSignal<Option<f64>>);

impl Clock {
    pub fn start() -> Self {
        let now = RwSignal::new(None);
        // Effects run only in the browser.
        Effect::new(move |_| {
            #[cfg(feature = "hydrate")]
            {
                now.set(Some(js_sys::Date::now()));
                let tick = move || {
                    now.try_set(Some(js_sys::Date::now()));
                };
                if let Ok(handle) = set_interval_with_handle(tick, std::time::Duration::from_secs(1)) {
                    on_cleanup(move || handle.clear());
                }
            }
        });
        Self(now)
    }
}

/// Milliseconds since the epoch of an RFC 3339 time (the browser parses it).
fn epoch_ms(at: &str) -> Option<f64> {
    #[cfg(feature = "hydrate")]
    {
        let ms = js_sys::Date::parse(at);
        ms.is_finite().then_some(ms)
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = at;
        None
    }
}

/// `1:05` for 65 seconds.
fn minutes_seconds(secs: u64) -> String {
    format!("{}:{:02}", secs / 60, secs % 60)
}

/// The countdown of a pending request, and Extend. `on_extended` gets the request with its new
/// deadline.
#[component]
pub fn Countdown(
    request_id: String,
    expires_at: String,
    clock: Clock,
    on_extended: Callback<OutsideRequest>,
) -> impl IntoView {
    let deadline = epoch_ms(&expires_at);
    // `2026-01-01T12:34:56.789Z` -> `12:34:56 UTC`, until the browser's clock takes over.
    let at = expires_at.get(11..19).map(|t| format!("{t} UTC")).unwrap_or_else(|| expires_at.clone());
    let left = Memo::new(move |_| Some(((deadline? - clock.0.get()?) / 1000.0).max(0.0)));
    let warning = move || left.get().is_some_and(|s| s <= WARN_SECS);
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let extend = move |_| {
        busy.set(true);
        error.set(None);
        let id = request_id.clone();
        spawn_local(async move {
            match extend_outside(id.into(), EXTEND_SECS).await {
                Ok(request) => on_extended.run(request),
                Err(e) => {
                    error.try_set(Some(e.to_string()));
                }
            }
            busy.try_set(false);
        });
    };
    view! {
        <div class="countdown" class:warning=warning>
            <span class="countdown-text">
                {move || match left.get() {
                    None => format!("Times out at {at}"),
                    Some(s) if s <= 0.0 => "Timing out now".to_string(),
                    Some(s) => format!("Times out in {}", minutes_seconds(s.ceil() as u64)),
                }}
            </span>
            {move || warning().then(|| view! {
                <span class="countdown-warning" role="status">
                    "Less than 30 seconds left: decide, or extend it"
                </span>
            })}
            <button type="button" class="extend" disabled=move || busy.get() on:click=extend>
                "Extend by 2 minutes"
            </button>
            {move || error.get().map(|message| view! { <span class="error" role="alert">{message}</span> })}
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_read_as_minutes_and_seconds() {
        assert_eq!(minutes_seconds(0), "0:00");
        assert_eq!(minutes_seconds(65), "1:05");
        assert_eq!(minutes_seconds(600), "10:00");
    }
}
