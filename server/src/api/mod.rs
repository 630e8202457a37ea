//! The public HTTP API (documented in docs/API.md). Handlers are thin: take the engine, call it,
//! map errors to statuses. Who may call each route is said here, with it (`Need`); the gate that finds who
//! asks is `crate::access`.

mod approvals;
mod audit;
mod channels;
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
mod people;
mod policies;
mod providers;
mod reader;
mod runs;
mod sent;
mod sharing;
mod sse;
mod threads;

use axum::extract::{DefaultBodyLimit, FromRef};
use axum::handler::Handler;
use axum::Json;
use serde_json::json;
use warden_engine::Engine;
use warden_mcp::McpHub;
use warden_notify::Notifier;
use warden_outside::{Dialer, OutsideHub};
use warden_people::People;
use warden_reach::Reach;
use warden_sessions::Sessions;

use self::outside_mcp::OutsideMcp;
use crate::access::passkeys;
use crate::access::roles::{Need, Routes};
use crate::access::Access;
use crate::decision_page;

pub use error::ApiError;

/// The API routes (and the outside clients' WebSocket), each with what it asks of the person calling it
/// (`crate::access::roles`), for any state the engine, the MCP hub and the outside-approvals hub can be
/// taken from.
pub fn routes<S>() -> Routes<S>
where
    S: Clone + Send + Sync + 'static,
    Engine: FromRef<S>,
    People: FromRef<S>,
    Notifier: FromRef<S>,
    Sessions: FromRef<S>,
    McpHub: FromRef<S>,
    OutsideHub: FromRef<S>,
    OutsideMcp: FromRef<S>,
    Dialer: FromRef<S>,
    Access: FromRef<S>,
    Reach: FromRef<S>,
{
    use Need::{Chat, Decide, Manage, OutsideClient, Public, SignedIn};
    Routes::default()
        .get("/api/health", Public, || async { Json(json!({ "status": "ok" })) })
        .get("/api/threads", SignedIn, threads::list)
        .post("/api/threads", Chat, threads::create)
        .get("/api/threads/{id}", SignedIn, threads::get)
        .patch("/api/threads/{id}", Chat, threads::patch)
        .delete("/api/threads/{id}", Chat, threads::delete)
        .post("/api/threads/{id}/messages", Chat, threads::post_message)
        .post("/api/threads/{id}/retry", Chat, threads::retry)
        .get("/api/search", SignedIn, threads::search)
        .get("/api/threads/{id}/runs", SignedIn, threads::runs)
        .post("/api/threads/{id}/messages/{message_id}/edit", Chat, threads::edit_message)
        .post("/api/threads/{id}/messages/{message_id}/regenerate", Chat, threads::regenerate)
        .put("/api/threads/{id}/branch", Chat, threads::switch_branch)
        .post("/api/threads/{id}/title", Chat, threads::regenerate_title)
        .get("/api/threads/{id}/export.json", SignedIn, threads::export_json)
        .get("/api/threads/{id}/export.md", SignedIn, threads::export_markdown)
        .post("/api/threads/import", Chat, threads::import)
        // Who else may read a thread: its owner only (others: 404, or 403 if it is shared with them).
        .get("/api/threads/{id}/sharing", SignedIn, sharing::get)
        .put("/api/threads/{id}/sharing", Chat, sharing::put)
        .delete("/api/rules/{id}", Chat, threads::delete_rule)
        .get("/api/runs/{id}", SignedIn, runs::get)
        .get("/api/runs/{id}/events", SignedIn, runs::events)
        .post("/api/runs/{id}/stop", Chat, runs::stop)
        .get("/api/tool_calls/{id}", SignedIn, runs::tool_call)
        .get("/api/approvals", SignedIn, approvals::list)
        .get("/api/inbox/events", SignedIn, inbox::events)
        .get("/api/approvals/{id}", SignedIn, approvals::get)
        .get("/api/approvals/{id}/notifications", SignedIn, sent::of_approval)
        .post("/api/approvals/{id}", Decide, approvals::decide)
        .get("/api/connection_checks/{id}", SignedIn, connection_checks::get)
        .post("/api/connection_checks/{id}", Decide, connection_checks::decide)
        .get("/api/providers", SignedIn, providers::list)
        .post("/api/providers", Manage, providers::save)
        .post("/api/providers/test", Manage, providers::test)
        .delete("/api/providers/{id}", Manage, providers::remove)
        .post("/api/providers/{id}/test", Manage, providers::test_entry)
        .put("/api/threads/{id}/model", Chat, providers::set_thread_model)
        // The audit log of every decision (chats and outside clients): a page, or the whole as a download.
        .get("/api/audit", Manage, audit::page)
        .get("/api/audit.jsonl", Manage, audit::jsonl)
        .get("/api/audit.csv", Manage, audit::csv)
        .get("/api/mcp/servers", Manage, mcp::list)
        .post("/api/mcp/servers", Manage, mcp::upsert)
        .get("/api/mcp/servers/{name}", Manage, mcp::get)
        .delete("/api/mcp/servers/{name}", Manage, mcp::remove)
        .put("/api/mcp/servers/{name}/enabled", Manage, mcp::set_enabled)
        .post("/api/mcp/servers/{name}/reconnect", Manage, mcp::reconnect)
        .put("/api/mcp/servers/{name}/tools/{tool}/policy", Manage, mcp::set_policy)
        .post("/api/mcp/test", Manage, mcp::test)
        .post("/api/mcp/import", Manage, mcp::import)
        .get("/api/mcp/export", Manage, mcp::export)
        // Outside approvals: client routes (client token) are `outside::is_client_route`; the rest
        // are the person's.
        .get(outside::SOCKET_PATH, OutsideClient, outside_ws::connect)
        .any(outside_mcp::PATH, OutsideClient, outside_mcp::serve)
        .get("/api/outside/requests", SignedIn, outside::list)
        .post(
            "/api/outside/requests",
            OutsideClient,
            outside::create_request.layer(DefaultBodyLimit::max(outside::MAX_REQUEST_BODY_BYTES)),
        )
        .get("/api/outside/requests/{id}", SignedIn, outside::get)
        .get("/api/outside/requests/{id}/notifications", SignedIn, sent::of_outside)
        .get("/api/outside/requests/{id}/decision", OutsideClient, outside::wait_decision)
        .post("/api/outside/requests/{id}/decision", Decide, outside::decide)
        .post("/api/outside/requests/{id}/extend", Decide, outside::extend)
        .get("/api/outside/policy", SignedIn, outside::policy)
        .put("/api/outside/policy", Manage, outside::set_policy)
        .get("/api/outside/clients", Chat, outside::clients)
        .post("/api/outside/clients", Chat, outside::create_client)
        .delete("/api/outside/clients/{id}", Chat, outside::revoke_client)
        .put("/api/outside/clients/{id}/policy", Manage, outside::set_client_policy)
        .get("/api/outside/executors", Manage, outside_executors::list)
        .post("/api/outside/executors", Manage, outside_executors::add)
        .get("/api/outside/executors/{id}", Manage, outside_executors::get)
        .delete("/api/outside/executors/{id}", Manage, outside_executors::remove)
        .put("/api/outside/executors/{id}/enabled", Manage, outside_executors::set_enabled)
        // People: who asks, and for owners everyone, their roles and invitations.
        .get("/api/me", SignedIn, people::me)
        .put("/api/me/password", SignedIn, people::set_password)
        // One's own passkeys (Settings → Your account's script registers them).
        .get("/api/me/passkeys", SignedIn, passkeys::list)
        .post("/api/me/passkeys/options", SignedIn, passkeys::add_options)
        .post("/api/me/passkeys", SignedIn, passkeys::add)
        .delete("/api/me/passkeys/{id}", SignedIn, passkeys::remove)
        .get("/api/people", Manage, people::list)
        .put("/api/people/{id}/role", Manage, people::set_role)
        .post("/api/people/{id}/disable", Manage, people::disable)
        .post("/api/people/{id}/enable", Manage, people::enable)
        .get("/api/people/invitations", Manage, people::invitations)
        .post("/api/people/invitations", Manage, people::invite)
        .delete("/api/people/invitations/{id}", Manage, people::withdraw_invitation)
        // Approval policies: who decides which requests, how many must approve.
        .get("/api/policies", Manage, policies::list)
        .post("/api/policies", Manage, policies::create)
        .put("/api/policies/order", Manage, policies::reorder)
        .get("/api/policies/{id}", Manage, policies::get)
        .put("/api/policies/{id}", Manage, policies::update)
        .delete("/api/policies/{id}", Manage, policies::delete)
        // Notification channels: one's own (another's is a 404), and for owners the shared ones and SMTP.
        .get("/api/channels", SignedIn, channels::list)
        .post("/api/channels", SignedIn, channels::create)
        .get("/api/channels/shared", Manage, channels::list_shared)
        .post("/api/channels/shared", Manage, channels::create_shared)
        .get("/api/channels/{id}", SignedIn, channels::get)
        .put("/api/channels/{id}", SignedIn, channels::update)
        .delete("/api/channels/{id}", SignedIn, channels::delete)
        .post("/api/channels/{id}/test", SignedIn, channels::test)
        .get("/api/push/key", SignedIn, channels::push_key)
        .post("/api/push/subscriptions", SignedIn, channels::subscribe)
        .post("/api/push/unsubscribe", SignedIn, channels::unsubscribe)
        .get("/api/notifications/smtp", Manage, channels::smtp)
        .put("/api/notifications/smtp", Manage, channels::set_smtp)
        .post("/api/notifications/smtp/test", Manage, channels::test_smtp)
        // Those the identity provider signed in without a role, waiting for an owner.
        .get("/api/people/waiting", Manage, people::waiting)
        .post("/api/people/waiting/{id}/admit", Manage, people::admit_waiting)
        .delete("/api/people/waiting/{id}", Manage, people::dismiss_waiting)
        // A decision link's page (not the API: HTML for a phone). Public: the link's secret is the credential,
        // and the gate lets it through unsigned (`middleware::guard`); the POST passed the origin check.
        .get("/decide/{secret}", Public, decision_page::show)
        .post("/decide/{secret}", Public, decision_page::confirm)
}
