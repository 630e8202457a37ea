//! The person asking, as the engine reads threads for them: an extractor for the handlers that touch
//! threads, runs, calls, approvals and rules (`Engine::as_reader`).

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::StatusCode;
use warden_people::Asker;
use warden_types::person::Reader;

use super::error::ApiError;

/// The reader the access gate found (a route that needs a person has one; without it, 401).
pub struct Asking(pub Reader);

impl<S: Send + Sync> FromRequestParts<S> for Asking {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        match parts.extensions.get::<Asker>() {
            Some(asker) => Ok(Asking(asker.reader())),
            None => Err(ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", "sign in first")),
        }
    }
}
