//! One's own passkeys, from Settings → Your account (its script calls these): list, add (`options` starts a
//! registration that leaves out the passkeys the person has, `add` answers it) and remove. Routes of the
//! API (`api::routes`, `Need::SignedIn`): every person manages their own and nobody else's.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::Deserialize;
use warden_people::{passkeys, Asker, NewPasskey, People};
use warden_types::person::PasskeyInfo;
use webauthn_rs::prelude::{CreationChallengeResponse, RegisterPublicKeyCredential};

use super::ceremonies::Ceremony;
use super::{ceremony_over, refused, relying_party};
use crate::access::Access;
use crate::api::ApiError;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewName {
    name: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Answer {
    ceremony: String,
    credential: RegisterPublicKeyCredential,
}

/// `GET /api/me/passkeys`: the asker's passkeys.
pub async fn list(
    State(people): State<People>,
    Extension(asker): Extension<Asker>,
) -> Result<Json<Vec<PasskeyInfo>>, ApiError> {
    Ok(Json(people.passkeys_of(asker.id()).await?))
}

/// `POST /api/me/passkeys/options`: a registration for the asker's browser, leaving out their passkeys.
pub async fn add_options(
    State(access): State<Access>,
    State(people): State<People>,
    Extension(asker): Extension<Asker>,
    headers: HeaderMap,
    Json(body): Json<NewName>,
) -> Response {
    let name = match warden_people::names::name(&body.name) {
        Ok(name) => name,
        Err(error) => return refused(StatusCode::UNPROCESSABLE_ENTITY, "invalid_request", error.to_string()),
    };
    let rp = match relying_party::for_request(&headers) {
        Ok(rp) => rp,
        Err(refusal) => return *refusal,
    };
    let (handle, existing) = match (passkeys::user_handle(asker.id()), people.passkey_ids_of(asker.id()).await) {
        (Ok(handle), Ok(existing)) => (handle, existing),
        (Err(error), _) | (_, Err(error)) => return ApiError::from(error).into_response(),
    };
    let person = &asker.person;
    let (challenge, state) = match rp.start_passkey_registration(handle, &person.login, &person.name, Some(existing)) {
        Ok(started) => started,
        Err(error) => return ApiError::internal(&error).into_response(),
    };
    let challenge = ask_for_a_discoverable_passkey(challenge);
    let Some(ceremony) = access.passkey_ceremonies().begin(Ceremony::Add { person: person.id.clone(), name, state })
    else {
        return refused(StatusCode::SERVICE_UNAVAILABLE, "busy", "too many passkey requests at once: try again soon");
    };
    Json(serde_json::json!({ "ceremony": ceremony, "options": challenge })).into_response()
}

/// `POST /api/me/passkeys`: the browser's answer; the passkey kept.
pub async fn add(
    State(access): State<Access>,
    State(people): State<People>,
    Extension(asker): Extension<Asker>,
    headers: HeaderMap,
    Json(answer): Json<Answer>,
) -> Response {
    let Some(Ceremony::Add { person, name, state }) = access.passkey_ceremonies().finish(&answer.ceremony) else {
        return ceremony_over();
    };
    if person != *asker.id() {
        return ceremony_over();
    }
    let rp = match relying_party::for_request(&headers) {
        Ok(rp) => rp,
        Err(refusal) => return *refusal,
    };
    let passkey = match rp.finish_passkey_registration(&answer.credential, &state) {
        Ok(passkey) => passkey,
        Err(error) => {
            tracing::warn!(person = %person, %error, "a passkey registration was refused");
            return refused(StatusCode::BAD_REQUEST, "passkey_not_accepted", "the browser's passkey was not accepted");
        }
    };
    match people.add_passkey(&person, NewPasskey { name, passkey }).await {
        Ok(added) => (StatusCode::CREATED, Json(added)).into_response(),
        Err(error) => ApiError::from(error).into_response(),
    }
}

/// `DELETE /api/me/passkeys/{id}`: one of the asker's passkeys removed (not their last way in).
pub async fn remove(
    State(people): State<People>,
    Extension(asker): Extension<Asker>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    people.remove_passkey(asker.id(), &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Passkeys sign in without a login typed first, so the authenticator must keep the credential
/// (a discoverable, "resident" one); webauthn-rs 0.5 only prefers it for security keys' sake. What the
/// browser is asked for is not part of what webauthn-rs verifies.
pub(super) fn ask_for_a_discoverable_passkey(challenge: CreationChallengeResponse) -> serde_json::Value {
    let mut options = serde_json::to_value(challenge).unwrap_or_default();
    if let Some(selection) = options.pointer_mut("/publicKey/authenticatorSelection").and_then(|s| s.as_object_mut()) {
        selection.insert("residentKey".into(), "required".into());
        selection.insert("requireResidentKey".into(), true.into());
    }
    options
}
