//! Settings: the MCP servers (add, edit, import and export, their tools).

pub mod actions;
pub mod form_fields;
pub mod import_export;
pub mod section;
pub mod server_card;
pub mod server_form;
pub mod tool_table;
