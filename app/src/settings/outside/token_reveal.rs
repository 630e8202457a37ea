//! A new client's token, shown the one time it exists outside the client: in a read-only field with
//! a copy button and a plain warning that it will not be shown again (Warden keeps only its hash).

use leptos::prelude::*;

use warden_outside::NewClient;

/// What the copy button last did.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
enum Copied {
    Yes,
    /// The browser would not (an insecure address, a refused permission).
    No,
}

#[component]
pub fn TokenReveal(created: NewClient, #[prop(into)] on_done: Callback<()>) -> impl IntoView {
    let copied = RwSignal::new(None::<Copied>);
    let token = StoredValue::new(created.token);
    let name = created.client.name;
    view! {
        <div class="token-reveal" role="group" aria-labelledby="token-reveal-title">
            <h3 id="token-reveal-title">{format!("Token for {name}")}</h3>
            <p class="warning">
                <strong>"Copy it now: it will not be shown again."</strong>
                " Warden keeps only its hash. If it is lost, revoke this client and register a new one."
            </p>
            <label>
                "Client token"
                <input type="text" class="token" readonly value=token.get_value() spellcheck="false" autocomplete="off"/>
            </label>
            <div class="mcp-form-buttons">
                <button type="button" on:click=move |_| copy(token.get_value(), copied)>"Copy token"</button>
                <button type="button" on:click=move |_| on_done.run(())>"Done"</button>
                <span role="status">
                    {move || match copied.get() {
                        Some(Copied::Yes) => "Copied to the clipboard.",
                        Some(Copied::No) => "The browser would not copy it: select the token and copy it yourself.",
                        None => "",
                    }}
                </span>
            </div>
        </div>
    }
    .into_any()
}

/// Puts `text` on the clipboard (browser only; the button does nothing before hydration).
fn copy(text: String, copied: RwSignal<Option<Copied>>) {
    leptos::task::spawn_local(async move {
        let done = crate::ui::clipboard::copy_text(&text).await;
        copied.try_set(Some(if done { Copied::Yes } else { Copied::No }));
    });
}
