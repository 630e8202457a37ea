//! Warden's MCP connectors: users bring their own tools as MCP servers (stdio child processes or
//! Streamable HTTP). [`McpHub`] stores their configs, keeps them connected with rmcp, and offers
//! their tools to the agent as engine `Tool`s gated by the approval machinery.

mod client;
pub mod config;
mod connect;
pub mod error;
mod hub;
pub mod mcp_servers_json;
pub mod model;
pub mod policy;
pub mod redact;
mod registry;
mod result;
mod store;
mod supervisor;
mod tool;

pub use config::{McpServerConfig, ToolPolicy, Transport, Validate};
pub use connect::{MAX_TOOLS_PER_SERVER, MAX_TOOL_PAGES};
pub use error::{Error, Result};
pub use hub::{McpHub, CONFIG_ENV};
pub use model::{McpServerStatus, McpToolStatus, RemoteTool, ServerInfo, ServerProbe, ServerState};
pub use result::ResultLimits;
pub use store::{McpStore, MIGRATIONS_TABLE};
pub use tool::CALL_ID_META_KEY;
