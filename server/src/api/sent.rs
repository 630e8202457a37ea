//! `GET /api/approvals/{id}/notifications` and `GET /api/outside/requests/{id}/notifications`: what was sent
//! about a request away from the app, to whom, by which channel, and what became of it (delivered with the
//! channel's answer, failed, opened). For those who may read the request; others get 404 as for the request.

use axum::extract::{Path, State};
use axum::{Extension, Json};
use warden_engine::Engine;
use warden_outside::OutsideHub;
use warden_people::Asker;
use warden_reach::Reach;
use warden_types::id::{ApprovalId, OutsideRequestId};
use warden_types::notification::{NotificationRecord, RequestRef};

use super::error::ApiResult;
use super::reader::Asking;

pub async fn of_approval(
    State(engine): State<Engine>,
    State(reach): State<Reach>,
    Asking(reader): Asking,
    Path(id): Path<ApprovalId>,
) -> ApiResult<Json<Vec<NotificationRecord>>> {
    engine.as_reader(&reader).approval(&id).await?;
    log(&reach, RequestRef::Approval(id)).await
}

pub async fn of_outside(
    State(hub): State<OutsideHub>,
    State(reach): State<Reach>,
    Extension(asker): Extension<Asker>,
    Path(id): Path<OutsideRequestId>,
) -> ApiResult<Json<Vec<NotificationRecord>>> {
    hub.request_as(&id, &asker.acting()).await?;
    log(&reach, RequestRef::Outside(id)).await
}

async fn log(reach: &Reach, request: RequestRef) -> ApiResult<Json<Vec<NotificationRecord>>> {
    Ok(Json(reach.deliveries.for_request(&request).await?))
}
