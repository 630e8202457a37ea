//! Server functions: thin calls into the engine (taken from context) whose results are the
//! records of warden-types the UI shows as they are. Grouped by area; the browser calls them over HTTP, SSR directly.

pub mod approvals;
#[cfg(feature = "ssr")]
pub mod asker;
pub mod audit;
pub mod codec;
pub mod connection_checks;
#[cfg(feature = "ssr")]
mod engine;
pub mod inbox;
pub mod mcp;
pub mod notifications;
pub mod outside;
pub mod outside_executors;
pub mod outside_linked;
pub mod people;
pub mod policies;
pub mod providers;
pub mod runs;
pub mod sent;
pub mod sessions;
pub mod sharing;
pub mod threads;

pub use approvals::*;
pub use connection_checks::*;
#[cfg(feature = "ssr")]
use engine::engine;
pub use providers::*;
pub use runs::*;
pub use threads::*;
