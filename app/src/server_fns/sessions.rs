//! Server functions for Settings' "Signed-in browsers": thin calls into the sessions (taken from
//! context) that list the asking person's browsers and sign them out, one by one or all at once. The browser asking is the
//! session the access gate let it in by (a request extension); a caller with the bearer token has none.

use leptos::prelude::*;
use leptos::server_fn::codec::Json;

use crate::error::AppError;
use warden_types::session::SignedInBrowser;

/// The sessions handed to the Leptos routes as context by the server binary.
#[cfg(feature = "ssr")]
fn sessions() -> Result<warden_sessions::Sessions, AppError> {
    use_context::<warden_sessions::Sessions>()
        .ok_or_else(|| AppError::internal("the signed-in browsers were not provided as Leptos context"))
}

/// The session of the browser asking, if it came with one.
#[cfg(feature = "ssr")]
fn asking() -> Option<warden_sessions::SignedIn> {
    use_context::<http::request::Parts>()?.extensions.get::<warden_sessions::SignedIn>().cloned()
}

/// The id of the person asking (the access gate found them; their browsers are the ones listed).
#[cfg(feature = "ssr")]
fn person() -> Result<warden_types::id::PersonId, AppError> {
    crate::server_fns::asker::asker().map(|a| a.person.id)
}

#[cfg(feature = "ssr")]
impl From<warden_sessions::Error> for AppError {
    fn from(error: warden_sessions::Error) -> Self {
        AppError::of_kind(error.kind(), &error)
    }
}

/// The signed-in browsers, most recently seen first, this one marked.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn list_signed_in_browsers() -> Result<Vec<SignedInBrowser>, AppError> {
    Ok(sessions()?.list(&person()?, asking().as_ref()).await?)
}

/// Signs one browser out at once (this one too, if it is named).
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn sign_out_browser(id: String) -> Result<(), AppError> {
    Ok(sessions()?.revoke(&person()?, &id).await?)
}

/// Signs out every browser but this one (`including_this`: this one too); how many were signed out.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn sign_out_browsers(including_this: bool) -> Result<u64, AppError> {
    let keep = if including_this { None } else { asking().map(|a| a.session_id) };
    Ok(sessions()?.revoke_all_but(&person()?, keep.as_deref()).await?)
}
