//! What every handler and server function can reach: the Leptos options, the engine, the MCP hub,
//! and the access policy the router applies.

use axum::extract::FromRef;
use leptos::prelude::LeptosOptions;
use warden_engine::Engine;
use warden_mcp::McpHub;

use crate::access::Access;

#[derive(Clone, FromRef)]
pub struct AppState {
    pub leptos_options: LeptosOptions,
    pub engine: Engine,
    pub mcp: McpHub,
    pub access: Access,
}
