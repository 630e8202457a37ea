//! The public HTTP API (documented in docs/API.md). Handlers are thin: take the engine, call it,
//! map errors to statuses. Access control is not here: `crate::protect` wraps these routes.

mod approvals;
mod audit;
mod connection_checks;
mod error;
mod inbox;
mod json_body;
pub mod json_errors;
mod mcp;
pub mod outside;
mod outside_executors;
pub mod outside_mcp;
mod outside_ws;
mod providers;
mod runs;
mod sse;
mod threads;

use axum::extract::{DefaultBodyLimit, FromRef};
use axum::routing::{any, get, post, put};
use axum::{Json, Router};
use serde_json::json;
use warden_engine::Engine;
use warden_mcp::McpHub;
use warden_outside::{Dialer, OutsideHub};

use self::outside_mcp::OutsideMcp;

pub use error::ApiError;

/// The API routes (and the outside clients' WebSocket), for any state the engine, the MCP hub and
/// the outside-approvals hub can be taken from.
pub fn router<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Engine: FromRef<S>,
    McpHub: FromRef<S>,
    OutsideHub: FromRef<S>,
    OutsideMcp: FromRef<S>,
    Dialer: FromRef<S>,
{
    Router::new()
        .route("/api/health", get(|| async { Json(json!({ "status": "ok" })) }))
        .route("/api/threads", get(threads::list).post(threads::create))
        .route("/api/threads/{id}", get(threads::get).patch(threads::patch).delete(threads::delete))
        .route("/api/threads/{id}/messages", post(threads::post_message))
        .route("/api/threads/{id}/retry", post(threads::retry))
        .route("/api/search", get(threads::search))
        .route("/api/threads/{id}/runs", get(threads::runs))
        .route("/api/threads/{id}/messages/{message_id}/edit", post(threads::edit_message))
        .route("/api/threads/{id}/messages/{message_id}/regenerate", post(threads::regenerate))
        .route("/api/threads/{id}/branch", put(threads::switch_branch))
        .route("/api/threads/{id}/title", post(threads::regenerate_title))
        .route("/api/threads/{id}/export.json", get(threads::export_json))
        .route("/api/threads/{id}/export.md", get(threads::export_markdown))
        .route("/api/threads/import", post(threads::import))
        .route("/api/rules/{id}", axum::routing::delete(threads::delete_rule))
        .route("/api/runs/{id}", get(runs::get))
        .route("/api/runs/{id}/events", get(runs::events))
        .route("/api/runs/{id}/stop", post(runs::stop))
        .route("/api/tool_calls/{id}", get(runs::tool_call))
        .route("/api/approvals", get(approvals::list))
        .route("/api/inbox/events", get(inbox::events))
        .route("/api/approvals/{id}", get(approvals::get).post(approvals::decide))
        .route("/api/connection_checks/{id}", get(connection_checks::get).post(connection_checks::decide))
        .route("/api/providers", get(providers::list).post(providers::save))
        .route("/api/providers/test", post(providers::test))
        .route("/api/providers/{id}", axum::routing::delete(providers::remove))
        .route("/api/providers/{id}/test", post(providers::test_entry))
        .route("/api/threads/{id}/model", put(providers::set_thread_model))
        // The audit log of every decision (chats and outside clients): a page, or the whole as a download.
        .route("/api/audit", get(audit::page))
        .route("/api/audit.jsonl", get(audit::jsonl))
        .route("/api/audit.csv", get(audit::csv))
        .route("/api/mcp/servers", get(mcp::list).post(mcp::upsert))
        .route("/api/mcp/servers/{name}", get(mcp::get).delete(mcp::remove))
        .route("/api/mcp/servers/{name}/enabled", put(mcp::set_enabled))
        .route("/api/mcp/servers/{name}/reconnect", post(mcp::reconnect))
        .route("/api/mcp/servers/{name}/tools/{tool}/policy", put(mcp::set_policy))
        .route("/api/mcp/test", post(mcp::test))
        .route("/api/mcp/import", post(mcp::import))
        .route("/api/mcp/export", get(mcp::export))
        // Outside approvals: client routes (client token) are `outside::is_client_route`; the rest
        // are the person's.
        .route(outside::SOCKET_PATH, get(outside_ws::connect))
        .route(outside_mcp::PATH, any(outside_mcp::serve))
        .route(
            "/api/outside/requests",
            get(outside::list)
                .post(outside::create_request)
                .layer(DefaultBodyLimit::max(outside::MAX_REQUEST_BODY_BYTES)),
        )
        .route("/api/outside/requests/{id}", get(outside::get))
        .route("/api/outside/requests/{id}/decision", get(outside::wait_decision).post(outside::decide))
        .route("/api/outside/requests/{id}/extend", post(outside::extend))
        .route("/api/outside/policy", get(outside::policy).put(outside::set_policy))
        .route("/api/outside/clients", get(outside::clients).post(outside::create_client))
        .route("/api/outside/clients/{id}", axum::routing::delete(outside::revoke_client))
        .route("/api/outside/clients/{id}/policy", put(outside::set_client_policy))
        .route("/api/outside/executors", get(outside_executors::list).post(outside_executors::add))
        .route("/api/outside/executors/{id}", get(outside_executors::get).delete(outside_executors::remove))
        .route("/api/outside/executors/{id}/enabled", put(outside_executors::set_enabled))
}
