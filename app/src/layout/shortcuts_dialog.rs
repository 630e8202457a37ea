//! The dialog `?` opens: every keyboard shortcut, from the same tables the keys are read from.

use leptos::prelude::*;

use crate::ui::shortcuts::{CARD_SHORTCUTS, GLOBAL_SHORTCUTS, INBOX_SHORTCUTS};

#[component]
pub fn ShortcutsDialog(open: RwSignal<bool>) -> impl IntoView {
    let close_button = NodeRef::<leptos::html::Button>::new();
    // Opened: the focus goes to its Close button, so Escape and Tab act inside it.
    Effect::new(move |_| {
        if open.get() {
            if let Some(button) = close_button.get() {
                let _ = button.focus();
            }
        }
    });
    let rows = |list: Vec<(&'static str, &'static str)>| {
        list.into_iter().map(|(key, what)| view! { <tr><td><kbd>{key}</kbd></td><td>{what}</td></tr> }).collect_view()
    };
    view! {
        <Show when=move || open.get()>
            <div class="dialog-backdrop" on:click=move |_| open.set(false)></div>
            <div
                class="dialog shortcuts-dialog"
                role="dialog"
                aria-modal="true"
                aria-labelledby="shortcuts-title"
                on:keydown=move |ev| {
                    if ev.key() == "Escape" {
                        ev.prevent_default();
                        open.set(false);
                    }
                }
            >
                <h2 id="shortcuts-title">"Keyboard shortcuts"</h2>
                <table>
                    <caption>"Anywhere"</caption>
                    <tbody>{rows(GLOBAL_SHORTCUTS.iter().map(|(k, _, w)| (*k, *w)).collect())}</tbody>
                </table>
                <table>
                    <caption>"On an approval card with the focus"</caption>
                    <tbody>{rows(CARD_SHORTCUTS.to_vec())}</tbody>
                </table>
                <table>
                    <caption>"In the inbox"</caption>
                    <tbody>{rows(INBOX_SHORTCUTS.iter().map(|(k, _, w)| (*k, *w)).collect())}</tbody>
                </table>
                <button type="button" node_ref=close_button on:click=move |_| open.set(false)>"Close"</button>
            </div>
        </Show>
    }
}
