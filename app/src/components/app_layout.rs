//! The page's frame: the thread sidebar beside the routed page, or, on a narrow screen, a drawer the
//! Menu button opens over the page; it closes when a link in it is followed, on Escape and on a tap
//! beside it.

use leptos::ev::KeyboardEvent;
use leptos::prelude::*;

use crate::components::icon::{Icon, IconSvg};
use crate::components::shortcuts_dialog::ShortcutsDialog;
use crate::components::sidebar::Sidebar;

#[component]
pub fn AppLayout(children: Children) -> impl IntoView {
    let open = RwSignal::new(false);
    let help = RwSignal::new(false);
    #[cfg(feature = "hydrate")]
    keyboard::listen(open, help);
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
            // Closing the drawer is all this Escape does (not also the shortcut that stops a run).
            ev.prevent_default();
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
                <IconSvg icon=Icon::Menu/>
                "Menu"
            </button>
            <Sidebar/>
            <div class="drawer-backdrop" aria-hidden="true" on:click=move |_| open.set(false)></div>
            <main id="main" class="main">
                {children()}
            </main>
            <ShortcutsDialog open=help/>
        </div>
    }
}

/// The shortcuts of every page (`crate::shortcuts`), for the life of the layout.
#[cfg(feature = "hydrate")]
mod keyboard {
    use leptos::prelude::*;
    use wasm_bindgen::JsCast;

    use crate::components::thread_search::SEARCH_BOX_ID;
    use crate::inbox_keys::is_typing;
    use crate::shortcuts::{global_shortcut, Global};

    fn focus(selector: &str) -> bool {
        let element = document().query_selector(selector).ok().flatten();
        match element.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
            Some(element) => element.focus().is_ok(),
            None => false,
        }
    }

    pub fn listen(drawer: RwSignal<bool>, help: RwSignal<bool>) {
        let navigate = leptos_router::hooks::use_navigate();
        Effect::new(move |_| {
            let navigate = navigate.clone();
            let handle = window_event_listener(leptos::ev::keydown, move |ev| {
                if ev.default_prevented() || help.get_untracked() {
                    return;
                }
                let ctrl = ev.ctrl_key() || ev.meta_key();
                let Some(action) = global_shortcut(&ev.key(), ctrl, ev.alt_key(), is_typing(&ev)) else { return };
                let done = match action {
                    Global::Search => {
                        // On a phone the box is in the drawer: open it first.
                        drawer.set(true);
                        focus(&format!("#{SEARCH_BOX_ID}"))
                    }
                    Global::NewChat => {
                        navigate("/", Default::default());
                        true
                    }
                    Global::Composer => focus("#composer-input"),
                    Global::Stop => {
                        let stop = document().query_selector(".composer button.stop").ok().flatten();
                        match stop.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
                            Some(button) => {
                                button.click();
                                true
                            }
                            None => false,
                        }
                    }
                    Global::Help => {
                        help.set(true);
                        true
                    }
                };
                if done {
                    ev.prevent_default();
                }
            });
            on_cleanup(move || handle.remove());
        });
    }
}
