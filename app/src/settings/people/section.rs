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

const PEOPLE_COLUMNS: [&str; 6] = ["Name", "Login", "Role", "Signs in with", "Since", "Account"];

/// How a person signs in, in words: "Password, 2 passkeys, identity provider". Only the founding owner can
/// have none of these: they sign in with the link the server prints.
pub fn sign_in_ways(person: &Person) -> String {
    let mut ways = Vec::new();
    if person.has_password {
        ways.push("Password".to_string());
    }
    match person.passkeys {
        0 => {}
        1 => ways.push("1 passkey".into()),
        n => ways.push(format!("{n} passkeys")),
    }
    if person.has_oidc {
        ways.push("identity provider".into());
    }
    if ways.is_empty() {
        return "Only the printed sign-in link".into();
    }
    let mut text = ways.join(", ");
    if let Some(first) = text.get(..1) {
        text = first.to_uppercase() + &text[1..];
    }
    text
}

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
            <td class="sign-in-ways">{sign_in_ways(&person)}</td>
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

#[cfg(test)]
mod tests {
    use super::*;

    fn person(has_password: bool, passkeys: u32, has_oidc: bool) -> Person {
        Person {
            id: PersonId::from("p"),
            login: "p".into(),
            name: "P".into(),
            role: Role::Member,
            has_password,
            passkeys,
            has_oidc,
            created_at: "2026-01-01T00:00:00Z".into(),
            disabled_at: None,
        }
    }

    #[test]
    fn the_people_table_says_how_each_person_signs_in() {
        assert_eq!(sign_in_ways(&person(true, 0, false)), "Password");
        assert_eq!(sign_in_ways(&person(false, 1, false)), "1 passkey");
        assert_eq!(sign_in_ways(&person(true, 2, true)), "Password, 2 passkeys, identity provider");
        assert_eq!(sign_in_ways(&person(false, 0, true)), "Identity provider");
        assert_eq!(sign_in_ways(&person(false, 0, false)), "Only the printed sign-in link");
    }
}
