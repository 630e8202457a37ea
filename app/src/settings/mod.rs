//! The settings page and its sections: model providers, MCP servers, outside clients and their
//! policy, executors, people, your account, notifications, the signed-in browsers, and importing a thread.

pub mod executors;
pub mod mcp;
pub mod notifications;
pub mod outside;
pub mod page;
pub mod people;
pub mod policies;
pub mod providers;
pub mod section_ui;
pub mod signed_in_browsers;
pub mod thread_import;
