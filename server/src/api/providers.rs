//! `/api/providers`: the model providers (keys masked), adding, changing, removing and testing them,
//! and `/api/threads/{id}/model`, the model a thread uses.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;
use warden_engine::Engine;
use warden_types::id::{ProviderId, ThreadId};
use warden_types::provider::{ModelChoice, ProviderEntry, ProviderInput, ProviderList, ProviderProbe};

use super::error::ApiResult;
use super::json_body::JsonBody;
use super::reader::Asking;

pub async fn list(State(engine): State<Engine>) -> Json<ProviderList> {
    Json(engine.providers())
}

/// Adds a provider (`id` absent) or changes one; answers the entry with its key masked.
pub async fn save(
    State(engine): State<Engine>,
    JsonBody(input): JsonBody<ProviderInput>,
) -> ApiResult<(StatusCode, Json<ProviderEntry>)> {
    let status = if input.id.is_none() { StatusCode::CREATED } else { StatusCode::OK };
    Ok((status, Json(engine.save_provider(input).await?)))
}

pub async fn remove(State(engine): State<Engine>, Path(id): Path<ProviderId>) -> ApiResult<StatusCode> {
    engine.remove_provider(&id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Tries a provider as entered, without saving it.
pub async fn test(
    State(engine): State<Engine>,
    JsonBody(input): JsonBody<ProviderInput>,
) -> ApiResult<Json<ProviderProbe>> {
    Ok(Json(engine.test_provider(input).await?))
}

/// Tries a configured provider as it is.
pub async fn test_entry(State(engine): State<Engine>, Path(id): Path<ProviderId>) -> ApiResult<Json<ProviderProbe>> {
    Ok(Json(engine.test_provider_entry(&id).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadModel {
    /// `null` goes back to the default.
    model: Option<ModelChoice>,
}

pub async fn set_thread_model(
    State(engine): State<Engine>,
    Asking(reader): Asking,
    Path(id): Path<ThreadId>,
    JsonBody(body): JsonBody<ThreadModel>,
) -> ApiResult<StatusCode> {
    engine.as_reader(&reader).set_thread_model(&id, body.model).await?;
    Ok(StatusCode::NO_CONTENT)
}
