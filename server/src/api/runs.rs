//! `/api/runs`: a run's event stream (replayed from the start or from Last-Event-ID), its
//! summary, and Stop.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use warden_engine::Engine;
use warden_types::id::{RunId, ToolCallId};
use warden_types::run::{RunSummary, ToolCallRecord};

use super::error::ApiResult;
use super::sse::{last_event_id, to_sse, EventStream};

pub async fn events(State(engine): State<Engine>, Path(id): Path<RunId>, headers: HeaderMap) -> ApiResult<EventStream> {
    let after = last_event_id(&headers)?;
    let events = engine.subscribe(&id, after).await?;
    Ok(to_sse(events, engine.shutdown_token()))
}

pub async fn get(State(engine): State<Engine>, Path(id): Path<RunId>) -> ApiResult<Json<RunSummary>> {
    Ok(Json(engine.run(&id).await?))
}

pub async fn stop(State(engine): State<Engine>, Path(id): Path<RunId>) -> ApiResult<StatusCode> {
    engine.stop_run(&id).await?;
    Ok(StatusCode::ACCEPTED)
}

pub async fn tool_call(State(engine): State<Engine>, Path(id): Path<ToolCallId>) -> ApiResult<Json<ToolCallRecord>> {
    Ok(Json(engine.tool_call(&id).await?))
}
