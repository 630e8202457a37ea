//! What warden-mcp tells its callers about servers and tools: their state, identity and tools,
//! in our own types (rmcp's wire types are converted at the edge and never stored).

use serde::{Deserialize, Serialize};
use serde_json::Value;
pub use warden_types::mcp::{McpServerStatus, McpToolStatus, ServerInfo, ServerProbe, ServerState};

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
            title: tool.title.clone().or_else(|| annotations.and_then(|a| a.title.clone())),
            description: tool.description.as_ref().map(|d| d.to_string()),
            input_schema: Value::Object((*tool.input_schema).clone()),
            read_only_hint: annotations.and_then(|a| a.read_only_hint),
            destructive_hint: annotations.and_then(|a| a.destructive_hint),
        }
    }
}
