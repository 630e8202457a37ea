//! Joining by an invitation with a passkey: `POST /invite/<secret>/passkey/options` checks the login and
//! name typed on the invitation page and starts a registration for the person about to be made (their id
//! is the passkey's user handle); `POST /invite/<secret>/passkey` answers it, and the invitation is used,
//! the person made and the passkey kept in one transaction. A mistake leaves the link usable.

use std::net::IpAddr;

use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use warden_people::{passkeys, Error as PeopleError, NewPasskey};
use warden_types::id::PersonId;
use webauthn_rs::prelude::RegisterPublicKeyCredential;

use super::ceremonies::Ceremony;
use super::{ceremony_over, refused, relying_party};
use crate::access::middleware::{start_session_for_script, store_failed};
use crate::access::Access;

/// What the first passkey is called in Settings (its person may add others and remove it).
const FIRST_PASSKEY_NAME: &str = "Passkey made when joining";

#[derive(Deserialize)]
pub struct Typed {
    #[serde(default)]
    login: String,
    #[serde(default)]
    name: String,
}

#[derive(Deserialize)]
pub struct Answer {
    ceremony: String,
    credential: RegisterPublicKeyCredential,
}

/// The options for the browser's `navigator.credentials.create`, or what to fix on the page.
pub async fn options(
    access: &Access,
    headers: &HeaderMap,
    peer: Option<IpAddr>,
    secret: &str,
    typed: Typed,
) -> Response {
    let Some(people) = access.people() else { return gone() };
    if !access.attempts().allow_address(peer) {
        return refused(StatusCode::TOO_MANY_REQUESTS, "too_many_attempts", "too many attempts: wait a minute");
    }
    let (_, login, name) = match people.check_joining(secret, &typed.login, &typed.name).await {
        Ok(checked) => checked,
        Err(error) => return typed_refusal(error),
    };
    let rp = match relying_party::for_request(headers) {
        Ok(rp) => rp,
        Err(refusal) => return *refusal,
    };
    let person = PersonId::new();
    let handle = match passkeys::user_handle(&person) {
        Ok(handle) => handle,
        Err(error) => return store_failed(&error),
    };
    let (challenge, state) = match rp.start_passkey_registration(handle, &login, &name, None) {
        Ok(started) => started,
        Err(error) => return store_failed(&error),
    };
    let challenge = super::account::ask_for_a_discoverable_passkey(challenge);
    let ceremony = Ceremony::Join { secret: secret.to_string(), person, login, name, state };
    let Some(ceremony) = access.passkey_ceremonies().begin(ceremony) else {
        return refused(StatusCode::SERVICE_UNAVAILABLE, "busy", "too many passkey requests at once: try again soon");
    };
    Json(serde_json::json!({ "ceremony": ceremony, "options": challenge })).into_response()
}

/// The browser's answer: the account made and this browser signed in, or why not.
pub async fn finish(
    access: &Access,
    headers: &HeaderMap,
    peer: Option<IpAddr>,
    secret: &str,
    answer: Answer,
) -> Response {
    let Some(people) = access.people() else { return gone() };
    let Some(Ceremony::Join { secret: started_with, person, login, name, state }) =
        access.passkey_ceremonies().finish(&answer.ceremony)
    else {
        return ceremony_over();
    };
    if started_with != secret {
        return ceremony_over();
    }
    let rp = match relying_party::for_request(headers) {
        Ok(rp) => rp,
        Err(refusal) => return *refusal,
    };
    let passkey = match rp.finish_passkey_registration(&answer.credential, &state) {
        Ok(passkey) => passkey,
        Err(error) => {
            tracing::warn!(?peer, %error, "a passkey registration on an invitation was refused");
            return refused(StatusCode::BAD_REQUEST, "passkey_not_accepted", "the browser's passkey was not accepted");
        }
    };
    let new = NewPasskey { name: FIRST_PASSKEY_NAME.to_string(), passkey };
    match people.accept_invitation_with_passkey(secret, &person, &login, &name, new).await {
        Ok(person) => {
            tracing::info!(person = %person.id, role = %person.role.as_str(), "an invitation was accepted with a passkey");
            start_session_for_script(access, headers, peer, &person.id).await
        }
        Err(error) => typed_refusal(error),
    }
}

/// A refusal the invitation page shows beside its form.
fn typed_refusal(error: PeopleError) -> Response {
    match error {
        PeopleError::InvitationNotValid => gone(),
        error @ (PeopleError::BadName(_) | PeopleError::LoginTaken(_) | PeopleError::PasskeyTaken) => {
            let status = error.kind().status();
            refused(status, error.code(), error.to_string())
        }
        error => store_failed(&error),
    }
}

fn gone() -> Response {
    refused(StatusCode::GONE, "invitation_not_valid", "this invitation link was used, withdrawn or has expired")
}
