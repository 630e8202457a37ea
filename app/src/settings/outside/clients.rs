//! Settings' "Outside clients": register an executor or agent (its token is shown once, with a
//! copy button, and never again: only its hash is stored), the registered clients with Revoke
//! (confirmed inline) and their policy overrides, and the global auto-approve policy.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::server_fns::outside::{create_outside_client, list_outside_clients, outside_policy};
use crate::settings::outside::client_row::OutsideClientRow;
use crate::settings::outside::policy::GlobalPolicyForm;
use crate::settings::outside::state::{OutsideClientsChanged, OutsideUi};
use crate::settings::outside::token_reveal::TokenReveal;
use crate::ui::data_table::DataTable;
use crate::ui::error_notice::error_list;
use warden_outside::{Client, NewClient};

/// `manages`: an owner's view (every client, the policies); anyone else's lists their own clients only.
#[component]
pub fn OutsideClients(manages: bool) -> impl IntoView {
    let ui = OutsideUi::new(manages);
    provide_context(ui);
    let elsewhere = use_context::<OutsideClientsChanged>();
    let clients = Resource::new(
        move || (ui.changed.get(), elsewhere.map(OutsideClientsChanged::get)),
        |_| list_outside_clients(),
    );
    let policy = Resource::new(
        || (),
        move |_| async move {
            if manages {
                outside_policy().await.map(Some)
            } else {
                Ok(None)
            }
        },
    );
    // The token of the client just registered: in this signal only, gone with a reload.
    let revealed = RwSignal::new(None::<NewClient>);

    view! {
        <section class="outside" aria-labelledby="outside-title">
            <h2 id="outside-title">{if manages { "Outside clients" } else { "Your outside clients" }}</h2>
            <p class="mcp-intro">
                "Executors and agents outside Warden that ask before they run code or pass its output on \
                 (over the approvals WebSocket or HTTP, with their own token). A client's requests are asked \
                 by the person who registered it."
            </p>
            {move || ui.error.get().map(|message| view! { <p class="error" role="alert">{message}</p> })}
            <p role="status" class="notice">{move || ui.notice.get()}</p>
            <RegisterForm revealed/>
            {move || revealed.get().map(|created| view! { <TokenReveal created on_done=move || revealed.set(None)/> })}
            <Transition fallback=|| view! { <p class="loading">"Loading clients…"</p> }>
                <ErrorBoundary fallback=error_list>
                    {move || Suspend::new(async move { clients.await.map(|list| view! { <ClientTable list/> }) })}
                </ErrorBoundary>
            </Transition>
            <Transition fallback=|| view! { <p class="loading">"Loading the policy…"</p> }>
                <ErrorBoundary fallback=error_list>
                    {move || Suspend::new(async move { policy.await.map(|policy| policy.map(|policy| view! { <GlobalPolicyForm policy/> })) })}
                </ErrorBoundary>
            </Transition>
        </section>
    }
    // Type-erased: nested into the settings page as one type, it is too deep for the compiler.
    .into_any()
}

#[component]
fn RegisterForm(revealed: RwSignal<Option<NewClient>>) -> impl IntoView {
    let ui = expect_context::<OutsideUi>();
    let name = RwSignal::new(String::new());
    let register = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let chosen = name.get_untracked();
        ui.error.set(None);
        ui.notice.set(None);
        ui.busy.set(true);
        spawn_local(async move {
            match create_outside_client(chosen).await {
                Ok(created) => {
                    name.set(String::new());
                    revealed.set(Some(created));
                }
                Err(error) => ui.failed(format!("Could not register the client: {error}")),
            }
            ui.busy.set(false);
            ui.refresh();
        });
    };
    view! {
        <form class="outside-register" on:submit=register>
            <label>
                "Client name"
                <input type="text" dir="auto" maxlength="64" required placeholder="code runner"
                    prop:value=move || name.get() on:input=move |ev| name.set(event_target_value(&ev))/>
            </label>
            <button type="submit" disabled=move || ui.busy.get() || name.with(|n| n.trim().is_empty())>
                "Register client"
            </button>
        </form>
    }
}

const COLUMNS: [&str; 5] = ["Name", "Registered", "State", "Policy", "Actions"];

#[component]
fn ClientTable(list: Vec<Client>) -> impl IntoView {
    if list.is_empty() {
        return view! { <p class="empty">"No outside clients yet."</p> }.into_any();
    }
    view! {
        <DataTable class="outside-clients" caption="Registered clients" columns=&COLUMNS>
            {list.into_iter().map(|client| view! { <OutsideClientRow client/> }).collect_view()}
        </DataTable>
    }
    .into_any()
}
