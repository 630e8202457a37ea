//! The one error type every server function returns. It crosses the wire as JSON, so it carries
//! only what a person may see; internal failures are logged on the server with an error id and
//! reported as `Internal` with that id alone.

use serde::{Deserialize, Serialize};
use leptos::server_fn::codec::JsonEncoding;
use leptos::server_fn::error::{FromServerFnError, ServerFnErrorErr};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
pub enum AppError {
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    Conflict(String),
    #[error("No model is configured. Set OPENAI_BASE_URL (and OPENAI_API_KEY, WARDEN_MODEL), then restart.")]
    NoModel,
    #[error("Something went wrong on the server (error id {0}); the details are in its log.")]
    Internal(String),
    #[error("{0}")]
    Transport(String),
}

impl FromServerFnError for AppError {
    type Encoder = JsonEncoding;

    fn from_server_fn_error(value: ServerFnErrorErr) -> Self {
        AppError::Transport(value.to_string())
    }
}

#[cfg(feature = "ssr")]
impl AppError {
    /// The HTTP status this error stands for.
    pub fn status(&self) -> http::StatusCode {
        use http::StatusCode as S;
        match self {
            AppError::NotFound(_) => S::NOT_FOUND,
            AppError::Invalid(_) => S::UNPROCESSABLE_ENTITY,
            AppError::Conflict(_) => S::CONFLICT,
            AppError::NoModel => S::SERVICE_UNAVAILABLE,
            AppError::Internal(_) | AppError::Transport(_) => S::INTERNAL_SERVER_ERROR,
        }
    }

    /// An internal failure: `cause` goes to the log with a new error id, the person sees the id.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        let error_id = warden_engine::store::new_id();
        tracing::error!(error_id = %error_id, error = %cause, "server function failed");
        AppError::Internal(error_id)
    }

    /// The error as the answer of the server function being handled: its response gets the
    /// error's status (server functions answer every error with 500 otherwise).
    pub fn answer(self) -> Self {
        if let Some(response) = leptos::prelude::use_context::<leptos_axum::ResponseOptions>() {
            response.set_status(self.status());
        }
        self
    }
}

#[cfg(feature = "ssr")]
impl From<warden_engine::Error> for AppError {
    fn from(error: warden_engine::Error) -> Self {
        use warden_engine::Error as E;
        let error = match error {
            E::NotFound { .. } => AppError::NotFound(error.to_string()),
            E::AlreadyDecided(_) | E::RunInProgress => AppError::Conflict(error.to_string()),
            E::Invalid(_) | E::InvalidArguments(_) => AppError::Invalid(error.to_string()),
            E::NoModel => AppError::NoModel,
            other => AppError::internal(format_args!("engine call failed: {other}")),
        };
        error.answer()
    }
}
