//! The engine the server functions call, handed to the Leptos routes as context by the server binary.

/// The engine from context, or an internal error where the server did not provide it.
pub(crate) fn engine() -> Result<warden_engine::Engine, crate::error::AppError> {
    leptos::prelude::use_context::<warden_engine::Engine>()
        .ok_or_else(|| crate::error::AppError::internal("the engine was not provided as Leptos context"))
}
