//! `/api/outside`: approvals asked for by outside executors and agents (docs/OUTSIDE_PROTOCOL.md).
//! Two kinds of caller: a registered client, with its own token, sends requests and waits for their
//! decisions (`POST /api/outside/requests`, `GET /api/outside/requests/{id}/decision`, and the
//! WebSocket); the person, signed in as for the rest of the API, lists, decides and manages clients
//! and the policy. Neither's credentials open the other's routes: the access gate lets only
//! [`is_client_route`] through without the person's token, and those authenticate the client here.

use std::time::Duration;
use warden_types::id::{ClientId, OutsideRequestId};

use axum::body::Bytes;
use axum::extract::{FromRef, FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use warden_outside::protocol::{parse_client_frame, ErrorCode, MAX_FRAME_BYTES};
use warden_outside::{
    Answer, Client, ClientPolicy, DecisionInput, Held, Manager, NewClient, OutsideHub, OutsideRequest, Policy,
    RequestQuery, RequestStatus, ServerFrame,
};

use super::error::{ApiError, ApiResult};
use super::json_body::JsonBody;
use crate::access::credentials::{bearer, query_token, unauthorized};
use axum::Extension;
use warden_people::Asker;

/// The WebSocket's path.
pub const SOCKET_PATH: &str = "/ws/approvals";
/// The largest body `POST /api/outside/requests` reads: a little over the frame cap, so a frame just
/// over it is still answered `too_large` with its id; a bigger body is not read at all (413
/// `payload_too_large`).
pub const MAX_REQUEST_BODY_BYTES: usize = MAX_FRAME_BYTES + 64 * 1024;
/// Default and longest wait of a long-poll, in seconds.
const DEFAULT_WAIT_SECS: u64 = 30;
const MAX_WAIT_SECS: u64 = 120;

/// Whether the request is for a route an outside client calls with its own token. The gate still
/// checks its `Host`, and its `Origin` whatever the method (the WebSocket upgrade is a `GET`).
pub fn is_client_route(method: &Method, path: &str) -> bool {
    if path == super::outside_mcp::PATH {
        return matches!(*method, Method::GET | Method::POST | Method::DELETE);
    }
    match *method {
        Method::GET => {
            path == SOCKET_PATH
                || path
                    .strip_prefix("/api/outside/requests/")
                    .and_then(|rest| rest.strip_suffix("/decision"))
                    .is_some_and(|id| !id.is_empty() && !id.contains('/'))
        }
        Method::POST => path == "/api/outside/requests",
        _ => false,
    }
}

/// The client a request comes from, by `Authorization: Bearer <client token>`. A token in the
/// query is refused (addresses end up in logs and histories); so is the person's token.
pub struct OutsideClient(pub Client);

impl<S> FromRequestParts<S> for OutsideClient
where
    S: Send + Sync,
    OutsideHub: FromRef<S>,
{
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        if query_token(parts.uri.query()).is_some() {
            return Err(ApiError::bad_request(
                "token_in_query",
                "send the client token as `Authorization: Bearer <token>`, never in the address",
            )
            .into_response());
        }
        let Some(Ok(token)) = bearer(&parts.headers) else {
            return Err(unauthorized("send the client token as `Authorization: Bearer <token>`"));
        };
        match OutsideHub::from_ref(state).authenticate(token).await {
            Ok(client) => Ok(OutsideClient(client)),
            Err(warden_outside::Error::Unauthorized) => {
                Err(unauthorized("the client token is not valid (unknown or revoked)"))
            }
            Err(other) => Err(ApiError::from(other).into_response()),
        }
    }
}

/// An answer to a client: 200 with the decision frame, or 202 with the ack (still pending).
fn answer(answer: Answer) -> (StatusCode, Json<ServerFrame>) {
    let status = match answer {
        Answer::Decided(_) => StatusCode::OK,
        Answer::Ack(_) => StatusCode::ACCEPTED,
    };
    (status, Json(answer.into_frame()))
}

// ---- client side ----

