//! The engine's integration tests: the real engine on a real SQLite file, the real provider over HTTP to
//! the scripted fixture model, real processes in the sandbox.
//!
//! One test binary per crate, not one per file: every binary links the whole dependency tree, so a
//! binary per file cost a link and about 100 MB of disk each.
#![allow(
    clippy::unwrap_used,
    reason = "test code: a test fails where it unwraps; clippy.toml's allow-unwrap-in-tests covers only #[test] fns, not the helpers"
)]

mod common;

mod approval_binding;
mod approvals;
mod bounds;
mod branches;
mod chat;
mod file_tools;
mod find_and_keep;
mod long_results;
mod long_threads;
mod network_grant;
mod private_files;
mod providers;
mod revoked_rules;
mod rule_bypasses;
mod text_tool_calls;
mod thread_rules;
mod thread_switches;
mod tool_search;
mod wrapper_rules;
