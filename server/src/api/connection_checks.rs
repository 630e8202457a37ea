//! `/api/connection_checks/{id}`: a run waiting because an MCP server it needs is offline or
//! disabled, and the person's answer (Connect / Continue anyway). An answer applies only to the
//! check it names and only while it is pending (409 after).

use axum::extract::{Path, State};
use axum::Json;
use warden_engine::Engine;
use warden_types::connection::{CheckDecisionInput, ConnectionCheck};
use warden_types::id::ConnectionCheckId;

use super::error::ApiResult;
use super::json_body::JsonBody;
use super::reader::Asking;

pub async fn get(
    State(engine): State<Engine>,
    Asking(reader): Asking,
    Path(id): Path<ConnectionCheckId>,
) -> ApiResult<Json<ConnectionCheck>> {
    Ok(Json(engine.as_reader(&reader).connection_check(&id).await?))
}

pub async fn decide(
    State(engine): State<Engine>,
    Path(id): Path<ConnectionCheckId>,
    JsonBody(input): JsonBody<CheckDecisionInput>,
) -> ApiResult<Json<ConnectionCheck>> {
    Ok(Json(engine.decide_connection_check(&id, input.decision).await?))
}
