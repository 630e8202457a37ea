//! How an MCP tool is gated and named: approval and risk from its annotations, the server's trust
//! setting and the person's per-tool override; and the `server__tool` name the model sees.

use warden_tools::Risk;

use crate::config::{McpServerConfig, ToolPolicy};
use crate::model::{McpToolStatus, RemoteTool};

/// Longest tool name providers accept.
const MAX_TOOL_NAME_LEN: usize = 64;

/// Whether a call must wait for a person.
/// `readOnlyHint: true` skips approval only on servers trusted for read-only hints.
pub fn needs_approval(config: &McpServerConfig, tool: &RemoteTool) -> bool {
    match config.policy(&tool.name) {
        ToolPolicy::AlwaysAsk | ToolPolicy::Disabled => true,
        ToolPolicy::NeverAsk => false,
        ToolPolicy::Default => !(config.trust_read_only_hints && tool.read_only_hint == Some(true)),
    }
}

/// `destructiveHint: true` is high risk, `readOnlyHint: true` low, anything else medium.
/// (A read-only tool cannot be destructive, so the read-only hint wins if both are set.)
pub fn risk(tool: &RemoteTool) -> Risk {
    if tool.read_only_hint == Some(true) {
        Risk::Low
    } else if tool.destructive_hint == Some(true) {
        Risk::High
    } else {
        Risk::Medium
    }
}

/// `server__tool`, with characters providers reject replaced by `_`, at most 64 characters.
pub fn qualified_name(server: &str, tool: &str) -> String {
    let mut name = format!("{server}__");
    for c in tool.chars() {
        if name.len() >= MAX_TOOL_NAME_LEN {
            break;
        }
        name.push(if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' });
    }
    name
}

/// The settings page's view of one tool.
pub fn tool_status(config: &McpServerConfig, tool: &RemoteTool, offline: bool) -> McpToolStatus {
    McpToolStatus {
        name: tool.name.clone(),
        qualified_name: qualified_name(&config.name, &tool.name),
        title: tool.title.clone(),
        description: tool.description.clone(),
        read_only_hint: tool.read_only_hint == Some(true),
        destructive_hint: tool.destructive_hint == Some(true),
        policy: config.policy(&tool.name),
        offline,
        needs_approval: needs_approval(config, tool),
        risk: risk(tool),
    }
}
