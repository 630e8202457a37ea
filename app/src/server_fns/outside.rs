//! Server functions for Settings' "Outside clients": thin calls into the `OutsideHub` (taken from
//! context) that registers and revokes clients and keeps the auto-approve policy. A new client's
//! token comes back once, in `create_outside_client`'s answer, and is never readable again.

use leptos::prelude::*;
use leptos::server_fn::codec::Json;
use warden_types::id::ClientId;

use crate::error::AppError;
use warden_outside::{Client, ClientPolicy, NewClient, Policy};

/// The hub handed to the Leptos routes as context by the server binary.
#[cfg(feature = "ssr")]
pub(crate) fn hub() -> Result<warden_outside::OutsideHub, AppError> {
    use_context::<warden_outside::OutsideHub>()
        .ok_or_else(|| AppError::internal("the outside-approvals hub was not provided as Leptos context"))
}

/// The asker as a manager of outside clients.
#[cfg(feature = "ssr")]
pub(super) fn manager() -> Result<warden_outside::Manager, AppError> {
    let asker = crate::server_fns::asker::asker()?;
    Ok(warden_outside::Manager { role: asker.role(), person: asker.person.id })
}

/// The clients the asker manages (every one for an owner, their own for anyone else), revoked ones
/// too, oldest first.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn list_outside_clients() -> Result<Vec<Client>, AppError> {
    Ok(hub()?.clients_managed_by(&manager()?).await?)
}

/// Registers a client of the asker's with no policy of its own; the answer holds its token, shown this once.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn create_outside_client(name: String) -> Result<NewClient, AppError> {
    Ok(hub()?.create_client_of(&manager()?, &name, ClientPolicy::default()).await?)
}

/// Revokes the client's token for good and closes its connections (an owner any, anyone else their own).
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn revoke_outside_client(id: ClientId) -> Result<Client, AppError> {
    Ok(hub()?.revoke_client_as(&manager()?, &id).await?)
}

#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn set_outside_client_policy(id: ClientId, policy: ClientPolicy) -> Result<Client, AppError> {
    Ok(hub()?.set_client_policy(&id, policy).await?)
}

#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn outside_policy() -> Result<Policy, AppError> {
    Ok(hub()?.policy())
}

#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn set_outside_policy(policy: Policy) -> Result<Policy, AppError> {
    let hub = hub()?;
    hub.set_policy(policy).await?;
    Ok(hub.policy())
}
