//! Server functions of Settings' "Approval policies" (owners): thin calls into the engine's policies.
//! A policy that names a person names one of this Warden's people.

use leptos::prelude::*;
use leptos::server_fn::codec::Json;
use warden_types::id::PolicyId;
use warden_types::policy::{Policy, PolicyInput};

use crate::error::AppError;

/// Every policy, in the order they are tried.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn list_policies() -> Result<Vec<Policy>, AppError> {
    Ok(super::engine()?.policies().list().to_vec())
}

/// Adds a policy (tried last) or, with `id`, replaces one in place.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn save_policy(id: Option<PolicyId>, input: PolicyInput) -> Result<Policy, AppError> {
    use warden_types::policy::RequesterMatch;
    let people = use_context::<warden_people::People>()
        .ok_or_else(|| AppError::internal("the people were not provided as Leptos context"))?;
    let requester = match &input.matches.requester {
        Some(RequesterMatch::Person { id }) => Some(id),
        _ => None,
    };
    for person in input.approvers.people.iter().chain(requester) {
        if people.person(person).await.is_err() {
            return Err(AppError::Invalid(format!("There is no person {person}.")).answer());
        }
    }
    let policies = super::engine()?.policies().clone();
    let saved = match id {
        Some(id) => policies.update(&id, input).await,
        None => policies.create(input).await,
    };
    Ok(saved.map_err(warden_engine::Error::from)?)
}

#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn delete_policy(id: PolicyId) -> Result<(), AppError> {
    Ok(super::engine()?.policies().delete(&id).await.map_err(warden_engine::Error::from)?)
}

/// Tries the policies in the order of `ids` from now on (each named once).
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn reorder_policies(ids: Vec<PolicyId>) -> Result<(), AppError> {
    super::engine()?.policies().reorder(&ids).await.map_err(warden_engine::Error::from)?;
    Ok(())
}
