//! `/sign-in` with a passkey: `POST /sign-in/passkey/options` starts a discoverable sign-in (no login typed:
//! the authenticator offers the passkeys it holds for this host), `POST /sign-in/passkey` answers it. The
//! answer's user handle names the person; their stored passkey verifies it. Limited per address (both
//! steps) and per login (the answer) with the password sign-in's limiter; every refusal says the same.

use std::net::IpAddr;

use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use webauthn_rs::prelude::{DiscoverableKey, PublicKeyCredential};

use super::ceremonies::Ceremony;
use super::{ceremony_over, refused, relying_party};
use crate::access::middleware::{start_session_for_script, store_failed};
use crate::access::Access;

#[derive(Deserialize)]
pub struct Answer {
    ceremony: String,
    credential: PublicKeyCredential,
}

/// The challenge for the browser's `navigator.credentials.get`, and the ceremony's id.
pub async fn options(access: &Access, headers: &HeaderMap, peer: Option<IpAddr>) -> Response {
    if !access.attempts().allow_address(peer) {
        return too_many(peer);
    }
    let rp = match relying_party::for_request(headers) {
        Ok(rp) => rp,
        Err(refusal) => return *refusal,
    };
    let (mut challenge, state) = match rp.start_discoverable_authentication() {
        Ok(started) => started,
        Err(error) => return store_failed(&error),
    };
    // A button press asks at once (a modal prompt), not only when a login field is focused.
    challenge.mediation = None;
    let Some(ceremony) = access.passkey_ceremonies().begin(Ceremony::SignIn(state)) else {
        return refused(StatusCode::SERVICE_UNAVAILABLE, "busy", "too many passkey sign-ins at once: try again soon");
    };
    Json(serde_json::json!({ "ceremony": ceremony, "options": challenge })).into_response()
}

/// The browser's answer: signed in (the session cookie and where to go), or refused.
pub async fn finish(access: &Access, headers: &HeaderMap, peer: Option<IpAddr>, answer: Answer) -> Response {
    let Some(people) = access.people() else { return not_accepted() };
    let Some(Ceremony::SignIn(state)) = access.passkey_ceremonies().finish(&answer.ceremony) else {
        return ceremony_over();
    };
    let rp = match relying_party::for_request(headers) {
        Ok(rp) => rp,
        Err(refusal) => return *refusal,
    };
    let Ok((handle, credential_id)) = rp.identify_discoverable_authentication(&answer.credential) else {
        return not_accepted();
    };
    let found = match people.passkey_for_sign_in(handle, credential_id).await {
        Ok(found) => found,
        Err(error) => return store_failed(&error),
    };
    let Some((person, passkey)) = found else {
        tracing::info!(?peer, "a passkey sign-in with an unknown passkey or a disabled account");
        return not_accepted();
    };
    if !access.attempts().allow(peer, &person.login) {
        return too_many(peer);
    }
    let verified = rp.finish_discoverable_authentication(&answer.credential, state, &[DiscoverableKey::from(&passkey)]);
    let result = match verified {
        Ok(result) => result,
        Err(error) => {
            tracing::warn!(?peer, person = %person.id, %error, "a passkey sign-in was refused");
            return not_accepted();
        }
    };
    if let Err(error) = people.record_passkey_use(passkey, &result).await {
        return store_failed(&error);
    }
    start_session_for_script(access, headers, peer, &person.id).await
}

fn not_accepted() -> Response {
    refused(StatusCode::UNAUTHORIZED, "passkey_not_accepted", "that passkey does not sign anyone in here")
}

fn too_many(peer: Option<IpAddr>) -> Response {
    tracing::warn!(?peer, "too many passkey sign-in attempts");
    refused(
        StatusCode::TOO_MANY_REQUESTS,
        "too_many_attempts",
        "too many sign-in attempts: wait a minute, then try again",
    )
}
