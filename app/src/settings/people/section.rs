//! Settings' "People", for owners: everyone who uses this Warden with their role (changed in place) and
//! whether their account is enabled (disabling signs out their browsers at once), the invitations not
//! yet used (each can be withdrawn), and the form that makes a new one (`invite`).

use leptos::prelude::*;

use crate::server_fns::people::{
    disable_person, enable_person, list_invitations, list_people, set_person_role, withdraw_invitation,
};
use crate::settings::people::invite::InviteForm;
use crate::settings::people::waiting::WaitingPart;
use crate::settings::people::PeopleUi;
use crate::ui::data_table::DataTable;
use crate::ui::error_notice::error_list;
use crate::ui::timestamp::Timestamp;
use warden_types::id::PersonId;
use warden_types::person::{Invitation, Person, Role};

#[component]
pub fn PeopleSection(me: Person) -> impl IntoView {
    let ui = PeopleUi::new();
    let people = Resource::new(move || ui.changed.get(), |_| list_people());
    let invitations = Resource::new(move || ui.changed.get(), |_| list_invitations());
    let me = StoredValue::new(me.id);
    view! {
        <section class="people" aria-labelledby="people-title">
            <h2 id="people-title">"People"</h2>
            <p class="mcp-intro">
                "Owners manage people and settings; approvers decide what is routed to them; members chat, and \
                 their agents' requests go to the approvers; viewers read what is shared with them."
            </p>
            {move || ui.error.get().map(|message| view! { <p class="error" role="alert">{message}</p> })}
            <Transition fallback=|| view! { <p class="loading">"Loading people…"</p> }>
                <ErrorBoundary fallback=error_list>
                    {move || Suspend::new(async move {
                        people.await.map(|list| view! { <PeopleTable list ui me=me.get_value()/> })
                    })}
                </ErrorBoundary>
            </Transition>
            <WaitingPart ui/>
            <h3>"Invitations"</h3>
            <Transition fallback=|| view! { <p class="loading">"Loading invitations…"</p> }>
                <ErrorBoundary fallback=error_list>
                    {move || Suspend::new(async move {
                        invitations.await.map(|list| view! { <InvitationTable list ui/> })
                    })}
                </ErrorBoundary>
            </Transition>
            <InviteForm ui/>
        </section>
    }
    .into_any()
}

const PEOPLE_COLUMNS: [&str; 5] = ["Name", "Login", "Role", "Since", "Account"];

#[component]
fn PeopleTable(list: Vec<Person>, ui: PeopleUi, me: PersonId) -> impl IntoView {
    view! {
        <DataTable class="outside-clients people-table" caption="People" hidden_caption=true columns=&PEOPLE_COLUMNS>
            {list.into_iter().map(|person| {
                let is_me = person.id == me;
                view! { <PersonRow person ui is_me/> }
            }).collect_view()}
        </DataTable>
    }
}

#[component]
fn PersonRow(person: Person, ui: PeopleUi, is_me: bool) -> impl IntoView {
    let id = StoredValue::new(person.id.clone());
    let name = StoredValue::new(person.name.clone());
    let disabled = person.disabled_at.is_some();
    let current = person.role;
    let change_role = move |ev: leptos::ev::Event| {
        let Ok(role) = event_target_value(&ev).parse::<Role>() else { return };
        if role == current {
            return;
        }
        let id = id.get_value();
        ui.run(id.to_string(), name.get_value(), "Could not change the role of", async move {
            set_person_role(id, role).await.map(drop)
        });
    };
    let toggle =
        move |_| {
            let id = id.get_value();
            if disabled {
                ui.run(id.to_string(), name.get_value(), "Could not enable", async move {
                    enable_person(id).await.map(drop)
                });
            } else {
                ui.run(id.to_string(), name.get_value(), "Could not disable", async move {
                    disable_person(id).await.map(drop)
                });
            }
        };
    view! {
        <tr class="person" class:disabled=disabled>
            <th scope="row">
                {person.name.clone()}
                {is_me.then(|| view! { " " <strong class="this-browser">"(you)"</strong> })}
            </th>
            <td>{person.login.clone()}</td>
            <td>
                <select aria-label=format!("Role of {}", person.name) on:change=change_role
                    disabled=move || ui.is_busy(id.read_value().as_str())>
                    {Role::ALL.into_iter().map(|role| view! {
                        <option value=role.as_str() selected={role == current}>{role.label()}</option>
                    }).collect_view()}
                </select>
            </td>
            <td><Timestamp at=person.created_at.clone()/></td>
            <td class="outside-actions">
                {disabled.then(|| view! { <span class="status">"Disabled"</span> " " })}
                <button type="button" class:danger=!disabled disabled=move || ui.is_busy(id.read_value().as_str())
                    aria-label=format!("{} {}", if disabled { "Enable" } else { "Disable" }, person.name)
                    on:click=toggle>
                    {if disabled { "Enable" } else { "Disable" }}
                </button>
            </td>
        </tr>
    }
}

const INVITATION_COLUMNS: [&str; 4] = ["For", "Role", "Expires", "Actions"];

#[component]
fn InvitationTable(list: Vec<Invitation>, ui: PeopleUi) -> impl IntoView {
    if list.is_empty() {
        return view! { <p class="empty">"No invitation is waiting."</p> }.into_any();
    }
    view! {
        <DataTable class="outside-clients" caption="Invitations" hidden_caption=true columns=&INVITATION_COLUMNS>
            {list.into_iter().map(|invitation| view! { <InvitationRow invitation ui/> }).collect_view()}
        </DataTable>
    }
    .into_any()
}

#[component]
fn InvitationRow(invitation: Invitation, ui: PeopleUi) -> impl IntoView {
    let id = StoredValue::new(invitation.id.clone());
    let label = invitation.name.clone().unwrap_or_else(|| "Anyone with the link".into());
    let name = StoredValue::new(label.clone());
    let withdraw = move |_| {
        let id = id.get_value();
        ui.run(id.to_string(), name.get_value(), "Could not withdraw the invitation for", async move {
            withdraw_invitation(id).await
        });
    };
    view! {
        <tr class="invitation">
            <th scope="row">{label.clone()}</th>
            <td>{invitation.role.label()}</td>
            <td><Timestamp at=invitation.expires_at/></td>
            <td class="outside-actions">
                <button type="button" class="danger" disabled=move || ui.is_busy(id.read_value().as_str())
                    aria-label=format!("Withdraw the invitation for {label}") on:click=withdraw>
                    "Withdraw"
                </button>
            </td>
        </tr>
    }
}
