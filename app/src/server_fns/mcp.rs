//! Server functions for the MCP settings page: thin calls into the `McpHub` (taken from context)
//! whose results are mirrored into the page's view types. Secrets come back redacted by the hub;
//! redacted values sent back mean "keep the stored one".

use leptos::prelude::*;
use leptos::server_fn::codec::Json;

use crate::components::mcp_model::{McpConfig, McpProbe, McpServer, ToolPolicy};
use crate::error::AppError;

/// The hub handed to the Leptos routes as context by the server binary.
#[cfg(feature = "ssr")]
fn hub() -> Result<warden_mcp::McpHub, AppError> {
    use_context::<warden_mcp::McpHub>().ok_or_else(|| AppError::internal("the MCP hub was not provided as Leptos context"))
}

#[cfg(feature = "ssr")]
impl From<warden_mcp::Error> for AppError {
    fn from(error: warden_mcp::Error) -> Self {
        use warden_mcp::Error as E;
        let error = match error {
            E::NotFound(_) => AppError::NotFound(error.to_string()),
            E::InvalidConfig(_)
            | E::InvalidJson(_)
            | E::RedactedWithoutStoredValue(_)
            | E::ReadFile { .. } => AppError::Invalid(error.to_string()),
            E::Connect(_) | E::ConnectTimeout(_) => {
                AppError::Invalid(format!("Could not connect: {error}"))
            }
            other => AppError::internal(format_args!("MCP hub call failed: {other}")),
        };
        error.answer()
    }
}

/// The stored server named `name`, as the hub shows it (secrets redacted).
#[cfg(feature = "ssr")]
fn stored(hub: &warden_mcp::McpHub, name: &str) -> Result<warden_mcp::McpServerStatus, AppError> {
    hub.get(name)
        .ok_or_else(|| warden_mcp::Error::NotFound(name.to_string()).into())
}

#[server]
pub async fn list_mcp_servers() -> Result<Vec<McpServer>, AppError> {
    hub()?.list().iter().map(super::mirror).collect()
}

/// Adds or replaces a server (keyed by its name).
#[server(input = Json)]
pub async fn save_mcp_server(config: McpConfig) -> Result<(), AppError> {
    let config: warden_mcp::McpServerConfig = super::mirror(&config)?;
    Ok(hub()?.upsert(config).await?)
}

#[server(input = Json)]
pub async fn test_mcp_connection(config: McpConfig) -> Result<McpProbe, AppError> {
    let config: warden_mcp::McpServerConfig = super::mirror(&config)?;
    super::mirror(&hub()?.test_connection(config).await?)
}

#[server]
pub async fn remove_mcp_server(name: String) -> Result<(), AppError> {
    Ok(hub()?.remove(&name).await?)
}

#[server]
pub async fn set_mcp_enabled(name: String, enabled: bool) -> Result<(), AppError> {
    Ok(hub()?.set_enabled(&name, enabled).await?)
}

/// Lets tools annotated read-only run without approval on this server (or stops it).
#[server]
pub async fn set_mcp_trust_read_only(name: String, trust: bool) -> Result<(), AppError> {
    let hub = hub()?;
    // The redacted config goes back as it came: masked secrets keep their stored values.
    let mut config = stored(&hub, &name)?.config;
    config.trust_read_only_hints = trust;
    Ok(hub.upsert(config).await?)
}

/// Reconnects now and answers once that attempt has connected or failed (or after 15 s, still
/// connecting), so the button that asked can say how it went.
#[server]
pub async fn reconnect_mcp_server(name: String) -> Result<McpServer, AppError> {
    let status = hub()?.reconnect_and_wait(&name, std::time::Duration::from_secs(15)).await?;
    super::mirror(&status)
}

#[server(input = Json)]
pub async fn set_mcp_tool_policy(
    name: String,
    tool: String,
    policy: ToolPolicy,
) -> Result<(), AppError> {
    let policy: warden_mcp::ToolPolicy = super::mirror(&policy)?;
    Ok(hub()?.set_tool_policy(&name, &tool, policy).await?)
}

/// Imports an `mcpServers` JSON document; returns the names of the servers it added or updated.
#[server]
pub async fn import_mcp_servers(json: String) -> Result<Vec<String>, AppError> {
    Ok(hub()?.import_json(&json).await?)
}

/// Every server as an `mcpServers` JSON document, secrets redacted.
#[server]
pub async fn export_mcp_servers() -> Result<String, AppError> {
    Ok(hub()?.export_json())
}
