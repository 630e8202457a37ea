//! Settings → People's "Waiting for a role": people the identity provider signed in whose role it did not
//! say. They have no access until an owner picks a role and lets them in, or turns them away.

use leptos::prelude::*;

use crate::server_fns::people::{admit_waiting, dismiss_waiting, list_waiting};
use crate::settings::people::PeopleUi;
use crate::ui::data_table::DataTable;
use crate::ui::error_notice::error_list;
use crate::ui::timestamp::Timestamp;
use warden_types::person::{Role, WaitingPerson};

const COLUMNS: [&str; 4] = ["Name", "Login", "First seen", "Actions"];

#[component]
pub fn WaitingPart(ui: PeopleUi) -> impl IntoView {
    let waiting = Resource::new(move || ui.changed.get(), |_| list_waiting());
    view! {
        <h3>"Waiting for a role"</h3>
        <Transition fallback=|| view! { <p class="loading">"Loading who is waiting…"</p> }>
            <ErrorBoundary fallback=error_list>
                {move || Suspend::new(async move { waiting.await.map(|list| view! { <WaitingTable list ui/> }) })}
            </ErrorBoundary>
        </Transition>
    }
}

#[component]
fn WaitingTable(list: Vec<WaitingPerson>, ui: PeopleUi) -> impl IntoView {
    if list.is_empty() {
        return view! { <p class="empty">"Nobody is waiting (people the identity provider signs in without a role wait here)."</p> }
            .into_any();
    }
    view! {
        <p class="mcp-intro">"They signed in with the identity provider, which gave no role. They have no access until you let them in."</p>
        <DataTable class="outside-clients" caption="Waiting for a role" hidden_caption=true columns=&COLUMNS>
            {list.into_iter().map(|person| view! { <WaitingRow person ui/> }).collect_view()}
        </DataTable>
    }
    .into_any()
}

#[component]
fn WaitingRow(person: WaitingPerson, ui: PeopleUi) -> impl IntoView {
    let id = StoredValue::new(person.id.clone());
    let name = StoredValue::new(person.name.clone());
    let role = RwSignal::new(Role::Member);
    let admit = move |_| {
        let (id, role) = (id.get_value(), role.get_untracked());
        ui.run(
            id.clone(),
            name.get_value(),
            "Could not let in",
            async move { admit_waiting(id, role).await.map(drop) },
        );
    };
    let choose = move |ev: leptos::ev::Event| {
        if let Ok(chosen) = event_target_value(&ev).parse::<Role>() {
            role.set(chosen);
        }
    };
    let dismiss = move |_| {
        let id = id.get_value();
        ui.run(id.clone(), name.get_value(), "Could not turn away", async move { dismiss_waiting(id).await });
    };
    view! {
        <tr class="waiting-person">
            <th scope="row">{person.name.clone()}</th>
            <td>{person.login.clone()}</td>
            <td><Timestamp at=person.first_seen_at/></td>
            <td class="outside-actions">
                <select aria-label=format!("Role for {}", person.name) on:change=choose>
                    {Role::ALL.into_iter().map(|r| view! {
                        <option value=r.as_str() selected={r == Role::Member}>{r.label()}</option>
                    }).collect_view()}
                </select>
                " "
                <button type="button" disabled=move || ui.is_busy(id.read_value().as_str())
                    aria-label=format!("Let {} in", person.name) on:click=admit>"Let in"</button>
                " "
                <button type="button" class="danger" disabled=move || ui.is_busy(id.read_value().as_str())
                    aria-label=format!("Turn {} away", person.name) on:click=dismiss>"Turn away"</button>
            </td>
        </tr>
    }
}
