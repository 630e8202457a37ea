//! A person's answer to a connection check card (an MCP server a run needs is offline or disabled):
//! Connect or Continue anyway. Other clients use `POST /api/connection_checks/{id}`; both call
//! `Engine::decide_connection_check`.

use leptos::prelude::*;
use leptos::server_fn::codec::Json;
use warden_types::id::ConnectionCheckId;

use crate::error::AppError;
use crate::model::{CheckDecision, ConnectionCheck};

/// Applies `decision` to the check `id` and answers with the check as it is then: decided, or still
/// pending with the error of a Connect that did not connect. A `Conflict` error means it was
/// decided first (another tab, a stop).
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn decide_connection_check(
    id: ConnectionCheckId,
    decision: CheckDecision,
) -> Result<ConnectionCheck, AppError> {
    let engine = super::engine()?;
    Ok(engine.decide_connection_check(&id, decision).await?)
}
