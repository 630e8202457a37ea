//! Settings' "Your account", for everyone: who they are here (name, login, role), their password and their
//! passkeys (`passkeys`). The owner who installed Warden has no password until they set one (the printed
//! link signs them in).

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::server_fns::people::set_own_password;
use crate::settings::people::passkeys::PasskeysPart;
use warden_types::person::Person;

#[component]
pub fn AccountSection(me: Person) -> impl IntoView {
    let current = RwSignal::new(String::new());
    let new = RwSignal::new(String::new());
    let again = RwSignal::new(String::new());
    let message = RwSignal::new(None::<(bool, String)>);
    let has_password = RwSignal::new(me.has_password);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        if new.get_untracked() != again.get_untracked() {
            message.set(Some((false, "The two new passwords differ.".into())));
            return;
        }
        let current_value = Some(current.get_untracked()).filter(|_| has_password.get_untracked());
        let new_value = new.get_untracked();
        spawn_local(async move {
            match set_own_password(current_value, new_value).await {
                Ok(()) => {
                    has_password.try_set(true);
                    for field in [current, new, again] {
                        field.try_set(String::new());
                    }
                    message.try_set(Some((true, "Your password is set.".into())));
                }
                Err(error) => {
                    message.try_set(Some((false, format!("Could not set the password: {error}"))));
                }
            }
        });
    };
    let field = |label: &'static str, value: RwSignal<String>, autocomplete: &'static str| {
        view! {
            <label>
                {label} " "
                <input type="password" autocomplete=autocomplete prop:value=move || value.get()
                    on:input=move |ev| value.set(event_target_value(&ev))/>
            </label>
        }
    };
    view! {
        <section class="account" aria-labelledby="account-title">
            <h2 id="account-title">"Your account"</h2>
            <p>
                {me.name.clone()} " (" <code>{me.login.clone()}</code> "), " {me.role.label().to_lowercase()}
            </p>
            <form class="password-form" on:submit=submit aria-label="Set your password">
                <Show when=move || has_password.get()>{field("Current password", current, "current-password")}</Show>
                {field("New password", new, "new-password")}
                {field("New password again", again, "new-password")}
                <button type="submit">"Set password"</button>
            </form>
            {move || message.get().map(|(ok, text)| {
                view! { <p class={if ok { "notice" } else { "error" }} role={if ok { "status" } else { "alert" }}>{text}</p> }
            })}
            <PasskeysPart/>
        </section>
    }
    .into_any()
}
