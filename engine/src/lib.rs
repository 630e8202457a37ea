//! Warden's engine: the agent loop, model providers, tools, approvals and the SQLite store.
//! It knows nothing about the UI; `app/` and `server/` are thin layers over it.
//!
//! Where things happen: a run is driven by `run::driver`; a new tool call is decided in
//! `approval::gate`; a person's decision is applied in `approval::decide`.

pub mod approval;
pub mod config;
pub mod engine;
pub mod error;
pub mod llm;
pub mod message;
pub mod run;
pub mod run_thread;
pub mod runtime;
pub mod store;
pub mod thread;
pub mod toolbox;
pub mod tools;

pub use engine::{Engine, ModelStatus, RunStarted};
pub use error::{Error, Result};
