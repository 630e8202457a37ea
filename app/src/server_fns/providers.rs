//! Server functions for model providers: Settings' list, add/change/remove and connection tests, and
//! the model a thread uses. Thin calls into the engine; keys never come back (entries carry them
//! masked, and a masked key sent back means "keep the stored one" under the engine's rule).

use leptos::prelude::*;
use leptos::server_fn::codec::Json;
use warden_types::id::{ProviderId, ThreadId};

use crate::error::AppError;
use warden_types::provider::{ModelChoice, ProviderEntry, ProviderInput, ProviderList, ProviderProbe};

/// Every provider (keys masked) and the default choice.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn list_providers() -> Result<ProviderList, AppError> {
    Ok(super::engine()?.providers())
}

/// Adds a provider, or changes the stored one `provider.id` names.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn save_provider(provider: ProviderInput) -> Result<ProviderEntry, AppError> {
    Ok(super::engine()?.save_provider(provider).await?)
}

#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn remove_provider(id: ProviderId) -> Result<(), AppError> {
    Ok(super::engine()?.remove_provider(&id).await?)
}

/// Tries a provider as entered in the form, without saving it.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn test_provider(provider: ProviderInput) -> Result<ProviderProbe, AppError> {
    Ok(super::engine()?.test_provider(provider).await?)
}

/// Tries a configured provider as it is.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn test_provider_entry(id: ProviderId) -> Result<ProviderProbe, AppError> {
    Ok(super::engine()?.test_provider_entry(&id).await?)
}

/// Chooses the model of a thread's next runs (`None`: the default).
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn set_thread_model(thread_id: ThreadId, model: Option<ModelChoice>) -> Result<(), AppError> {
    Ok(super::engine()?.as_reader(&super::asker::reader()?).set_thread_model(&thread_id, model).await?)
}
