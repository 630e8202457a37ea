//! `GET /sign-in/oidc`: discovers the provider (its endpoints and keys, fresh for each sign-in), keeps the
//! flow's secrets and sends the browser to the provider's authorization endpoint.

use std::net::IpAddr;

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use openidconnect::core::{CoreAuthenticationFlow, CoreProviderMetadata};
use openidconnect::{CsrfToken, Nonce, PkceCodeChallenge, RedirectUrl, Scope};

use super::flows::{Flow, Flows};
use super::{ProviderClient, CALLBACK_PATH, START_PATH};
use crate::access::middleware::served_over_https;
use crate::access::sign_in_page::{self, Reason};
use crate::access::Access;

/// The cookie that carries a flow's id back from the provider, per port like the session's.
pub fn flow_cookie_name(port: u16) -> String {
    format!("warden_oidc_{port}")
}

pub async fn start(access: &Access, headers: &HeaderMap, peer: Option<IpAddr>) -> Response {
    let Some(provider) = access.oidc() else { return sign_in_page::response(access, Reason::NotSignedIn) };
    if !access.attempts().allow_address(peer) {
        tracing::warn!(?peer, "too many identity provider sign-ins");
        return sign_in_page::response(access, Reason::TooManyAttempts);
    }
    let config = provider.config();
    let metadata = match CoreProviderMetadata::discover_async(config.issuer.clone(), &provider.0.http).await {
        Ok(metadata) => metadata,
        Err(error) => {
            tracing::warn!(issuer = %config.issuer.as_str(), %error, "the identity provider's discovery failed");
            return sign_in_page::response(access, Reason::ProviderUnreachable);
        }
    };
    let Some(redirect) = redirect_url(headers) else { return sign_in_page::response(access, Reason::NotSignedIn) };
    let client = ProviderClient::from_provider_metadata(
        metadata.clone(),
        config.client_id.clone(),
        Some(config.client_secret.clone()),
    )
    .set_redirect_uri(redirect.clone());
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let (url, state, nonce) = client
        .authorize_url(CoreAuthenticationFlow::AuthorizationCode, CsrfToken::new_random, Nonce::new_random)
        .add_scope(Scope::new("profile".into()))
        .add_scope(Scope::new("email".into()))
        .set_pkce_challenge(challenge)
        .url();
    let flow = Flow { state, nonce, verifier, redirect, metadata };
    let Some(id) = provider.0.flows.begin(flow) else {
        return sign_in_page::response(access, Reason::TooManyAttempts);
    };
    let secure = if served_over_https(headers) { "; Secure" } else { "" };
    // Lax, not Strict: the browser comes back from the provider's site, and must bring it.
    let cookie = format!(
        "{}={id}; Path={START_PATH}; HttpOnly; SameSite=Lax; Max-Age={}{secure}",
        flow_cookie_name(access.hosts().port()),
        Flows::LIFETIME.as_secs()
    );
    let (Ok(location), Ok(cookie)) = (HeaderValue::from_str(url.as_str()), HeaderValue::from_str(&cookie)) else {
        return sign_in_page::response(access, Reason::NotSignedIn);
    };
    (
        StatusCode::SEE_OTHER,
        [
            (header::LOCATION, location),
            (header::SET_COOKIE, cookie),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
    )
        .into_response()
}

/// Where the provider sends the browser back: this host (the gate has checked it is ours), by the scheme
/// the browser came by. The provider must list it as a redirect URI of Warden's client.
pub fn redirect_url(headers: &HeaderMap) -> Option<RedirectUrl> {
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok())?;
    let scheme = if served_over_https(headers) { "https" } else { "http" };
    RedirectUrl::new(format!("{scheme}://{host}{CALLBACK_PATH}")).ok()
}
