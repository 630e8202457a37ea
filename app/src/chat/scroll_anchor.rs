//! Keeps what the person was reading where it is on screen while rows are added above it ("Show
//! earlier messages"): the first row of the conversation is noted before, and the page is scrolled
//! by as much as it moved once the new rows are laid out. Only in the browser; elsewhere a no-op.

/// The first row of the conversation and where it was on screen.
pub struct Anchor {
    #[cfg(feature = "hydrate")]
    row: web_sys::Element,
    #[cfg(feature = "hydrate")]
    top: f64,
}

impl Anchor {
    /// Notes the conversation's first row, if the page has one.
    pub fn first_row() -> Option<Anchor> {
        #[cfg(feature = "hydrate")]
        {
            let row = leptos::prelude::document().query_selector("ol.messages > li").ok().flatten()?;
            let top = row.get_bounding_client_rect().top();
            Some(Anchor { row, top })
        }
        #[cfg(not(feature = "hydrate"))]
        None
    }

    /// After the next layout, scrolls so that the row is back where it was.
    pub fn restore(self) {
        #[cfg(feature = "hydrate")]
        leptos::prelude::request_animation_frame(move || {
            let moved = self.row.get_bounding_client_rect().top() - self.top;
            if moved.abs() >= 1.0 {
                leptos::prelude::window().scroll_by_with_x_and_y(0.0, moved);
            }
        });
    }
}
