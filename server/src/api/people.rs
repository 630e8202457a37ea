//! People: who is asking (`/api/me`), and for owners the people, their roles and invitations. Who may call
//! each route is in `api::routes`; the store keeps its own rules whoever asks (only an enabled owner changes
//! people, the last owner stays, a link works once).

use std::time::Duration;
use warden_types::id::{InvitationId, PersonId};

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::{Extension, Json};
use serde::{Deserialize, Serialize};
use warden_people::{Asker, NewInvitation, People};
use warden_sessions::Sessions;
use warden_types::person::{Invitation, Person, Role, WaitingPerson};

use super::error::ApiError;
use super::json_body::JsonBody;
use crate::access::invitation_link;

/// The person asking.
pub async fn me(Extension(asker): Extension<Asker>) -> Json<Person> {
    Json(asker.person)
}

pub async fn list(State(people): State<People>) -> Result<Json<Vec<Person>>, ApiError> {
    Ok(Json(people.list().await?))
}

pub async fn invitations(State(people): State<People>) -> Result<Json<Vec<Invitation>>, ApiError> {
    Ok(Json(people.pending_invitations().await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InviteBody {
    role: Role,
    #[serde(default)]
    name: Option<String>,
    /// How long the link works, in minutes (a week when not given).
    #[serde(default)]
    valid_minutes: Option<u64>,
}

/// A new invitation and its link: the only time the link is shown.
#[derive(Serialize)]
pub struct Invited {
    invitation: Invitation,
    link: String,
}

pub async fn invite(
    State(people): State<People>,
    Extension(asker): Extension<Asker>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<InviteBody>,
) -> Result<(StatusCode, Json<Invited>), ApiError> {
    let mut new = NewInvitation::new(body.role);
    new.name = body.name;
    if let Some(minutes) = body.valid_minutes {
        new.valid_for = Duration::from_secs(minutes.saturating_mul(60));
    }
    let (invitation, secret) = people.invite(asker.id(), new).await?;
    let link = invitation_link(&headers, secret.expose());
    Ok((StatusCode::CREATED, Json(Invited { invitation, link })))
}

pub async fn withdraw_invitation(
    State(people): State<People>,
    Extension(asker): Extension<Asker>,
    Path(id): Path<InvitationId>,
) -> Result<StatusCode, ApiError> {
    people.withdraw_invitation(asker.id(), &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoleBody {
    role: Role,
}

pub async fn set_role(
    State(people): State<People>,
    Extension(asker): Extension<Asker>,
    Path(id): Path<PersonId>,
    JsonBody(body): JsonBody<RoleBody>,
) -> Result<Json<Person>, ApiError> {
    Ok(Json(people.set_role(asker.id(), &id, body.role).await?))
}

pub async fn disable(
    State(people): State<People>,
    State(sessions): State<Sessions>,
    Extension(asker): Extension<Asker>,
    Path(id): Path<PersonId>,
) -> Result<Json<Person>, ApiError> {
    Ok(Json(people.disable_and_sign_out(asker.id(), &id, &sessions).await?))
}

pub async fn enable(
    State(people): State<People>,
    Extension(asker): Extension<Asker>,
    Path(id): Path<PersonId>,
) -> Result<Json<Person>, ApiError> {
    Ok(Json(people.enable(asker.id(), &id).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PasswordBody {
    #[serde(default)]
    current: Option<String>,
    new: String,
}

/// Sets the asker's own password (the current one is needed once there is one).
pub async fn set_password(
    State(people): State<People>,
    Extension(asker): Extension<Asker>,
    JsonBody(body): JsonBody<PasswordBody>,
) -> Result<StatusCode, ApiError> {
    people.set_password(asker.id(), body.current.as_deref(), &body.new).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Those the identity provider signed in with no role Warden knows, waiting for an owner.
pub async fn waiting(State(people): State<People>) -> Result<Json<Vec<WaitingPerson>>, ApiError> {
    Ok(Json(people.waiting().await?))
}

/// Lets a waiting person in with a role: they are a person from now on, and their next sign-in gets in.
pub async fn admit_waiting(
    State(people): State<People>,
    Extension(asker): Extension<Asker>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<RoleBody>,
) -> Result<Json<Person>, ApiError> {
    Ok(Json(people.admit_waiting(asker.id(), &id, body.role).await?))
}

/// Turns a waiting person away (a later sign-in of theirs waits again).
pub async fn dismiss_waiting(
    State(people): State<People>,
    Extension(asker): Extension<Asker>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    people.dismiss_waiting(asker.id(), &id).await?;
    Ok(StatusCode::NO_CONTENT)
}
