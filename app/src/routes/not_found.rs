//! The page for an address that matches no route.

use leptos::prelude::*;

#[component]
pub fn NotFound() -> impl IntoView {
    view! {
        <section class="page">
            <h1>"Page not found"</h1>
            <p><a href="/">"Start a new chat"</a></p>
        </section>
    }
}
