//! The message box: Enter sends, Shift+Enter starts a new line; it grows with its text (CSS). Used by
//! the welcome page and the chat, which put their controls (the model picker, the thread's switches)
//! next to the Send button. While the chat's run works, Stop takes Send's place.

use leptos::ev::KeyboardEvent;
use leptos::prelude::*;

use crate::ui::icon::{Icon, IconSvg};

#[component]
pub fn Composer(
    /// Called with the text when the person sends it; the box is cleared.
    on_send: Callback<String>,
    /// While true, sending is not possible (a run is in progress or a request is on its way).
    #[prop(into)]
    busy: Signal<bool>,
    #[prop(into)] label: String,
    #[prop(optional, into)] placeholder: String,
    /// Stops the run in progress: given, a Stop button stands in Send's place while `busy`.
    #[prop(optional)]
    on_stop: Option<Callback<()>>,
    /// Controls shown next to the Send button.
    #[prop(optional)]
    children: Option<Children>,
    /// Text the box starts with (a prompt from the address: `/chat/{id}?q=…`); never sent by itself.
    #[prop(optional)]
    initial: String,
) -> impl IntoView {
    let text = RwSignal::new(initial);
    let send = move || {
        let content = text.get_untracked();
        if content.trim().is_empty() || busy.get_untracked() {
            return;
        }
        text.set(String::new());
        on_send.run(content);
    };
    let on_keydown = move |ev: KeyboardEvent| {
        if ev.key() == "Enter" && !ev.shift_key() && !ev.is_composing() {
            ev.prevent_default();
            send();
        }
    };

    view! {
        <form
            class="composer"
            on:submit=move |ev| {
                ev.prevent_default();
                send();
            }
        >
            <label class="visually-hidden" for="composer-input">{label}</label>
            <textarea
                id="composer-input"
                dir="auto"
                name="content"
                rows="3"
                placeholder=placeholder
                prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))
                on:keydown=on_keydown
            ></textarea>
            <div class="composer-bar">
                {children.map(|c| c())}
                {move || match on_stop.filter(|_| busy.get()) {
                    Some(stop) => view! {
                        <button type="button" class="stop" on:click=move |_| stop.run(())><IconSvg icon=Icon::Stop/>"Stop"</button>
                    }
                    .into_any(),
                    None => view! { <button type="submit" class="send" disabled=move || busy.get()><IconSvg icon=Icon::Send/>"Send"</button> }.into_any(),
                }}
            </div>
        </form>
    }
}
