//! `GET /sign-in/oidc/callback`: the provider's answer. The flow the browser's cookie names is taken (once),
//! `state` must be its own, the code is exchanged with the flow's PKCE verifier and the client secret, and
//! the ID token must be signed by one of the provider's published keys, for this client, from this issuer,
//! unexpired, with the flow's nonce. Then the person it names is signed in, waits for a role, or is told
//! their account is disabled.

use std::net::IpAddr;

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use openidconnect::{AuthorizationCode, OAuth2TokenResponse, TokenResponse};
use serde::Deserialize;
use subtle::ConstantTimeEq;
use warden_people::{ProviderIdentity, ProviderSignIn};

use super::config::role_of;
use super::start::flow_cookie_name;
use super::{Provider, ProviderClient, START_PATH};
use crate::access::middleware::{new_session_cookie, store_failed};
use crate::access::sign_in_page::{self, escape, page, Reason};
use crate::access::Access;

#[derive(Deserialize, Default)]
pub struct Answer {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
}

/// Why a callback signs nobody in (the log says more).
#[derive(Debug, thiserror::Error)]
enum Refusal {
    #[error("no sign-in of this browser is under way (expired, used, or started elsewhere)")]
    NoFlow,
    #[error("the provider said no: {0}")]
    Provider(String),
    #[error("the answer's state is not this sign-in's")]
    State,
    #[error("the code could not be exchanged: {0}")]
    Exchange(String),
    #[error("the provider sent no ID token")]
    NoIdToken,
    #[error("the ID token was refused: {0}")]
    IdToken(String),
}

pub async fn finish(access: &Access, headers: &HeaderMap, peer: Option<IpAddr>, query: Option<&str>) -> Response {
    let Some(provider) = access.oidc() else { return sign_in_page::response(access, Reason::NotSignedIn) };
    let Some(people) = access.people() else { return sign_in_page::response(access, Reason::NotSignedIn) };
    if !access.attempts().allow_address(peer) {
        return sign_in_page::response(access, Reason::TooManyAttempts);
    }
    let answer: Answer = serde_urlencoded_query(query);
    let flow_id = cookie(headers, &flow_cookie_name(access.hosts().port()));
    let identity = match identify(provider, flow_id.as_deref(), answer).await {
        Ok(identity) => identity,
        Err(refusal) => {
            tracing::warn!(?peer, %refusal, "a sign-in with the identity provider was refused");
            return with_flow_cookie_cleared(refused_page(&refusal), access);
        }
    };
    let outcome = match people.provider_sign_in(&identity).await {
        Ok(outcome) => outcome,
        Err(error) => return store_failed(&error),
    };
    let response = match outcome {
        ProviderSignIn::Person(person) => {
            let cookie = match new_session_cookie(access, headers, peer, &person.id).await {
                Ok(cookie) => cookie,
                Err(refused) => return refused,
            };
            let mut response = signed_in_page();
            response.headers_mut().insert(cookie.0, cookie.1);
            response
        }
        ProviderSignIn::Waiting => waiting_page(&identity),
        ProviderSignIn::Disabled => sign_in_page::response(access, Reason::AccountDisabled),
    };
    with_flow_cookie_cleared(response, access)
}

