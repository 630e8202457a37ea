//! The server function of the `/audit` page: one page of decisions from chats and outside clients,
//! read by `warden_outside::audit::AuditLog` over the engine and the outside hub (both from context).

use leptos::prelude::*;
use leptos::server_fn::codec::Json;

use crate::error::AppError;
use warden_types::audit::{AuditPage, AuditQuery};

#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn read_audit_log(query: AuditQuery) -> Result<AuditPage, AppError> {
    let log = warden_outside::audit::AuditLog::new(super::engine()?, super::outside::hub()?);
    Ok(log.page(&query).await?)
}
