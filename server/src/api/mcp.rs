//! `/api/mcp`: the MCP servers the agent may use — list with state and tools, add/edit, enable,
//! remove, reconnect, test a connection, per-tool policy, and import/export in the `mcpServers`
//! format. Secrets never come back in full.

use axum::extract::{Path, State};
use axum::http::{header, HeaderName, StatusCode};
use axum::Json;
use serde::{Deserialize, Serialize};
use warden_mcp::{McpHub, McpServerConfig, McpServerStatus, ServerProbe, ToolPolicy};

use super::error::ApiResult;
use super::json_body::JsonBody;

pub async fn list(State(hub): State<McpHub>) -> Json<Vec<McpServerStatus>> {
    Json(hub.list())
}

pub async fn get(State(hub): State<McpHub>, Path(name): Path<String>) -> ApiResult<Json<McpServerStatus>> {
    hub.get(&name).map(Json).ok_or_else(|| warden_mcp::Error::NotFound(name).into())
}

/// Adds or replaces a server; redacted secret values mean "keep what is stored".
pub async fn upsert(
    State(hub): State<McpHub>,
    JsonBody(config): JsonBody<McpServerConfig>,
) -> ApiResult<Json<Option<McpServerStatus>>> {
    let name = config.name.clone();
    hub.upsert(config).await?;
    Ok(Json(hub.get(&name)))
}

pub async fn remove(State(hub): State<McpHub>, Path(name): Path<String>) -> ApiResult<StatusCode> {
    hub.remove(&name).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Enabled {
    enabled: bool,
}

pub async fn set_enabled(
    State(hub): State<McpHub>,
    Path(name): Path<String>,
    JsonBody(body): JsonBody<Enabled>,
) -> ApiResult<Json<Option<McpServerStatus>>> {
    hub.set_enabled(&name, body.enabled).await?;
    Ok(Json(hub.get(&name)))
}

/// How long a reconnect request waits for the attempt before answering with the state then.
const RECONNECT_WAIT: std::time::Duration = std::time::Duration::from_secs(15);

/// Reconnects now and answers with the server once the attempt connected or failed.
pub async fn reconnect(State(hub): State<McpHub>, Path(name): Path<String>) -> ApiResult<Json<McpServerStatus>> {
    Ok(Json(hub.reconnect_and_wait(&name, RECONNECT_WAIT).await?))
}

pub async fn test(
    State(hub): State<McpHub>,
    JsonBody(config): JsonBody<McpServerConfig>,
) -> ApiResult<Json<ServerProbe>> {
    Ok(Json(hub.test_connection(config).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    policy: ToolPolicy,
}

pub async fn set_policy(
    State(hub): State<McpHub>,
    Path((name, tool)): Path<(String, String)>,
    JsonBody(body): JsonBody<Policy>,
) -> ApiResult<Json<Option<McpServerStatus>>> {
    hub.set_tool_policy(&name, &tool, body.policy).await?;
    Ok(Json(hub.get(&name)))
}

/// What an import added or replaced, by name.
#[derive(Serialize)]
pub struct Imported {
    imported: Vec<String>,
}

pub async fn import(State(hub): State<McpHub>, body: String) -> ApiResult<Json<Imported>> {
    Ok(Json(Imported { imported: hub.import_json(&body).await? }))
}

/// The `mcpServers` file, as JSON text (already serialized by the hub, secrets redacted).
pub async fn export(State(hub): State<McpHub>) -> ([(HeaderName, &'static str); 1], String) {
    ([(header::CONTENT_TYPE, "application/json")], hub.export_json())
}
