//! `/api/policies`: the approval policies, for owners. A policy names people by id; each must be a person
//! of this Warden. Changing a policy routes new cards; waiting cards keep the route they were given.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;
use warden_engine::Engine;
use warden_people::People;
use warden_types::id::PolicyId;
use warden_types::policy::{Policy, PolicyInput, RequesterMatch};

use super::error::{ApiError, ApiResult};
use super::json_body::JsonBody;

pub async fn list(State(engine): State<Engine>) -> Json<Vec<Policy>> {
    Json(engine.policies().list().to_vec())
}

pub async fn get(State(engine): State<Engine>, Path(id): Path<PolicyId>) -> ApiResult<Json<Policy>> {
    Ok(Json(engine.policies().get(&id).await.map_err(warden_engine::Error::from)?))
}

pub async fn create(
    State(engine): State<Engine>,
    State(people): State<People>,
    JsonBody(input): JsonBody<PolicyInput>,
) -> ApiResult<(StatusCode, Json<Policy>)> {
    check_people(&people, &input).await?;
    let policy = engine.policies().create(input).await.map_err(warden_engine::Error::from)?;
    Ok((StatusCode::CREATED, Json(policy)))
}

pub async fn update(
    State(engine): State<Engine>,
    State(people): State<People>,
    Path(id): Path<PolicyId>,
    JsonBody(input): JsonBody<PolicyInput>,
) -> ApiResult<Json<Policy>> {
    check_people(&people, &input).await?;
    Ok(Json(engine.policies().update(&id, input).await.map_err(warden_engine::Error::from)?))
}

pub async fn delete(State(engine): State<Engine>, Path(id): Path<PolicyId>) -> ApiResult<StatusCode> {
    engine.policies().delete(&id).await.map_err(warden_engine::Error::from)?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Order {
    ids: Vec<PolicyId>,
}

/// `PUT /api/policies/order {ids}`: the order policies are tried in (every policy, once).
pub async fn reorder(State(engine): State<Engine>, JsonBody(order): JsonBody<Order>) -> ApiResult<Json<Vec<Policy>>> {
    let listed = engine.policies().reorder(&order.ids).await.map_err(warden_engine::Error::from)?;
    Ok(Json(listed.to_vec()))
}

/// Every person the policy names exists.
pub async fn check_people(people: &People, input: &PolicyInput) -> Result<(), ApiError> {
    let requester = match &input.matches.requester {
        Some(RequesterMatch::Person { id }) => Some(id),
        _ => None,
    };
    for id in input.approvers.people.iter().chain(requester) {
        if let Err(e) = people.person(id).await {
            return Err(match e {
                warden_people::Error::NotFound(_) => ApiError::unprocessable(format!("no person {id}")),
                e => e.into(),
            });
        }
    }
    Ok(())
}
