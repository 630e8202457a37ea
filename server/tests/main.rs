//! The server's integration tests: the whole Axum app over real HTTP, and the real binary where a test kills it.
//!
//! One test binary per crate, not one per file: every binary links the whole dependency tree, so a
//! binary per file cost a link and about 100 MB of disk each.
#![allow(
    clippy::unwrap_used,
    reason = "test code: a test fails where it unwraps; clippy.toml's allow-unwrap-in-tests covers only #[test] fns, not the helpers"
)]

mod common;

mod access;
mod api;
mod app_state;
mod audit;
mod channels;
mod connection_checks;
mod crash;
mod decision_links;
mod edge;
mod error_status;
mod inbox;
mod mcp_api;
mod notifying;
mod outside_access;
mod outside_claude_code;
mod outside_dial;
mod outside_linked;
mod outside_mcp;
mod outside_owners;
mod outside_quotas;
mod outside_restart;
mod outside_routing;
mod outside_ws;
mod pages;
mod people;
mod private_files;
mod roles;
mod routing;
mod server_fns;
mod sessions;
mod sharing;
mod sign_in;
mod static_files;
