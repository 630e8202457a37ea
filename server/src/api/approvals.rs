//! `/api/approvals`: the inbox of approvals and the decision endpoint. A decision applies only to
//! the approval it names, only while it is pending (409 after), and only from the same origin.

use axum::extract::{Path, Query, State};
use axum::Json;
use serde::Deserialize;
use warden_engine::Engine;
use warden_types::approval::{Approval, ApprovalStatus, DecisionInput};
use warden_types::id::ApprovalId;

use super::error::{ApiError, ApiResult};
use super::json_body::JsonBody;
use super::reader::Asking;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListParams {
    status: Option<String>,
}

pub async fn list(State(engine): State<Engine>, Query(p): Query<ListParams>) -> ApiResult<Json<Vec<Approval>>> {
    let status = match p.status.as_deref() {
        None | Some("") | Some("all") => None,
        Some(s) => Some(ApprovalStatus::parse(s).ok_or_else(|| {
            ApiError::unprocessable("status must be one of pending, approved, denied, timed_out, cancelled")
        })?),
    };
    Ok(Json(engine.list_approvals(status).await?))
}

pub async fn get(
    State(engine): State<Engine>,
    Asking(reader): Asking,
    Path(id): Path<ApprovalId>,
) -> ApiResult<Json<Approval>> {
    Ok(Json(engine.as_reader(&reader).approval(&id).await?))
}

pub async fn decide(
    State(engine): State<Engine>,
    Path(id): Path<ApprovalId>,
    JsonBody(input): JsonBody<DecisionInput>,
) -> ApiResult<Json<Approval>> {
    Ok(Json(engine.decide(&id, input).await?))
}
