//! The page's frame: the thread sidebar beside the routed page, or, on a narrow screen, a drawer the
//! Menu button opens over the page; it closes when a link in it is followed, on Escape and on a tap
//! beside it.

use leptos::ev::KeyboardEvent;
use leptos::prelude::*;

use crate::components::sidebar::Sidebar;

#[component]
pub fn AppLayout(children: Children) -> impl IntoView {
    let open = RwSignal::new(false);
    // A link followed in the drawer closes it (the page behind it is the one asked for).
    let on_click = move |ev: leptos::ev::MouseEvent| {
        #[cfg(feature = "hydrate")]
        {
            use wasm_bindgen::JsCast;
            let in_drawer_link = ev
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .and_then(|e| e.closest("#sidebar a").ok().flatten())
                .is_some();
            if in_drawer_link && open.get_untracked() {
                open.set(false);
            }
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = ev;
    };
    let on_keydown = move |ev: KeyboardEvent| {
        if ev.key() == "Escape" && open.get_untracked() {
            open.set(false);
        }
    };
    view! {
        <div class="layout" class:drawer-open=move || open.get() on:keydown=on_keydown on:click=on_click>
            <button
                type="button"
                class="menu-button"
                aria-controls="sidebar"
                aria-expanded=move || open.get().to_string()
                on:click=move |_| open.update(|o| *o = !*o)
            >
                "Menu"
            </button>
            <Sidebar/>
            <div class="drawer-backdrop" aria-hidden="true" on:click=move |_| open.set(false)></div>
            <main id="main" class="main">
                {children()}
            </main>
        </div>
    }
}
