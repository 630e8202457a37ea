//! The MCP servers section's shared state, provided as context (see [`SectionUi`]); a server's id
//! is its name.

use warden_types::mcp::McpServerConfig;

use crate::settings::section_ui::SectionUi;

pub type McpUi = SectionUi<McpServerConfig>;
