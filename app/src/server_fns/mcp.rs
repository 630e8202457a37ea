//! Server functions for the MCP settings page: thin calls into the `McpHub` (taken from context)
//! whose results are warden-types records the page shows as they are. Secrets come back redacted by the hub;
//! redacted values sent back mean "keep the stored one".

use leptos::prelude::*;
use leptos::server_fn::codec::Json;

use crate::error::AppError;
use warden_types::mcp::{McpServerConfig, McpServerStatus, Reconnected, ServerProbe, ToolPolicy};

/// The hub handed to the Leptos routes as context by the server binary.
#[cfg(feature = "ssr")]
fn hub() -> Result<warden_mcp::McpHub, AppError> {
    use_context::<warden_mcp::McpHub>()
        .ok_or_else(|| AppError::internal("the MCP hub was not provided as Leptos context"))
}

/// The stored server named `name`, as the hub shows it (secrets redacted).
#[cfg(feature = "ssr")]
fn stored(hub: &warden_mcp::McpHub, name: &str) -> Result<warden_mcp::McpServerStatus, AppError> {
    hub.get(name).ok_or_else(|| warden_mcp::Error::NotFound(name.to_string()).into())
}

#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn list_mcp_servers() -> Result<Vec<McpServerStatus>, AppError> {
    Ok(hub()?.list())
}

/// Adds or replaces a server (keyed by its name).
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn save_mcp_server(config: McpServerConfig) -> Result<(), AppError> {
    Ok(hub()?.upsert(config).await?)
}

#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn test_mcp_connection(config: McpServerConfig) -> Result<ServerProbe, AppError> {
    Ok(hub()?.test_connection(config).await?)
}

#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn remove_mcp_server(name: String) -> Result<(), AppError> {
    Ok(hub()?.remove(&name).await?)
}

#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn set_mcp_enabled(name: String, enabled: bool) -> Result<(), AppError> {
    Ok(hub()?.set_enabled(&name, enabled).await?)
}

/// Lets tools annotated read-only run without approval on this server (or stops it).
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn set_mcp_trust_read_only(name: String, trust: bool) -> Result<(), AppError> {
    let hub = hub()?;
    // The redacted config goes back as it came: masked secrets keep their stored values.
    let mut config = stored(&hub, &name)?.config;
    config.trust_read_only_hints = trust;
    Ok(hub.upsert(config).await?)
}

/// Reconnects now and answers once that attempt has connected or failed (or after 15 s, still
/// connecting), so the button that asked can say how it went.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn reconnect_mcp_server(name: String) -> Result<Reconnected, AppError> {
    let status = hub()?.reconnect_and_wait(&name, std::time::Duration::from_secs(15)).await?;
    Ok(Reconnected { state: status.state, tools: status.tools.len() })
}

#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn set_mcp_tool_policy(name: String, tool: String, policy: ToolPolicy) -> Result<(), AppError> {
    Ok(hub()?.set_tool_policy(&name, &tool, policy).await?)
}

/// Imports an `mcpServers` JSON document; returns the names of the servers it added or updated.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn import_mcp_servers(json: String) -> Result<Vec<String>, AppError> {
    Ok(hub()?.import_json(&json).await?)
}

/// Every server as an `mcpServers` JSON document, secrets redacted.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn export_mcp_servers() -> Result<String, AppError> {
    Ok(hub()?.export_json())
}
