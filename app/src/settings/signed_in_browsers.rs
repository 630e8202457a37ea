//! Settings' "Signed-in browsers": every browser the sign-in link signed in, with where it signed in
//! from and when, and when it was last seen; this one is marked. Each can be signed out at once, or all
//! the others, or all including this one (which then shows the sign-in page). Signing out unused
//! browsers is the remedy for a cookie that reached a page it should not have (see docs/SECURITY.md).

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::error::AppError;
use crate::server_fns::sessions::{list_signed_in_browsers, sign_out_browser, sign_out_browsers};
use crate::settings::section_ui::SectionUi;
use crate::ui::data_table::DataTable;
use crate::ui::error_notice::error_list;
use crate::ui::timestamp::Timestamp;
use warden_types::session::SignedInBrowser;

/// Handed down as a prop, not provided as a context: a context provided here reaches the sections
/// beside it too (Leptos' components share their parent's owner), and the executors' section asks for
/// the same type, so its form would close and refresh this section instead of its own.
type BrowsersUi = SectionUi<()>;

#[component]
pub fn SignedInBrowsers() -> impl IntoView {
    let ui = BrowsersUi::new();
    let browsers = Resource::new(move || ui.changed.get(), |_| list_signed_in_browsers());
    let confirm_all = RwSignal::new(false);
    let sign_out_others = move |_| {
        ui.run("others".into(), "other browsers".into(), "Could not sign out", async move {
            sign_out_browsers(false).await.map(drop)
        })
    };
    let sign_out_everywhere = move |_| {
        confirm_all.set(false);
        sign_out_then_reload(ui, sign_out_browsers(true));
    };

    view! {
        <section class="signed-in-browsers" aria-labelledby="browsers-title">
            <h2 id="browsers-title">"Signed-in browsers"</h2>
            <p class="mcp-intro">
                "Each browser that opened the sign-in link holds a session cookie. Browsers send it to every \
                 port of this host, so a page served by another program on this machine may receive it: sign \
                 out the browsers you do not use, and sign out everywhere if you think a cookie leaked."
            </p>
            {move || ui.error.get().map(|message| view! { <p class="error" role="alert">{message}</p> })}
            <Transition fallback=|| view! { <p class="loading">"Loading signed-in browsers…"</p> }>
                <ErrorBoundary fallback=error_list>
                    {move || Suspend::new(async move { browsers.await.map(|list| view! { <BrowserTable list ui/> }) })}
                </ErrorBoundary>
            </Transition>
            <div class="outside-actions">
                <button type="button" disabled=move || ui.is_busy("others") on:click=sign_out_others>
                    "Sign out other browsers"
                </button>
                <button type="button" class="danger" on:click=move |_| confirm_all.set(true)>
                    "Sign out everywhere"
                </button>
            </div>
            <Show when=move || confirm_all.get()>
                <div class="mcp-confirm" role="group" aria-label="Confirm signing out everywhere">
                    <p>"Sign out every browser, this one too? You will need the sign-in link again."</p>
                    <button type="button" class="danger" on:click=sign_out_everywhere>
                        "Yes, sign out everywhere"
                    </button>
                    <button type="button" on:click=move |_| confirm_all.set(false)>"Cancel"</button>
                </div>
            </Show>
        </section>
    }
    // Type-erased: nested into the settings page as one type, it is too deep for the compiler.
    .into_any()
}

const COLUMNS: [&str; 5] = ["Browser", "Where", "Signed in", "Last seen", "Actions"];

#[component]
fn BrowserTable(list: Vec<SignedInBrowser>, ui: BrowsersUi) -> impl IntoView {
    if list.is_empty() {
        return view! { <p class="empty">"No browser is signed in (you are using the access token)."</p> }.into_any();
    }
    view! {
        <DataTable class="outside-clients" caption="Signed-in browsers" hidden_caption=true columns=&COLUMNS>
            {list.into_iter().map(|browser| view! { <BrowserRow browser ui/> }).collect_view()}
        </DataTable>
    }
    .into_any()
}

#[component]
fn BrowserRow(browser: SignedInBrowser, ui: BrowsersUi) -> impl IntoView {
    let label =
        browser.user_agent.clone().filter(|ua| !ua.trim().is_empty()).unwrap_or_else(|| "Unknown browser".into());
    let id = StoredValue::new(browser.id.clone());
    let name = StoredValue::new(label.clone());
    let this_browser = browser.this_browser;
    let sign_out = move |_| {
        let id = id.get_value();
        if this_browser {
            sign_out_then_reload(ui, sign_out_browser(id));
        } else {
            ui.run(id.clone(), name.get_value(), "Could not sign out", async move { sign_out_browser(id).await });
        }
    };
    view! {
        <tr class="signed-in-browser">
            <th scope="row">
                {label}
                {this_browser.then(|| view! { " " <strong class="this-browser">"(this browser)"</strong> })}
            </th>
            <td>{browser.address.unwrap_or_else(|| "unknown".into())}</td>
            <td><Timestamp at=browser.created_at/></td>
            <td><Timestamp at=browser.last_seen_at/></td>
            <td class="outside-actions">
                <button type="button" class="danger" disabled=move || ui.is_busy(&id.read_value())
                    aria-label=format!("Sign out {}", name.get_value())
                    on:click=sign_out>
                    "Sign out"
                </button>
            </td>
        </tr>
    }
}

/// Signs this browser out (alone or with the rest), then loads the page again: the sign-in page.
fn sign_out_then_reload<T, F>(ui: BrowsersUi, action: F)
where
    F: std::future::Future<Output = Result<T, AppError>> + 'static,
{
    ui.error.set(None);
    spawn_local(async move {
        match action.await {
            Ok(_) => reload(),
            Err(error) => {
                ui.error.try_set(Some(format!("Could not sign out: {error}")));
            }
        }
    });
}

fn reload() {
    #[cfg(feature = "hydrate")]
    if let Some(window) = web_sys::window() {
        let _ = window.location().reload();
    }
}
