//! Runs: one agent loop started by a user message. The events a run emits, its records, and the
//! machinery that drives it (`driver`), fans its events out (`events`) and tracks live runs (`manager`).

pub mod call_plan;
pub mod connection_checks;
pub mod conversation;
pub mod driver;
pub mod handles;
pub mod long_results;
pub mod runtime;
pub mod title;
pub mod tool_set;

pub use crate::events::RunEventRecord;
pub use warden_types::event::RunEvent;
pub use warden_types::run::{RunStatus, RunSummary, ToolCallRecord, ToolCallStatus};
