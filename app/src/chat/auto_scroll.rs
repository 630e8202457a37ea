//! Following a conversation as it grows: while the person is at the bottom of the page, new text
//! (streaming or stored) keeps the bottom in view; once they scroll up it stays where they put it,
//! and a "Jump to latest" button takes them back down (and following starts again). The button shows
//! only while the page is scrolled away from its bottom: never on a page that does not scroll. A link to one
//! message (a search result's) opens with that message in view.

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
    // Whether the page is scrolled away from its bottom at all: a page that does not scroll (or is at its
    // bottom) has no "latest" to jump to, whatever stopped following.
    let away = RwSignal::new(false);
    #[cfg(feature = "hydrate")]
    {
        let measure = move || {
            let far = browser::distance_to_bottom() >= AT_BOTTOM_PX;
            away.try_set(far);
            if !far {
                at_bottom.try_set(true);
            }
        };
        Effect::new(move |_| {
            let handle = window_event_listener(leptos::ev::resize, move |_| measure());
            on_cleanup(move || handle.remove());
        });
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
                away.set(browser::distance_to_bottom() >= AT_BOTTOM_PX);
            });
            on_cleanup(move || handle.remove());
        });
        // A link to one message (`#m-…`, a search result) brings that message into view, once,
        // instead of the bottom; following starts again at the bottom.
        let linked = StoredValue::new(None::<String>);
        Effect::new(move |_| {
            grows.track();
            if at_bottom.get_untracked() {
                browser::to_bottom(false, at_bottom, Some(linked));
            }
            // After the next layout: what grew (or shrank) may have made the page scroll, or not.
            request_animation_frame(measure);
        });
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = grows;
    let jump = move |_| {
        at_bottom.set(true);
        #[cfg(feature = "hydrate")]
        browser::to_bottom(true, at_bottom, None);
    };
    view! {
        <Show when=move || !at_bottom.get() && away.get()>
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

    /// Scrolls the message the address names (`#m-…`) into view, if it is on the page and was not
    /// scrolled to already: whether it did.
    fn to_linked_message(done: StoredValue<Option<String>>) -> bool {
        let hash = window().location().hash().unwrap_or_default();
        let Some(id) = hash.strip_prefix('#').filter(|id| id.starts_with("m-")) else { return false };
        if done.try_with_value(|d| d.as_deref() == Some(id)).unwrap_or(true) {
            return false;
        }
        let Some(message) = document().get_element_by_id(id) else { return false };
        done.set_value(Some(id.to_string()));
        message.scroll_into_view();
        true
    }

    /// After the next layout (the new text is in the page by then), unless the person scrolled up
    /// meanwhile (scroll events come before animation frames). With `linked`, a message the address
    /// names and that was not shown yet is brought into view instead, and following stops (the
    /// router sets the address after the page renders, so this looks in the frame, not before).
    pub fn to_bottom(smooth: bool, following: RwSignal<bool>, linked: Option<StoredValue<Option<String>>>) {
        request_animation_frame(move || {
            if !following.try_get_untracked().unwrap_or(false) {
                return;
            }
            if linked.is_some_and(to_linked_message) {
                following.set(false);
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
