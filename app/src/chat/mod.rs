//! The chat: a thread's messages and tool calls, their approvals, the composer, the live run and
//! the outside requests linked to the thread; and the welcome page, which starts a chat.

pub mod approval_card;
pub mod auto_scroll;
pub mod composer;
pub mod connection_check_card;
pub mod linked_outside;
pub mod linked_request_card;
pub mod live_run;
pub mod message_view;
pub mod model_picker;
pub mod offline_server;
pub mod page;
pub mod rules_panel;
pub mod run_status;
pub mod run_stream;
pub mod sandbox;
pub mod scroll_anchor;
pub mod share_control;
pub mod thread_switches;
pub mod thread_view;
pub mod tool_call_view;
pub mod welcome;
