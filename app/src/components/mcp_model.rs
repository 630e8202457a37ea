//! The settings page's view of MCP servers: the same JSON shapes as warden-mcp's status and config
//! types, so the server converts with `mirror` and the browser never links warden-mcp itself.
//! Every string in here may come from a remote server or a config file: render it as text only.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::Risk;

/// Everything the page shows about one server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpServer {
    pub name: String,
    pub enabled: bool,
    pub state: ServerState,
    pub server_info: Option<ServerInfo>,
    pub tools: Vec<McpTool>,
    /// Secrets come redacted; sending them back unchanged keeps the stored values.
    pub config: McpConfig,
}

/// The connection state of a server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ServerState {
    Disabled,
    Connecting,
    Connected,
    Failed { error: String },
    Offline { error: String },
}

impl ServerState {
    /// A short word for the state, also used as a CSS class suffix.
    pub fn label(&self) -> &'static str {
        match self {
            ServerState::Disabled => "disabled",
            ServerState::Connecting => "connecting",
            ServerState::Connected => "connected",
            ServerState::Failed { .. } => "failed",
            ServerState::Offline { .. } => "offline",
        }
    }

    /// The last error, for failed and offline servers.
    pub fn error(&self) -> Option<&str> {
        match self {
            ServerState::Failed { error } | ServerState::Offline { error } => Some(error),
            _ => None,
        }
    }
}

/// The server's own name and version from the MCP handshake.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerInfo {
    pub name: String,
    pub version: String,
}

/// One tool of a server and the decision Warden will make about its calls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpTool {
    pub name: String,
    pub qualified_name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub read_only_hint: bool,
    pub destructive_hint: bool,
    pub policy: ToolPolicy,
    pub offline: bool,
    pub needs_approval: bool,
    pub risk: Risk,
}

/// What `Test connection` found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpProbe {
    pub server_info: Option<ServerInfo>,
    pub tools: Vec<McpTool>,
}

/// One server's configuration (warden-mcp's `McpServerConfig`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpConfig {
    pub name: String,
    pub enabled: bool,
    pub transport: Transport,
    #[serde(default)]
    pub trust_read_only_hints: bool,
    #[serde(default)]
    pub tool_policies: BTreeMap<String, ToolPolicy>,
    pub call_timeout_secs: u64,
    /// The stdio server runs confined (warden-mcp's `sandbox`, `sandbox_paths`, `sandbox_network`);
    /// mirrored so that editing a server in the UI keeps them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sandbox: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sandbox_paths: Vec<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sandbox_network: bool,
}

/// How Warden reaches a server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Transport {
    Stdio {
        command: String,
        #[serde(default)]
        args: Vec<String>,
        #[serde(default)]
        env: BTreeMap<String, String>,
    },
    Http {
        url: String,
        #[serde(default)]
        headers: BTreeMap<String, String>,
    },
}

/// A person's override for one tool.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolPolicy {
    #[default]
    Default,
    AlwaysAsk,
    NeverAsk,
    Disabled,
}

impl ToolPolicy {
    pub const ALL: [ToolPolicy; 4] = [
        ToolPolicy::Default,
        ToolPolicy::AlwaysAsk,
        ToolPolicy::NeverAsk,
        ToolPolicy::Disabled,
    ];

    /// The value of the `<option>` (the wire name).
    pub fn key(self) -> &'static str {
        match self {
            ToolPolicy::Default => "default",
            ToolPolicy::AlwaysAsk => "always_ask",
            ToolPolicy::NeverAsk => "never_ask",
            ToolPolicy::Disabled => "disabled",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            ToolPolicy::Default => "Default",
            ToolPolicy::AlwaysAsk => "Always ask",
            ToolPolicy::NeverAsk => "Never ask",
            ToolPolicy::Disabled => "Disabled",
        }
    }

    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.key() == key)
    }
}
