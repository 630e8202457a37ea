//! Passkeys (WebAuthn): signing in on `/sign-in` without typing anything (a discoverable credential names its
//! person), joining by an invitation with a passkey instead of a password, and adding or removing one's own
//! in Settings. The browser's half is `public/passkeys.js`, a static script served from this origin (the
//! pages' CSP allows `script-src 'self'` and nothing inline). webauthn-rs checks the challenge, the origin,
//! the relying party's id, user verification, the signature and the counter (a counter that does not grow
//! is refused as a possible clone); a disabled account's passkeys sign nobody in.

mod account;
mod ceremonies;
mod join;
mod relying_party;
mod sign_in;

pub use account::{add, add_options, list, remove};
pub use ceremonies::Ceremonies;
pub(super) use join::{finish as join_finish, options as join_options};
pub(super) use sign_in::{finish as sign_in_finish, options as sign_in_options};

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::api::ApiError;

/// A refusal as the page's script reads it: `{"error": {"code", "message"}}` with `status`.
fn refused(status: StatusCode, code: &'static str, message: impl Into<String>) -> Response {
    ApiError::new(status, code, message).into_response()
}

/// A ceremony id unknown, used, expired or of another kind.
fn ceremony_over() -> Response {
    refused(StatusCode::BAD_REQUEST, "ceremony_over", "this passkey request expired or was used: try again")
}
