//! `/api/approvals`: the inbox of approvals and the decision endpoint. A decision applies only to
//! the approval it names, only while it is pending (409 after), only from the same origin, and only from
//! a person it is routed to (403 otherwise: not theirs, their own request, a role that decides nothing).
//! The list shows a person what is routed to them; owners see everything, marked when it is not theirs.

use axum::extract::{Path, Query, State};
use axum::{Extension, Json};
use serde::{Deserialize, Serialize};
use warden_engine::Engine;
use warden_people::Asker;
use warden_policies::{may_decide, route_of, shown_to, Tally};
use warden_types::approval::{Approval, ApprovalStatus, DecisionInput};
use warden_types::id::ApprovalId;
use warden_types::person::ActingPerson;

use super::error::{ApiError, ApiResult};
use super::json_body::JsonBody;
use super::reader::Asking;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListParams {
    status: Option<String>,
}

/// An approval as a person's inbox lists it.
#[derive(Serialize)]
pub struct Listed {
    #[serde(flatten)]
    approval: Approval,
    /// Whether the person asking may decide it (an owner also sees what is routed to others).
    routed_to_you: bool,
    /// What the rule requires and how far it got: "1 of 2 approvals".
    progress: String,
}

/// Whether `approval` is in `person`'s inbox, and how it is listed there.
pub fn listed(approval: Approval, person: &ActingPerson) -> Option<Listed> {
    let route = route_of(&approval);
    if !shown_to(&route, person) {
        return None;
    }
    let routed_to_you = may_decide(&route, person).is_ok();
    let progress = Tally::of(route.quorum, &approval.votes).describe();
    Some(Listed { approval, routed_to_you, progress })
}

pub async fn list(
    State(engine): State<Engine>,
    Extension(asker): Extension<Asker>,
    Query(p): Query<ListParams>,
) -> ApiResult<Json<Vec<Listed>>> {
    let status = match p.status.as_deref() {
        None | Some("") | Some("all") => None,
        Some(s) => Some(ApprovalStatus::parse(s).ok_or_else(|| {
            ApiError::unprocessable("status must be one of pending, approved, denied, timed_out, cancelled")
        })?),
    };
    let person = asker.acting();
    let approvals = engine.list_approvals(status).await?;
    Ok(Json(approvals.into_iter().filter_map(|a| listed(a, &person)).collect()))
}

pub async fn get(
    State(engine): State<Engine>,
    Asking(reader): Asking,
    Path(id): Path<ApprovalId>,
) -> ApiResult<Json<Approval>> {
    Ok(Json(engine.as_reader(&reader).approval(&id).await?))
}

/// A person's decision, or their vote toward a quorum (the approval stays pending until it is met).
pub async fn decide(
    State(engine): State<Engine>,
    Extension(asker): Extension<Asker>,
    Path(id): Path<ApprovalId>,
    JsonBody(input): JsonBody<DecisionInput>,
) -> ApiResult<Json<Approval>> {
    Ok(Json(engine.decide(&id, input, &asker.acting()).await?))
}
