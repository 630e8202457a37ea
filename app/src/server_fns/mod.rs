//! Server functions: thin calls into the engine (taken from context) whose results are the
//! records of warden-types the UI shows as they are. Grouped by area; the browser calls them over HTTP, SSR directly.

pub mod approvals;
pub mod audit;
pub mod codec;
pub mod connection_checks;
pub mod inbox;
pub mod mcp;
pub mod outside;
pub mod outside_executors;
pub mod outside_linked;
pub mod providers;
pub mod runs;
pub mod sessions;
pub mod threads;

pub use approvals::*;
pub use connection_checks::*;
pub use providers::*;
pub use runs::*;
pub use threads::*;

/// The engine handed to the Leptos routes as context by the server binary.
#[cfg(feature = "ssr")]
pub(crate) fn engine() -> Result<warden_engine::Engine, crate::error::AppError> {
    leptos::prelude::use_context::<warden_engine::Engine>()
        .ok_or_else(|| crate::error::AppError::internal("the engine was not provided as Leptos context"))
}
