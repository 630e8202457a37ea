//! The page's frame: the thread sidebar beside the routed page, or, on a narrow screen, a drawer the
//! Menu button opens over the page; it closes when a link in it is followed, on Escape, on a tap
//! beside it and on the browser's Back (an open drawer is a step of the history, as on a phone's apps).

use leptos::ev::KeyboardEvent;
use leptos::prelude::*;

use crate::layout::shortcuts_dialog::ShortcutsDialog;
use crate::layout::sidebar::Sidebar;
use crate::ui::icon::{Icon, IconSvg};

#[component]
pub fn AppLayout(children: Children) -> impl IntoView {
    crate::ui::routing::Me::provide();
    let open = RwSignal::new(false);
    let help = RwSignal::new(false);
    #[cfg(feature = "hydrate")]
    keyboard::listen(open, help);
    #[cfg(feature = "hydrate")]
    let history = drawer_history::follow(open);
    // A link followed in the drawer closes it (the page behind it is the one asked for).
    let on_click = move |ev: leptos::ev::MouseEvent| {
        #[cfg(feature = "hydrate")]
        {
            use wasm_bindgen::JsCast;
            let link = ev
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .and_then(|e| e.closest("#sidebar a").ok().flatten());
            if let Some(link) = link.filter(|_| open.get_untracked()) {
                history.follow_link(&ev, &link);
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
            <SkipLinks/>
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
            <main id="main" class="main" tabindex="-1">
                {children()}
            </main>
            <ShortcutsDialog open=help/>
        </div>
    }
}

/// The first tab stops of every page: past the sidebar's threads to the page itself, and on a chat to
/// its message box. Hidden until focused. A click moves the focus there (not only the scroll), so the
/// next Tab goes on from the target.
#[component]
fn SkipLinks() -> impl IntoView {
    let location = leptos_router::hooks::use_location();
    let has_composer = move || {
        let path = location.pathname.get();
        path == "/" || path.starts_with("/chat/")
    };
    let skip_to = |target: &'static str| {
        move |ev: leptos::ev::MouseEvent| {
            #[cfg(feature = "hydrate")]
            {
                use wasm_bindgen::JsCast;
                let element = document().get_element_by_id(target).or_else(|| document().get_element_by_id("main"));
                if let Some(element) = element.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
                    ev.prevent_default();
                    let _ = element.focus();
                }
            }
            #[cfg(not(feature = "hydrate"))]
            let _ = (ev, target);
        }
    };
    view! {
        <nav class="skip-links" aria-label="Skip links">
            <a class="skip-link" href="#main" rel="external" on:click=skip_to("main")>"Skip to content"</a>
            <a class="skip-link" href="#composer-input" rel="external" hidden=move || !has_composer()
                on:click=skip_to("composer-input")>"Skip to message box"</a>
        </nav>
    }
}

/// The open drawer as a step of the browser's history: opening it (where it is a drawer) adds an entry
/// at the same address, Back closes it, and closing it otherwise takes that entry back. A link followed
/// from the drawer replaces the entry, so Back from the page it opened returns to the page before.
#[cfg(feature = "hydrate")]
mod drawer_history {
    use leptos::prelude::*;
    use leptos_router::NavigateOptions;
    use wasm_bindgen::{JsCast, JsValue};

    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Entry {
        /// The history holds no entry of the drawer's.
        None,
        /// The drawer's entry is the current one.
        Pushed,
        /// The drawer closed and its entry is being taken back (`history.back()`), not yet popped.
        Popping,
    }

    /// The router's navigation, kept from when the layout was made (an event handler has no router).
    type Navigate = Box<dyn Fn(&str, NavigateOptions)>;

    pub struct DrawerHistory {
        entry: StoredValue<Entry>,
        navigate: Navigate,
    }

    /// Whether the sidebar shows as a drawer here (the Menu button that opens it is shown).
    fn is_drawer() -> bool {
        let menu = document().query_selector(".menu-button").ok().flatten();
        let style = menu.and_then(|m| window().get_computed_style(&m).ok().flatten());
        style.and_then(|s| s.get_property_value("display").ok()).is_some_and(|d| d != "none")
    }

    pub fn follow(open: RwSignal<bool>) -> DrawerHistory {
        let entry = StoredValue::new(Entry::None);
        Effect::new(move |_| {
            let history = window().history();
            match (open.get(), entry.get_value()) {
                (true, Entry::None) if is_drawer() => {
                    if let Ok(history) = history {
                        // Same address: only Back's meaning changes.
                        if history.push_state(&JsValue::from_str("warden-drawer"), "").is_ok() {
                            entry.set_value(Entry::Pushed);
                        }
                    }
                }
                (false, Entry::Pushed) => {
                    entry.set_value(Entry::Popping);
                    if history.and_then(|h| h.back()).is_err() {
                        entry.set_value(Entry::None);
                    }
                }
                _ => {}
            }
        });
        let handle = window_event_listener(leptos::ev::popstate, move |_| match entry.get_value() {
            // Back while the drawer is open: that closes it.
            Entry::Pushed => {
                entry.set_value(Entry::None);
                open.set(false);
            }
            Entry::Popping => entry.set_value(Entry::None),
            Entry::None => {}
        });
        on_cleanup(move || handle.remove());
        DrawerHistory { entry, navigate: Box::new(leptos_router::hooks::use_navigate()) }
    }

    impl DrawerHistory {
        /// A plain click on a link of this site in the open drawer: the page it names replaces the
        /// drawer's entry (the router is left out: it would add one after it).
        pub fn follow_link(&self, ev: &leptos::ev::MouseEvent, link: &web_sys::Element) {
            if self.entry.get_value() != Entry::Pushed
                || ev.default_prevented()
                || ev.button() != 0
                || ev.meta_key()
                || ev.ctrl_key()
                || ev.shift_key()
                || ev.alt_key()
            {
                return;
            }
            let Ok(anchor) = link.clone().dyn_into::<web_sys::HtmlAnchorElement>() else { return };
            let same_site = window().location().origin().is_ok_and(|origin| anchor.origin() == origin);
            if !same_site || !anchor.target().is_empty() || anchor.has_attribute("download") {
                return;
            }
            ev.prevent_default();
            self.entry.set_value(Entry::None);
            let to = format!("{}{}{}", anchor.pathname(), anchor.search(), anchor.hash());
            (self.navigate)(&to, NavigateOptions { replace: true, ..Default::default() });
        }
    }
}

/// The shortcuts of every page (`crate::ui::shortcuts`), for the life of the layout.
#[cfg(feature = "hydrate")]
mod keyboard {
    use leptos::prelude::*;
    use wasm_bindgen::JsCast;

    use crate::layout::thread_search::SEARCH_BOX_ID;
    use crate::ui::shortcuts::is_typing;
    use crate::ui::shortcuts::{global_shortcut, Global};

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
