//! What a tool call is shown as: its risk, a preview of what it will do, where the tool comes from,
//! and the pieces of its result; and what the model is told about a tool.

use serde::{Deserialize, Serialize};

/// What the model is told about a tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: serde_json::Value,
}

/// How much harm a given call can do; shown on the approval card.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, strum::IntoStaticStr, strum::EnumString,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
#[cfg_attr(feature = "sqlx", derive(sqlx::Type), sqlx(rename_all = "lowercase"))]
pub enum Risk {
    Low,
    Medium,
    High,
}

impl Risk {
    /// The stored and shown name: `low`, `medium`, `high`.
    pub fn label(self) -> &'static str {
        self.into()
    }
}

/// What a gated call will do, shown on its card.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Preview {
    /// A unified diff (for example of a file write against the current file).
    Diff { path: String, diff: String },
    /// A shell command as it will run.
    Command { command: String },
}

/// One piece of a tool's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolContent {
    Text { text: String },
    Image { mime_type: String, data: String },
    Resource { uri: String, mime_type: Option<String>, text: Option<String> },
}

impl ToolContent {
    /// What a reader sees of this piece; images are named, not shown.
    pub fn as_display_text(&self) -> String {
        match self {
            ToolContent::Text { text } => text.clone(),
            ToolContent::Image { mime_type, .. } => format!("[image: {mime_type}]"),
            ToolContent::Resource { uri, text, .. } => match text {
                Some(text) => format!("[{uri}]\n{text}"),
                None => format!("[resource: {uri}]"),
            },
        }
    }
}

/// Where a tool comes from; the approval card names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ToolOrigin {
    BuiltIn,
    Mcp { server: String },
}

/// Why a call failed, where something acts on it (the chat offers to reconnect an offline server).
/// Stored with the call (`ToolCallRecord::failure`); the result's text is for the model and the person.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::IntoStaticStr, strum::EnumString)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
#[cfg_attr(feature = "sqlx", derive(sqlx::Type), sqlx(rename_all = "snake_case"))]
pub enum ToolFailure {
    /// The call's MCP server was offline: nothing ran.
    ServerOffline,
}
