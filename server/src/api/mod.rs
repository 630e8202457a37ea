//! The public HTTP API (documented in docs/API.md). Handlers are thin: take the engine, call it,
//! map errors to statuses.

mod approvals;
mod error;
mod json_body;
pub mod origin;
mod runs;
mod sse;
mod threads;

use axum::extract::FromRef;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::json;
use warden_engine::Engine;

pub use error::ApiError;

/// The API routes, for any state the engine can be taken from.
pub fn router<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Engine: FromRef<S>,
{
    Router::new()
        .route("/api/health", get(|| async { Json(json!({ "status": "ok" })) }))
        .route("/api/threads", get(threads::list).post(threads::create))
        .route("/api/threads/{id}", get(threads::get).patch(threads::patch).delete(threads::delete))
        .route("/api/threads/{id}/messages", post(threads::post_message))
        .route("/api/threads/{id}/retry", post(threads::retry))
        .route("/api/rules/{id}", axum::routing::delete(threads::delete_rule))
        .route("/api/runs/{id}", get(runs::get))
        .route("/api/runs/{id}/events", get(runs::events))
        .route("/api/runs/{id}/stop", post(runs::stop))
        .route("/api/tool_calls/{id}", get(runs::tool_call))
        .route("/api/approvals", get(approvals::list))
        .route("/api/approvals/{id}", get(approvals::get).post(approvals::decide))
        .layer(axum::middleware::from_fn(origin::require_same_origin))
}
