//! Warden's engine: the agent loop, model providers, tools, approvals and the SQLite store.
//! It knows nothing about the UI; `app/` and `server/` are thin layers over it.
//!
//! Where things happen: a run is driven by `run::driver`; a new tool call is decided in
//! `approval::gate`; every approval (a person's decision, a timeout, a stopped run) is settled by
//! `approval::lifecycle::Lifecycle::settle`, and the runtime (`run::runtime::approvals`) wakes the
//! run when that says it can resume. The driver works with `run::handles::RunHandles`, never the
//! runtime itself. Outside the crate only `Engine`, its settings, errors, providers and tools are
//! public. Records come from `warden-types`; the store imports nothing
//! from `run` or `approval`, and the top-level modules import one another without a circle.

mod access;
mod approval;
mod as_reader;
pub mod branches;
pub mod code_highlight;
pub mod config;
mod connection;
mod engine;
mod error;
mod events;
pub mod input;
mod markdown;
mod message;
mod outcome_text;
pub mod providers;
mod run;
mod run_thread;
mod shown;
mod store;
mod thread;
pub mod toolbox;
pub mod transfer;

/// What a thread rule ("allow for this thread") covers: the rule a decision leaves, and whether a
/// call matches one.
pub mod rules {
    pub use crate::approval::rules::{rule_for, rule_matches};
}

pub use access::ThreadAccess;
pub use as_reader::AsReader;
pub use engine::{Engine, ModelStatus, RunStarted, SandboxStatus};
pub use error::{Error, Result};
pub use events::RunEventRecord;
pub use store::PendingInThread;
pub use thread::{MESSAGES_KEPT_ON_REREAD, MESSAGES_PER_PAGE};
pub use warden_types::person::Reader;
