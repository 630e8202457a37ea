//! What every handler and server function can reach: the Leptos options, the engine and the MCP hub.

use axum::extract::FromRef;
use leptos::prelude::LeptosOptions;
use warden_engine::Engine;
use warden_mcp::McpHub;

#[derive(Clone, FromRef)]
pub struct AppState {
    pub leptos_options: LeptosOptions,
    pub engine: Engine,
    pub mcp: McpHub,
}
