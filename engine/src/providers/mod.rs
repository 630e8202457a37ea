//! Which model answers a run. Providers come from three places: the environment (read-only entries
//! `env-openai`, `env-anthropic`, `env-gemini`), Settings (stored rows), and the built-in model
//! (`local`). A thread may choose a provider and model; a run records the choice it started with and
//! keeps it across restarts; a thread without a choice uses the default (the provider `WARDEN_MODEL`
//! names, else the first configured one, else the built-in model).
//!
//! Keys stay here: entries shown to anyone carry them masked, and a stored key is only ever sent to
//! the kind of API and the address it was entered for (`input::to_stored`).

mod build;
mod entries;
mod input;
mod registry;

pub use build::{build, BuildSettings};
pub use registry::{Providers, FIXED_ID, LOCAL_ID};
