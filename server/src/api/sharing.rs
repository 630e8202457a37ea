//! `/api/threads/{id}/sharing`: who besides its owner may read a thread (private, everyone, or named
//! people). Only the thread's owner reads or changes it; sharing is for reading, never writing.

use axum::extract::{Path, State};
use axum::Json;
use std::collections::HashSet;
use warden_engine::Engine;
use warden_people::People;
use warden_types::id::ThreadId;
use warden_types::thread::Sharing;

use super::error::ApiResult;
use super::json_body::JsonBody;
use super::reader::Asking;

pub async fn get(
    State(engine): State<Engine>,
    Asking(reader): Asking,
    Path(id): Path<ThreadId>,
) -> ApiResult<Json<Sharing>> {
    Ok(Json(engine.as_reader(&reader).sharing(&id).await?))
}

/// Replaces who may read the thread; answers it as stored (the owner left out of a list, an empty list
/// private).
pub async fn put(
    State(engine): State<Engine>,
    State(people): State<People>,
    Asking(reader): Asking,
    Path(id): Path<ThreadId>,
    JsonBody(sharing): JsonBody<Sharing>,
) -> ApiResult<Json<Sharing>> {
    let known: HashSet<_> = people.list().await?.into_iter().map(|p| p.id).collect();
    Ok(Json(engine.as_reader(&reader).set_sharing(&id, sharing, |p| known.contains(p)).await?))
}
