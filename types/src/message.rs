//! The provider-neutral conversation: role-tagged messages made of content blocks. Tool calls and
//! their results are blocks carrying our own id and the provider's call id. Stored as JSON; provider
//! wire types live in the engine's `llm/` and are never stored.

use crate::id::ToolCallId;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::tool::ToolContent;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::IntoStaticStr, strum::EnumString)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
#[cfg_attr(feature = "sqlx", derive(sqlx::Type), sqlx(rename_all = "snake_case"))]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block {
    Text {
        text: String,
    },
    /// A call the model asked for. `id` is ours, `call_id` is the provider's.
    ToolCall {
        id: ToolCallId,
        call_id: String,
        name: String,
        arguments: Value,
    },
    /// The outcome of a call, as the model will see it.
    ToolResult {
        tool_call_id: ToolCallId,
        call_id: String,
        content: Vec<ToolContent>,
        is_error: bool,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: Vec<Block>,
}

impl Message {
    pub fn text(role: Role, text: impl Into<String>) -> Self {
        Self { role, content: vec![Block::Text { text: text.into() }] }
    }

    /// All text blocks joined.
    pub fn joined_text(&self) -> String {
        self.content
            .iter()
            .filter_map(|b| match b {
                Block::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("")
    }
}
