//! The person a server function runs for: the access gate found them and put them in the request.

use crate::error::AppError;

/// The person asking. Every request that reaches a server function has one (the gate refuses others), so
/// its absence is a server fault, not the caller's.
pub fn asker() -> Result<warden_people::Asker, AppError> {
    leptos::prelude::use_context::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<warden_people::Asker>().cloned())
        .ok_or_else(|| AppError::internal("no person was found for this request"))
}

/// The person asking, as the engine reads threads for them (`Engine::as_reader`).
pub fn reader() -> Result<warden_types::person::Reader, AppError> {
    Ok(asker()?.reader())
}
