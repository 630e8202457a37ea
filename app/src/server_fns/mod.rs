//! Server functions: thin calls into the engine (taken from context) whose results are mapped to the
//! UI's view types in `crate::model`. Grouped by area; the browser calls them over HTTP, SSR directly.

pub mod mcp;
pub mod runs;
pub mod threads;

pub use runs::*;
pub use threads::*;

/// The engine handed to the Leptos routes as context by the server binary.
#[cfg(feature = "ssr")]
pub(crate) fn engine() -> Result<warden_engine::Engine, crate::error::AppError> {
    leptos::prelude::use_context::<warden_engine::Engine>()
        .ok_or_else(|| crate::error::AppError::internal("the engine was not provided as Leptos context"))
}

/// Converts an engine value to its view type through their shared JSON shape.
#[cfg(feature = "ssr")]
pub(crate) fn mirror<T, V>(value: &T) -> Result<V, crate::error::AppError>
where
    T: serde::Serialize,
    V: serde::de::DeserializeOwned,
{
    serde_json::to_value(value).and_then(serde_json::from_value).map_err(|error| {
        crate::error::AppError::internal(format_args!(
            "engine value does not fit its view type {}: {error}",
            std::any::type_name::<V>()
        ))
    })
}
