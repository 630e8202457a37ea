//! Warden's engine: the agent loop, model providers, tools, approvals and the SQLite store.
//! It knows nothing about the UI; `app/` and `server/` are thin layers over it.
//!
//! Where things happen: a run is driven by `run::driver`; a new tool call is decided in
//! `approval::gate`; every approval (a person's decision, a timeout, a stopped run) is settled by
//! `approval::lifecycle::Lifecycle::settle`, and the runtime (`run::runtime::approvals`) wakes the
//! run when that says it can resume. The driver works with `run::handles::RunHandles`, never the
//! runtime itself. Records come from `warden-types`; the store imports nothing
//! from `run` or `approval`, and the top-level modules import one another without a circle.

pub mod approval;
pub mod config;
pub mod database;
pub mod engine;
pub mod error;
pub mod events;
pub mod input;
pub mod llm;
pub mod message;
mod outcome_text;
pub mod run;
mod run_thread;
pub mod store;
pub mod thread;
pub mod toolbox;
pub mod tools;

pub use database::Database;
pub use engine::{Engine, ModelStatus, RunStarted};
pub use error::{Error, ErrorKind, Result};
