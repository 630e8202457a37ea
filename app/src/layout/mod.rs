//! The frame around every page: the sidebar (threads, search, the inbox link, the theme),
//! the global keyboard shortcuts and their dialog, and the page for an unknown address.

pub mod app_layout;
pub mod inbox_link;
pub mod not_found;
pub mod shortcuts_dialog;
pub mod sidebar;
pub mod thread_item;
pub mod thread_list;
pub mod thread_row_state;
pub mod thread_search;