/// `POST /api/outside/requests`: one request frame, as on the socket. Stored before the answer.
pub async fn create_request(
    OutsideClient(client): OutsideClient,
    State(hub): State<OutsideHub>,
    body: Bytes,
) -> ApiResult<(StatusCode, Json<ServerFrame>)> {
    let frame = parse_client_frame(&body).map_err(warden_outside::Error::from)?;
    let submitted = hub.submit(&client.id, frame).await?;
    if let Answer::Decided(decision) = &submitted {
        hub.mark_delivered(&decision.request_id).await?;
    }
    Ok(answer(submitted))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WaitParams {
    wait: Option<u64>,
}

/// `GET /api/outside/requests/{id}/decision?wait=30`: the decision on the client's request (by
/// Warden's id), waiting up to `wait` seconds for it.
pub async fn wait_decision(
    OutsideClient(client): OutsideClient,
    State(hub): State<OutsideHub>,
    Path(id): Path<OutsideRequestId>,
    Query(params): Query<WaitParams>,
) -> ApiResult<(StatusCode, Json<ServerFrame>)> {
    let wait = Duration::from_secs(params.wait.unwrap_or(DEFAULT_WAIT_SECS).min(MAX_WAIT_SECS));
    let _waiting = if wait.is_zero() { None } else { Some(hub.hold(&client.id, Held::LongPoll)?) };
    Ok(answer(hub.wait_decision(&client.id, &id, wait).await?))
}

// ---- person side ----

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListParams {
    status: Option<String>,
    client_id: Option<ClientId>,
    limit: Option<u32>,
}

/// `GET /api/outside/requests?status=pending&client_id=…&limit=…`, newest first.
/// Only what the person may read: an owner all, anyone else their own clients' and those routed to them.
pub async fn list(
    State(hub): State<OutsideHub>,
    Extension(asker): Extension<Asker>,
    Query(p): Query<ListParams>,
) -> ApiResult<Json<Vec<OutsideRequest>>> {
    let status =
        match p.status.as_deref() {
            None | Some("") | Some("all") => None,
            Some(s) => Some(s.parse::<RequestStatus>().map_err(|_| {
                ApiError::unprocessable("status must be one of pending, approved, rejected, expired, all")
            })?),
        };
    let query = RequestQuery { status, client_id: p.client_id, linked: None, limit: p.limit };
    Ok(Json(hub.list_as(&query, &asker.acting()).await?))
}

/// One request the person may read (any other is not found).
pub async fn get(
    State(hub): State<OutsideHub>,
    Extension(asker): Extension<Asker>,
    Path(id): Path<OutsideRequestId>,
) -> ApiResult<Json<OutsideRequest>> {
    Ok(Json(hub.request_as(&id, &asker.acting()).await?))
}

/// `POST /api/outside/requests/{id}/decision`: a person's decision; 409 once decided.
pub async fn decide(
    State(hub): State<OutsideHub>,
    Extension(asker): Extension<Asker>,
    Path(id): Path<OutsideRequestId>,
    JsonBody(input): JsonBody<DecisionInput>,
) -> ApiResult<Json<OutsideRequest>> {
    Ok(Json(hub.decide(&id, input, &asker.acting()).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Extend {
    secs: u64,
}

/// `POST /api/outside/requests/{id}/extend` `{"secs": 120}`: more time before the timeout.
pub async fn extend(
    State(hub): State<OutsideHub>,
    Extension(asker): Extension<Asker>,
    Path(id): Path<OutsideRequestId>,
    JsonBody(body): JsonBody<Extend>,
) -> ApiResult<Json<OutsideRequest>> {
    Ok(Json(hub.extend(&id, Duration::from_secs(body.secs), &asker.acting()).await?))
}

pub async fn policy(State(hub): State<OutsideHub>) -> Json<Policy> {
    Json(hub.policy())
}

pub async fn set_policy(State(hub): State<OutsideHub>, JsonBody(policy): JsonBody<Policy>) -> ApiResult<Json<Policy>> {
    hub.set_policy(policy).await?;
    Ok(Json(hub.policy()))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewClientBody {
    name: String,
    #[serde(default)]
    policy: ClientPolicy,
}

/// `POST /api/outside/clients` `{name, policy?}`: 201 with the client (the asker's) and its token, shown
/// this once. A policy of its own (which can approve without asking) is an owner's to give.
pub async fn create_client(
    State(hub): State<OutsideHub>,
    Extension(asker): Extension<Asker>,
    JsonBody(body): JsonBody<NewClientBody>,
) -> ApiResult<(StatusCode, Json<NewClient>)> {
    Ok((StatusCode::CREATED, Json(hub.create_client_of(&manager(&asker), &body.name, body.policy).await?)))
}

/// `GET /api/outside/clients`: every client for an owner, the asker's own for anyone else.
pub async fn clients(
    State(hub): State<OutsideHub>,
    Extension(asker): Extension<Asker>,
) -> ApiResult<Json<Vec<Client>>> {
    Ok(Json(hub.clients_managed_by(&manager(&asker)).await?))
}

/// `DELETE /api/outside/clients/{id}`: revokes the token and closes the client's sockets (an owner any
/// client, anyone else their own; another's is 404).
pub async fn revoke_client(
    State(hub): State<OutsideHub>,
    Extension(asker): Extension<Asker>,
    Path(id): Path<ClientId>,
) -> ApiResult<Json<Client>> {
    Ok(Json(hub.revoke_client_as(&manager(&asker), &id).await?))
}

/// The asker as a manager of outside clients (and of the executors' clients).
pub(super) fn manager(asker: &Asker) -> Manager {
    Manager { person: asker.id().clone(), role: asker.role() }
}

pub async fn set_client_policy(
    State(hub): State<OutsideHub>,
    Path(id): Path<ClientId>,
    JsonBody(policy): JsonBody<ClientPolicy>,
) -> ApiResult<Json<Client>> {
    Ok(Json(hub.set_client_policy(&id, policy).await?))
}

/// HTTP status of a refused frame.
pub(super) fn frame_status(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::IdReused => StatusCode::CONFLICT,
        ErrorCode::Unauthorized => StatusCode::UNAUTHORIZED,
        ErrorCode::TooManyPending | ErrorCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
        ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        ErrorCode::Malformed | ErrorCode::Invalid | ErrorCode::UnknownRequest => StatusCode::UNPROCESSABLE_ENTITY,
    }
}
