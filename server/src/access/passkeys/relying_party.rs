//! The relying party a passkey belongs to: the host name the browser used (which the gate has checked is
//! one of this server's), and the origin of this request's scheme and host. WebAuthn binds a passkey to
//! that name, so one made on `localhost` signs in on `localhost`, not on `127.0.0.1`; an IP address is no
//! relying party at all (browsers refuse it), so passkeys need a host name.

use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use webauthn_rs::prelude::{Url, Webauthn, WebauthnBuilder};

use super::refused;
use crate::access::middleware::served_over_https;
use crate::api::ApiError;

/// What browsers show as the site's name.
const RP_NAME: &str = "Warden";

/// The relying party of this request, or why passkeys do not work on it (boxed: a response is large).
pub fn for_request(headers: &HeaderMap) -> Result<Webauthn, Box<Response>> {
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or_default();
    let scheme = if served_over_https(headers) { "https" } else { "http" };
    let origin = Url::parse(&format!("{scheme}://{host}")).map_err(|_| Box::new(not_a_domain()))?;
    let Some(domain) = origin.domain().map(str::to_string) else { return Err(Box::new(not_a_domain())) };
    WebauthnBuilder::new(&domain, &origin)
        .and_then(|builder| builder.rp_name(RP_NAME).build())
        .map_err(|error| Box::new(ApiError::internal(&error).into_response()))
}

fn not_a_domain() -> Response {
    refused(
        StatusCode::BAD_REQUEST,
        "passkeys_need_a_host_name",
        "passkeys work on a host name (such as localhost), not on an IP address: open Warden by its name",
    )
}
