//! Following a conversation as it grows: while the person is at the bottom of the page, new text
//! (streaming or stored) keeps the bottom in view; once they scroll up it stays where they put it,
//! and a "Jump to latest" button takes them back down (and following starts again).

use leptos::prelude::*;

/// How near the bottom (px) still counts as being there.
#[cfg(feature = "hydrate")]
const AT_BOTTOM_PX: f64 = 80.0;

#[component]
pub fn AutoScroll(
    /// Changes whenever the conversation grows (read for its changes only).
    #[prop(into)]
    grows: Signal<usize>,
) -> impl IntoView {
    let at_bottom = RwSignal::new(true);
    #[cfg(feature = "hydrate")]
    {
        // Scrolling up is the person's doing (following only ever scrolls down, and growing text does
        // not scroll): it stops following; being back near the bottom starts it again.
        let last_y = StoredValue::new(0.0f64);
        Effect::new(move |_| {
            let handle = window_event_listener(leptos::ev::scroll, move |_| {
                let y = window().scroll_y().unwrap_or(0.0);
                if y < last_y.get_value() - 1.0 {
                    at_bottom.set(false);
                } else if browser::distance_to_bottom() < AT_BOTTOM_PX {
                    at_bottom.set(true);
                }
                last_y.set_value(y);
            });
            on_cleanup(move || handle.remove());
        });
        Effect::new(move |_| {
            grows.track();
            if at_bottom.get_untracked() {
                browser::to_bottom(false, at_bottom);
            }
        });
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = grows;
    let jump = move |_| {
        at_bottom.set(true);
        #[cfg(feature = "hydrate")]
        browser::to_bottom(true, at_bottom);
    };
    view! {
        <Show when=move || !at_bottom.get()>
            <button type="button" class="jump-to-latest" on:click=jump>"Jump to latest ↓"</button>
        </Show>
    }
}

#[cfg(feature = "hydrate")]
mod browser {
    use leptos::prelude::*;

    fn scroll_height() -> f64 {
        document().document_element().map_or(0.0, |e| f64::from(e.scroll_height()))
    }

    pub fn distance_to_bottom() -> f64 {
        let window = window();
        let seen =
            window.scroll_y().unwrap_or(0.0) + window.inner_height().ok().and_then(|h| h.as_f64()).unwrap_or(0.0);
        scroll_height() - seen
    }

    /// After the next layout (the new text is in the page by then), unless the person scrolled up
    /// meanwhile (scroll events come before animation frames).
    pub fn to_bottom(smooth: bool, following: RwSignal<bool>) {
        request_animation_frame(move || {
            if !following.try_get_untracked().unwrap_or(false) {
                return;
            }
            let options = web_sys::ScrollToOptions::new();
            options.set_top(scroll_height());
            options.set_behavior(if smooth {
                web_sys::ScrollBehavior::Smooth
            } else {
                web_sys::ScrollBehavior::Instant
            });
            window().scroll_to_with_scroll_to_options(&options);
        });
    }
}
