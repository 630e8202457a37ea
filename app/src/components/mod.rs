//! Reusable pieces of the pages.

pub mod approval_card;
pub mod composer;
pub mod error_notice;
pub mod mcp_actions;
pub mod mcp_form_fields;
pub mod mcp_import_export;
pub mod mcp_server_card;
pub mod mcp_server_form;
pub mod mcp_tool_table;
pub mod message_view;
pub mod model_picker;
pub mod offline_server;
pub mod provider_actions;
pub mod provider_card;
pub mod provider_fields;
pub mod provider_form;
pub mod provider_probe;
pub mod providers_section;
pub mod rules_panel;
pub mod run_status;
pub mod sidebar;
pub mod thread_item;
pub mod thread_list;
pub mod thread_switches;
pub mod thread_view;
pub mod tool_call_view;
