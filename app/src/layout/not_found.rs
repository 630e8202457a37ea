//! The page for an address that matches no route; served with status 404.

use leptos::prelude::*;

#[component]
pub fn NotFound() -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(http::StatusCode::NOT_FOUND);
    }
    view! {
        <section class="page">
            <h1>"Page not found"</h1>
            <p><a href="/">"Start a new chat"</a></p>
        </section>
    }
}
