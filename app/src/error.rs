//! The one error type every server function returns. It crosses the wire as JSON, so it carries
//! only what a person may see; internal failures are logged on the server with an error id and
//! reported as `Internal` with that id alone.

use leptos::server_fn::codec::JsonEncoding;
use leptos::server_fn::error::{FromServerFnError, ServerFnErrorErr};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
pub enum AppError {
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    Conflict(String),
    /// The person asking may not do this.
    #[error("{0}")]
    Forbidden(String),
    /// Warden is not set up for this yet (no model configured); the text says what to set.
    #[error("{0}")]
    Unavailable(String),
    /// Something Warden called failed (the model provider, an MCP server).
    #[error("{0}")]
    Upstream(String),
    #[error("Something went wrong on the server (error id {0}); the details are in its log.")]
    Internal(String),
    #[error("{0}")]
    Transport(String),
}

impl FromServerFnError for AppError {
    type Encoder = JsonEncoding;

    fn from_server_fn_error(value: ServerFnErrorErr) -> Self {
        // On the server these come from reading the request: the caller sent arguments that do not
        // parse, which is bad input (422), not a failure of the server.
        #[cfg(feature = "ssr")]
        if let ServerFnErrorErr::Args(why)
        | ServerFnErrorErr::MissingArg(why)
        | ServerFnErrorErr::Deserialization(why) = &value
        {
            return AppError::Invalid(format!("The arguments are not valid: {why}")).answer();
        }
        AppError::Transport(value.to_string())
    }
}

#[cfg(feature = "ssr")]
impl AppError {
    /// The HTTP status this error stands for: from its kind, by the engine's one table
    /// (`ErrorKind::status`), which the JSON API uses too.
    pub fn status(&self) -> http::StatusCode {
        self.kind().status()
    }

    pub fn kind(&self) -> warden_types::ErrorKind {
        use warden_types::ErrorKind as K;
        match self {
            AppError::NotFound(_) => K::NotFound,
            AppError::Invalid(_) => K::Invalid,
            AppError::Conflict(_) => K::Conflict,
            AppError::Forbidden(_) => K::Forbidden,
            AppError::Unavailable(_) => K::Unavailable,
            AppError::Upstream(_) => K::Upstream,
            AppError::Internal(_) | AppError::Transport(_) => K::Internal,
        }
    }

    /// The error of `kind` a person sees, answering the server function being handled with the
    /// kind's status; an internal one shows only an id and `error` goes to the log.
    pub fn of_kind(kind: warden_types::ErrorKind, error: &dyn std::fmt::Display) -> Self {
        use warden_types::ErrorKind as K;
        let message = || error.to_string();
        let app_error = match kind {
            K::NotFound => AppError::NotFound(message()),
            K::Conflict => AppError::Conflict(message()),
            K::Invalid => AppError::Invalid(message()),
            K::Forbidden => AppError::Forbidden(message()),
            K::Unavailable => AppError::Unavailable(message()),
            K::Upstream => AppError::Upstream(message()),
            K::Internal => AppError::internal(error),
        };
        app_error.answer()
    }

    /// An internal failure: `cause` goes to the log with a new error id, the person sees the id.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        let error_id = warden_db::new_id();
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
        AppError::of_kind(error.kind(), &error)
    }
}

#[cfg(feature = "ssr")]
impl From<warden_mcp::Error> for AppError {
    fn from(error: warden_mcp::Error) -> Self {
        AppError::of_kind(error.kind(), &error)
    }
}

#[cfg(feature = "ssr")]
impl From<warden_people::Error> for AppError {
    fn from(error: warden_people::Error) -> Self {
        AppError::of_kind(error.kind(), &error)
    }
}

#[cfg(feature = "ssr")]
impl From<warden_outside::Error> for AppError {
    fn from(error: warden_outside::Error) -> Self {
        AppError::of_kind(error.kind(), &error)
    }
}

#[cfg(feature = "ssr")]
impl From<warden_outside::audit::AuditError> for AppError {
    fn from(error: warden_outside::audit::AuditError) -> Self {
        AppError::of_kind(error.kind(), &error)
    }
}
