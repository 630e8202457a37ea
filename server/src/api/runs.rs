//! `/api/runs`: a run's event stream (replayed from the start or from Last-Event-ID), its
//! summary, and Stop: for a person who may read the run's thread (Stop: its owner, or an owner by role).

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use warden_engine::Engine;
use warden_types::id::{RunId, ToolCallId};
use warden_types::run::{RunSummary, ToolCallRecord};

use super::error::ApiResult;
use super::reader::Asking;
use super::sse::{last_event_id, to_sse, EventStream};

pub async fn events(
    State(engine): State<Engine>,
    Asking(reader): Asking,
    Path(id): Path<RunId>,
    headers: HeaderMap,
) -> ApiResult<EventStream> {
    let after = last_event_id(&headers)?;
    let events = engine.as_reader(&reader).subscribe(&id, after).await?;
    Ok(to_sse(events, engine.shutdown_token()))
}

pub async fn get(
    State(engine): State<Engine>,
    Asking(reader): Asking,
    Path(id): Path<RunId>,
) -> ApiResult<Json<RunSummary>> {
    Ok(Json(engine.as_reader(&reader).run(&id).await?))
}

pub async fn stop(
    State(engine): State<Engine>,
    Asking(reader): Asking,
    Path(id): Path<RunId>,
) -> ApiResult<StatusCode> {
    engine.as_reader(&reader).stop_run(&id).await?;
    Ok(StatusCode::ACCEPTED)
}

pub async fn tool_call(
    State(engine): State<Engine>,
    Asking(reader): Asking,
    Path(id): Path<ToolCallId>,
) -> ApiResult<Json<ToolCallRecord>> {
    Ok(Json(engine.as_reader(&reader).tool_call(&id).await?))
}
