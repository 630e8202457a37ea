//! Server functions for Settings' "Executors": thin calls into the `Dialer` (taken from context)
//! that adds, lists, switches and removes the executors Warden dials. A bearer token goes in once,
//! with `add_outside_executor`, and never comes back (an executor says only `has_bearer_token`).

use leptos::prelude::*;
use leptos::server_fn::codec::Json;
use warden_types::id::ExecutorId;

use crate::error::AppError;
use warden_outside::Executor;

/// The dialer handed to the Leptos routes as context by the server binary.
#[cfg(feature = "ssr")]
fn dialer() -> Result<warden_outside::Dialer, AppError> {
    use_context::<warden_outside::Dialer>()
        .ok_or_else(|| AppError::internal("the executors' dialer was not provided as Leptos context"))
}

/// Every executor with its connection's state, oldest first.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn list_outside_executors() -> Result<Vec<Executor>, AppError> {
    Ok(dialer()?.list().await?)
}

/// Adds an executor (enabled, with the global policy) and dials it; an empty token means none.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn add_outside_executor(
    name: String,
    url: String,
    bearer_token: Option<String>,
) -> Result<Executor, AppError> {
    let bearer_token = bearer_token.filter(|t| !t.is_empty());
    let new = warden_outside::NewExecutor {
        name,
        url: url.trim().to_string(),
        bearer_token,
        enabled: true,
        policy: Default::default(),
    };
    // Its requests are asked by the owner who adds it.
    Ok(dialer()?.add(new, &super::outside::manager()?).await?)
}

/// Switches dialling on or off (off closes an open socket).
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn set_outside_executor_enabled(id: ExecutorId, enabled: bool) -> Result<Executor, AppError> {
    Ok(dialer()?.set_enabled(&id, enabled).await?)
}

/// Stops dialling the executor and revokes its client; its requests stay in the inbox and audit.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn remove_outside_executor(id: ExecutorId) -> Result<(), AppError> {
    Ok(dialer()?.remove(&id).await?)
}