/// Who the provider's answer says signed in, or why it signs nobody in.
async fn identify(provider: &Provider, flow_id: Option<&str>, answer: Answer) -> Result<ProviderIdentity, Refusal> {
    let flow = flow_id.and_then(|id| provider.0.flows.finish(id)).ok_or(Refusal::NoFlow)?;
    if let Some(error) = answer.error {
        return Err(Refusal::Provider(error));
    }
    let state = answer.state.unwrap_or_default();
    if !bool::from(state.as_bytes().ct_eq(flow.state.secret().as_bytes())) {
        return Err(Refusal::State);
    }
    let code = answer.code.ok_or_else(|| Refusal::Exchange("no code".into()))?;
    let config = provider.config();
    let client = ProviderClient::from_provider_metadata(
        flow.metadata,
        config.client_id.clone(),
        Some(config.client_secret.clone()),
    )
    .set_redirect_uri(flow.redirect);
    let tokens = client
        .exchange_code(AuthorizationCode::new(code))
        .map_err(|e| Refusal::Exchange(e.to_string()))?
        .set_pkce_verifier(flow.verifier)
        .request_async(&provider.0.http)
        .await
        .map_err(|e| Refusal::Exchange(e.to_string()))?;
    let id_token = tokens.id_token().ok_or(Refusal::NoIdToken)?;
    let verifier = client.id_token_verifier();
    let claims = id_token.claims(&verifier, &flow.nonce).map_err(|e| Refusal::IdToken(e.to_string()))?;
    if let Some(expected) = claims.access_token_hash() {
        let signing = id_token.signing_alg().map_err(|e| Refusal::IdToken(e.to_string()))?;
        let key = id_token.signing_key(&verifier).map_err(|e| Refusal::IdToken(e.to_string()))?;
        let actual = openidconnect::AccessTokenHash::from_token(tokens.access_token(), signing, key)
            .map_err(|e| Refusal::IdToken(e.to_string()))?;
        if actual != *expected {
            return Err(Refusal::IdToken("the access token's hash does not match".into()));
        }
    }
    let subject = claims.subject().to_string();
    let email = claims.email().map(|e| e.to_string());
    let username = claims.preferred_username().map(|u| u.to_string());
    let name = claims.name().and_then(|n| n.get(None)).map(|n| n.to_string());
    let role =
        config.role_claim.as_ref().and_then(|claim| claims.additional_claims().claims.get(claim)).and_then(role_of);
    Ok(ProviderIdentity {
        issuer: claims.issuer().to_string(),
        name: name.or_else(|| username.clone()).or_else(|| email.clone()).unwrap_or_else(|| subject.clone()),
        username: username.or_else(|| email.clone()).unwrap_or_else(|| subject.clone()),
        subject,
        email,
        role,
    })
}

fn serde_urlencoded_query(query: Option<&str>) -> Answer {
    let mut answer = Answer::default();
    for (key, value) in form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
        match key.as_ref() {
            "code" => answer.code = Some(value.into_owned()),
            "state" => answer.state = Some(value.into_owned()),
            "error" => answer.error = Some(value.into_owned()),
            _ => {}
        }
    }
    answer
}

/// The value of the cookie `name` in the request, if any.
fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(n, _)| *n == name)
        .map(|(_, value)| value.trim_matches('"').to_string())
}

fn with_flow_cookie_cleared(mut response: Response, access: &Access) -> Response {
    let clear =
        format!("{}=; Path={START_PATH}; HttpOnly; SameSite=Lax; Max-Age=0", flow_cookie_name(access.hosts().port()));
    if let Ok(value) = HeaderValue::from_str(&clear) {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
    response
}

/// Signed in: a page that opens the app. Not a redirect: the browser arrived from the provider's site,
/// and the session cookie (`SameSite=Strict`) is sent only on a navigation this site starts.
fn signed_in_page() -> Response {
    let mut response = page(
        StatusCode::OK,
        "Signed in",
        r#"<h1>Signed in</h1>
<p>Opening Warden… If nothing happens, <a href="/">open Warden</a>.</p>"#,
    );
    if let Ok(refresh) = HeaderValue::from_str("0; url=/") {
        response.headers_mut().insert(header::REFRESH, refresh);
    }
    response
}

fn waiting_page(who: &ProviderIdentity) -> Response {
    let body = format!(
        r#"<h1>Waiting for an owner</h1>
<p role="status">You signed in as <strong>{}</strong>, but nobody has given you a role in this Warden yet.</p>
<p>An owner of this Warden lets you in from Settings → People. Then sign in again.</p>
<p><a href="/sign-in">Back to the sign-in page</a></p>"#,
        escape(&who.name)
    );
    page(StatusCode::FORBIDDEN, "Waiting for an owner", &body)
}

fn refused_page(refusal: &Refusal) -> Response {
    let lead = match refusal {
        Refusal::NoFlow => "This sign-in expired or was started in another browser.",
        Refusal::Provider(_) => "The identity provider did not sign you in.",
        _ => "The identity provider's answer could not be trusted, so nobody was signed in.",
    };
    let body = format!(
        r#"<h1>Not signed in</h1>
<p role="alert">{lead}</p>
<p><a href="/sign-in">Try again</a></p>"#
    );
    page(StatusCode::UNAUTHORIZED, "Not signed in", &body)
}
