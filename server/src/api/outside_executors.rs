//! `/api/outside/executors`: the executors Warden dials (it connects out to their WebSocket and
//! takes their requests there), for the person: add one (URL, optional bearer token, enabled), see
//! each connection's state, switch it off and on, remove it. The bearer token is never sent back.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::{Extension, Json};
use serde::Deserialize;
use warden_outside::{Dialer, Executor, NewExecutor};
use warden_people::Asker;
use warden_types::id::ExecutorId;

use super::error::ApiResult;
use super::json_body::JsonBody;

/// `GET /api/outside/executors`: every executor with its connection's state, oldest first.
pub async fn list(State(dialer): State<Dialer>) -> ApiResult<Json<Vec<Executor>>> {
    Ok(Json(dialer.list().await?))
}

/// `POST /api/outside/executors` `{name, url, bearer_token?, enabled?, policy?}`: 201 with the executor.
/// The executor's requests are asked by the owner who adds it.
pub async fn add(
    State(dialer): State<Dialer>,
    Extension(asker): Extension<Asker>,
    JsonBody(new): JsonBody<NewExecutor>,
) -> ApiResult<(StatusCode, Json<Executor>)> {
    Ok((StatusCode::CREATED, Json(dialer.add(new, &super::outside::manager(&asker)).await?)))
}

pub async fn get(State(dialer): State<Dialer>, Path(id): Path<ExecutorId>) -> ApiResult<Json<Executor>> {
    Ok(Json(dialer.get(&id).await?))
}

/// `DELETE /api/outside/executors/{id}`: 204; stops dialling and revokes the executor's client.
pub async fn remove(State(dialer): State<Dialer>, Path(id): Path<ExecutorId>) -> ApiResult<StatusCode> {
    dialer.remove(&id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Enabled {
    enabled: bool,
}

/// `PUT /api/outside/executors/{id}/enabled` `{"enabled": false}`: off closes the socket; on dials.
pub async fn set_enabled(
    State(dialer): State<Dialer>,
    Path(id): Path<ExecutorId>,
    JsonBody(body): JsonBody<Enabled>,
) -> ApiResult<Json<Executor>> {
    Ok(Json(dialer.set_enabled(&id, body.enabled).await?))
}
