//! The SMTP server e-mail channels go through (owners): host, port, security, user, password, sender, and
//! "Send a test mail to me". When `WARDEN_SMTP_URL` is set it is used instead, and the form says so.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::server_fns::notifications::{get_smtp, save_smtp, test_smtp};
use crate::settings::notifications::state::origin;
use crate::ui::error_notice::error_list;
use warden_types::channel::{SmtpInput, SmtpSecurity, SmtpView};

#[component]
pub fn SmtpForm() -> impl IntoView {
    let smtp = Resource::new(|| (), |_| get_smtp());
    view! {
        <h3 id="smtp-title">"E-mail server (SMTP)"</h3>
        <Transition fallback=|| view! { <p class="loading">"Loading the e-mail server…"</p> }>
            <ErrorBoundary fallback=error_list>
                {move || Suspend::new(async move { smtp.await.map(|view| view! { <SmtpFields view/> }) })}
            </ErrorBoundary>
        </Transition>
    }
}

#[component]
fn SmtpFields(view: SmtpView) -> impl IntoView {
    let stored = view.stored.clone();
    let host = RwSignal::new(stored.as_ref().map(|s| s.host.clone()).unwrap_or_default());
    let port = RwSignal::new(stored.as_ref().map_or(587, |s| s.port).to_string());
    let security = RwSignal::new(stored.as_ref().map_or(SmtpSecurity::StartTls, |s| s.security));
    let user = RwSignal::new(stored.as_ref().and_then(|s| s.user.clone()).unwrap_or_default());
    let password = RwSignal::new(String::new());
    let from = RwSignal::new(stored.as_ref().map(|s| s.from.clone()).unwrap_or_default());
    let test_to = RwSignal::new(String::new());
    let status = RwSignal::new(None::<(bool, String)>);
    let working = RwSignal::new(false);
    let has_password = stored.as_ref().is_some_and(|s| s.password.is_some());

    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Ok(port_number) = port.get_untracked().trim().parse::<u16>() else {
            status.set(Some((false, "The port is a number from 1 to 65535.".into())));
            return;
        };
        let input = SmtpInput {
            host: host.get_untracked(),
            port: port_number,
            security: security.get_untracked(),
            user: Some(user.get_untracked()).filter(|u| !u.trim().is_empty()),
            password: Some(password.get_untracked()).filter(|p| !p.is_empty()),
            from: from.get_untracked(),
        };
        working.set(true);
        spawn_local(async move {
            status.set(Some(match save_smtp(input).await {
                Ok(_) => (true, "Saved.".into()),
                Err(e) => (false, e.to_string()),
            }));
            working.set(false);
        });
    };
    let send_test = move |_| {
        working.set(true);
        spawn_local(async move {
            status.set(Some(match test_smtp(test_to.get_untracked(), origin()).await {
                Ok(result) => (result.ok, format!("{}: {}", if result.ok { "Sent" } else { "Failed" }, result.detail)),
                Err(e) => (false, e.to_string()),
            }));
            working.set(false);
        });
    };
    view! {
        {view.from_environment.map(|url| view! {
            <p class="hint">"WARDEN_SMTP_URL is set, so e-mail goes through " <code>{url}</code> " and not the server below."</p>
        })}
        <form class="mcp-form smtp-form" aria-labelledby="smtp-title" on:submit=save>
            <label>"Host" <input type="text" required autocomplete="off" spellcheck="false" placeholder="smtp.example.com"
                prop:value=move || host.get() on:input=move |ev| host.set(event_target_value(&ev))/></label>
            <label>"Port" <input type="number" required min="1" max="65535"
                prop:value=move || port.get() on:input=move |ev| port.set(event_target_value(&ev))/></label>
            <label>
                "Security"
                <select on:change=move |ev| { if let Ok(s) = event_target_value(&ev).parse() { security.set(s) } }>
                    {SmtpSecurity::ALL.into_iter().map(|s| view! {
                        <option value=s.as_str() selected=move || security.get() == s>{s.label()}</option>
                    }).collect_view()}
                </select>
            </label>
            <label>"User (optional)" <input type="text" autocomplete="off" spellcheck="false"
                prop:value=move || user.get() on:input=move |ev| user.set(event_target_value(&ev))/></label>
            <label>
                {if has_password { "Password (empty: keep the current one)" } else { "Password (optional)" }}
                <input type="password" autocomplete="new-password"
                    prop:value=move || password.get() on:input=move |ev| password.set(event_target_value(&ev))/>
            </label>
            <label>"From" <input type="text" required autocomplete="off" placeholder="Warden <warden@example.com>"
                prop:value=move || from.get() on:input=move |ev| from.set(event_target_value(&ev))/></label>
            <div class="mcp-form-buttons">
                <button type="submit" class="approve" disabled=move || working.get()>"Save e-mail server"</button>
            </div>
        </form>
        <div class="smtp-test" role="group" aria-label="Send a test mail">
            <label>"Send a test mail to" <input type="email" autocomplete="email"
                prop:value=move || test_to.get() on:input=move |ev| test_to.set(event_target_value(&ev))/></label>
            <button type="button" disabled=move || working.get() on:click=send_test>"Send a test mail to me"</button>
        </div>
        {move || status.get().map(|(ok, text)| view! {
            <p class=if ok { "test-ok" } else { "error" } role=if ok { "status" } else { "alert" }>{text}</p>
        })}
    }
    .into_any()
}
