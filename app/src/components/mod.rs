//! Reusable pieces of the pages.

pub mod approval_card;
pub mod audit_row;
pub mod composer;
pub mod error_notice;
pub mod mcp_actions;
pub mod mcp_form_fields;
pub mod mcp_import_export;
pub mod mcp_server_card;
pub mod mcp_server_form;
pub mod mcp_tool_table;
pub mod message_view;
pub mod offline_server;
pub mod outside_client_row;
pub mod outside_clients;
pub mod outside_policy;
pub mod rules_panel;
pub mod run_status;
pub mod sidebar;
pub mod thread_item;
pub mod thread_list;
pub mod thread_view;
pub mod timestamp;
pub mod token_reveal;
pub mod tool_call_view;
