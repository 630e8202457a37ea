//! A person's decision on an approval card. The browser sends it here, a server function like every
//! other write of the page; other clients use `POST /api/approvals/{id}`. Both call the same
//! `Engine::decide`, so a decision is validated and applied in one place.

use leptos::prelude::*;
use leptos::server_fn::codec::Json;
use warden_types::id::ApprovalId;

use crate::error::AppError;
use crate::model::{Approval, DecisionInput};

/// Applies the person's `decision` to the approval `id` (or records their vote toward its quorum) and
/// answers with the approval as it is then. A `Conflict` error means another tab or client decided first;
/// `Forbidden`, that it is not theirs to decide.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn decide_approval(id: ApprovalId, decision: DecisionInput) -> Result<Approval, AppError> {
    let engine = super::engine()?;
    let person = super::asker::asker()?.acting();
    Ok(engine.decide(&id, decision, &person).await?)
}

/// What the card of the pending approval `id` would show with `arguments` (the person is editing them):
/// the call's summary and its diff or command, read now. Decides nothing; only for a person it is routed to.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn preview_edit(
    id: ApprovalId,
    arguments: serde_json::Value,
) -> Result<warden_types::approval::EditPreview, AppError> {
    let engine = super::engine()?;
    let person = super::asker::asker()?.acting();
    Ok(engine.preview_edit(&id, &arguments, &person).await?)
}
