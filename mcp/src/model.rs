//! What warden-mcp tells its callers about servers and tools: their state, identity and tools,
//! in our own types (rmcp's wire types are converted at the edge and never stored).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use warden_engine::tools::Risk;

use crate::config::{McpServerConfig, ToolPolicy};

/// The connection state of one server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ServerState {
    Disabled,
    /// First connection attempt under way.
    Connecting,
    Connected,
    /// The last attempt to connect failed; retrying with backoff.
    Failed {
        error: String,
    },
    /// The connection was lost (crash, disconnect); reconnecting with backoff.
    Offline {
        error: String,
    },
}

/// The server's own name and version from the MCP handshake.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerInfo {
    pub name: String,
    pub version: String,
}

/// A tool as the server described it, kept as last known.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RemoteTool {
    pub name: String,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    /// The tool's JSON Schema for its arguments, passed through unchanged.
    pub input_schema: Value,
    #[serde(default)]
    pub read_only_hint: Option<bool>,
    #[serde(default)]
    pub destructive_hint: Option<bool>,
}

impl RemoteTool {
    pub(crate) fn from_rmcp(tool: &rmcp::model::Tool) -> Self {
        let annotations = tool.annotations.as_ref();
        Self {
            name: tool.name.to_string(),
            title: tool
                .title
                .clone()
                .or_else(|| annotations.and_then(|a| a.title.clone())),
            description: tool.description.as_ref().map(|d| d.to_string()),
            input_schema: Value::Object((*tool.input_schema).clone()),
            read_only_hint: annotations.and_then(|a| a.read_only_hint),
            destructive_hint: annotations.and_then(|a| a.destructive_hint),
        }
    }
}

/// One tool of a server as the settings page shows it, with the decision Warden will make.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpToolStatus {
    /// The name on the server.
    pub name: String,
    /// The name the model sees: `server__tool`.
    pub qualified_name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub read_only_hint: bool,
    pub destructive_hint: bool,
    pub policy: ToolPolicy,
    /// The server is not connected: calls will be refused.
    pub offline: bool,
    pub needs_approval: bool,
    pub risk: Risk,
}

/// Everything the settings page shows about one server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpServerStatus {
    pub name: String,
    pub enabled: bool,
    pub state: ServerState,
    pub server_info: Option<ServerInfo>,
    pub tools: Vec<McpToolStatus>,
    /// The config with every secret redacted (see `redact`); send it back unchanged to keep them.
    pub config: McpServerConfig,
}

/// What `test_connection` found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerProbe {
    pub server_info: Option<ServerInfo>,
    pub tools: Vec<McpToolStatus>,
}
