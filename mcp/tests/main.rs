//! The MCP connectors' integration tests: real MCP servers (the rmcp fixture and published ones) over stdio
//! and Streamable HTTP, behind the real engine.
//!
//! One test binary per crate, not one per file: every binary links the whole dependency tree, so a
//! binary per file cost a link and about 100 MB of disk each.
#![allow(
    clippy::unwrap_used,
    reason = "test code: a test fails where it unwraps; clippy.toml's allow-unwrap-in-tests covers only #[test] fns, not the helpers"
)]

mod common;

mod agent_loop;
mod config_and_storage;
mod connection_check;
mod http_transport;
mod offline_marker;
mod own_migrations;
mod published_server;
mod result_limits;
mod secrets;
mod stdio_sandbox;
mod stdio_tools;
mod tool_limits;
mod tool_search;
