//! Settings → Your account's passkeys: the asker's own, each removable, and a button that makes a new one on
//! this device. Making one is WebAuthn in the browser, which `/passkeys.js` (the page's script from this
//! server) does on the `data-passkey="add"` button, then reloads the page; listing and removing are server
//! functions.

use leptos::prelude::*;

use crate::server_fns::people::{list_own_passkeys, remove_own_passkey};
use crate::settings::people::PeopleUi;
use crate::ui::data_table::DataTable;
use crate::ui::error_notice::error_list;
use crate::ui::timestamp::Timestamp;
use warden_types::person::PasskeyInfo;

const COLUMNS: [&str; 4] = ["Name", "Added", "Last used", "Actions"];

#[component]
pub fn PasskeysPart() -> impl IntoView {
    let ui = PeopleUi::new();
    let passkeys = Resource::new(move || ui.changed.get(), |_| list_own_passkeys());
    view! {
        <section class="passkeys" data-passkey-area="" aria-labelledby="passkeys-title">
            <h3 id="passkeys-title">"Passkeys"</h3>
            <p class="mcp-intro">
                "A passkey signs you in on the sign-in page without a password: this device (or your phone) \
                 keeps it and asks for your fingerprint, face or PIN."
            </p>
            {move || ui.error.get().map(|message| view! { <p class="error" role="alert">{message}</p> })}
            <Transition fallback=|| view! { <p class="loading">"Loading passkeys…"</p> }>
                <ErrorBoundary fallback=error_list>
                    {move || Suspend::new(async move { passkeys.await.map(|list| view! { <PasskeyTable list ui/> }) })}
                </ErrorBoundary>
            </Transition>
            <p>
                <label>"Name of the new passkey " <input data-passkey-name="" value="This device"/></label>
                " "
                <button type="button" data-passkey="add">"Add a passkey"</button>
            </p>
            <p role="status" data-passkey-status=""></p>
        </section>
    }
}

#[component]
fn PasskeyTable(list: Vec<PasskeyInfo>, ui: PeopleUi) -> impl IntoView {
    if list.is_empty() {
        return view! { <p class="empty">"You have no passkey yet."</p> }.into_any();
    }
    view! {
        <DataTable class="outside-clients" caption="Your passkeys" hidden_caption=true columns=&COLUMNS>
            {list.into_iter().map(|passkey| view! { <PasskeyRow passkey ui/> }).collect_view()}
        </DataTable>
    }
    .into_any()
}

#[component]
fn PasskeyRow(passkey: PasskeyInfo, ui: PeopleUi) -> impl IntoView {
    let id = StoredValue::new(passkey.id.clone());
    let name = StoredValue::new(passkey.name.clone());
    let remove =
        move |_| {
            let id = id.get_value();
            ui.run(id.clone(), name.get_value(), "Could not remove the passkey", async move {
                remove_own_passkey(id).await
            });
        };
    view! {
        <tr class="passkey">
            <th scope="row">{passkey.name.clone()}</th>
            <td><Timestamp at=passkey.created_at/></td>
            <td>{match passkey.last_used_at {
                Some(at) => view! { <Timestamp at/> }.into_any(),
                None => view! { "never" }.into_any(),
            }}</td>
            <td class="outside-actions">
                <button type="button" class="danger" disabled=move || ui.is_busy(id.read_value().as_str())
                    aria-label=format!("Remove the passkey {}", passkey.name) on:click=remove>
                    "Remove"
                </button>
            </td>
        </tr>
    }
}
