//! Server functions for who is asking and, for owners, Settings' "People": thin calls into the people
//! (taken from context). An invitation's link is answered once, as a path the page puts after its own
//! origin; only its hash is kept.

use leptos::prelude::*;
use leptos::server_fn::codec::Json;
use serde::{Deserialize, Serialize};

use crate::error::AppError;
use warden_types::id::{InvitationId, PersonId};
use warden_types::person::{Invitation, PasskeyInfo, Person, Role, WaitingPerson};

/// The people handed to the Leptos routes as context by the server binary.
#[cfg(feature = "ssr")]
fn people() -> Result<warden_people::People, AppError> {
    use_context::<warden_people::People>()
        .ok_or_else(|| AppError::internal("the people were not provided as Leptos context"))
}

#[cfg(feature = "ssr")]
fn asker_id() -> Result<PersonId, AppError> {
    crate::server_fns::asker::asker().map(|a| a.person.id)
}

/// An invitation just made, with the path of its link (`/invite/<secret>`), shown this once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InvitationMade {
    pub invitation: Invitation,
    pub path: String,
}

/// The person asking.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn who_am_i() -> Result<Person, AppError> {
    Ok(crate::server_fns::asker::asker()?.person)
}

/// Everyone, in the order they joined.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn list_people() -> Result<Vec<Person>, AppError> {
    Ok(people()?.list().await?)
}

/// The invitations that can still be used, newest first.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn list_invitations() -> Result<Vec<Invitation>, AppError> {
    Ok(people()?.pending_invitations().await?)
}

/// A new invitation to `role`, lasting `valid_days` days.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn invite_person(role: Role, name: Option<String>, valid_days: u64) -> Result<InvitationMade, AppError> {
    let mut new = warden_people::NewInvitation::new(role);
    new.name = name;
    new.valid_for = std::time::Duration::from_secs(valid_days.saturating_mul(24 * 3600));
    let (invitation, secret) = people()?.invite(&asker_id()?, new).await?;
    Ok(InvitationMade { invitation, path: warden_people::invitation_path(&secret) })
}

#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn withdraw_invitation(id: InvitationId) -> Result<(), AppError> {
    Ok(people()?.withdraw_invitation(&asker_id()?, &id).await?)
}

#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn set_person_role(id: PersonId, role: Role) -> Result<Person, AppError> {
    Ok(people()?.set_role(&asker_id()?, &id, role).await?)
}

/// Disables the account and signs out its browsers at once.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn disable_person(id: PersonId) -> Result<Person, AppError> {
    let sessions = use_context::<warden_sessions::Sessions>()
        .ok_or_else(|| AppError::internal("the signed-in browsers were not provided as Leptos context"))?;
    Ok(people()?.disable_and_sign_out(&asker_id()?, &id, &sessions).await?)
}

#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn enable_person(id: PersonId) -> Result<Person, AppError> {
    Ok(people()?.enable(&asker_id()?, &id).await?)
}

/// Sets the asker's own password (`current` is needed once they have one).
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn set_own_password(current: Option<String>, new: String) -> Result<(), AppError> {
    Ok(people()?.set_password(&asker_id()?, current.as_deref(), &new).await?)
}

/// The asker's own passkeys (Settings → Your account; its script adds them through `/api/me/passkeys`).
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn list_own_passkeys() -> Result<Vec<PasskeyInfo>, AppError> {
    Ok(people()?.passkeys_of(&asker_id()?).await?)
}

/// Removes one of the asker's own passkeys (not their last way to sign in).
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn remove_own_passkey(id: String) -> Result<(), AppError> {
    Ok(people()?.remove_passkey(&asker_id()?, &id).await?)
}

/// Those the identity provider signed in with no role Warden knows, waiting for an owner.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn list_waiting() -> Result<Vec<WaitingPerson>, AppError> {
    Ok(people()?.waiting().await?)
}

/// Lets a waiting person in with `role`.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn admit_waiting(id: String, role: Role) -> Result<Person, AppError> {
    Ok(people()?.admit_waiting(&asker_id()?, &id, role).await?)
}

/// Turns a waiting person away.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn dismiss_waiting(id: String) -> Result<(), AppError> {
    Ok(people()?.dismiss_waiting(&asker_id()?, &id).await?)
}
