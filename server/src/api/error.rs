//! The API's error: engine errors mapped to HTTP statuses with a JSON body. 5xx bodies say
//! nothing internal; the cause goes to the log.

use axum::extract::rejection::JsonRejection;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use warden_engine::Error;

#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self { status, code, message: message.into() }
    }

    pub fn unprocessable(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_request", message)
    }
}

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        match &e {
            Error::NotFound { .. } => Self::new(StatusCode::NOT_FOUND, "not_found", e.to_string()),
            Error::AlreadyDecided(_) => Self::new(StatusCode::CONFLICT, "already_decided", e.to_string()),
            Error::RunInProgress => Self::new(StatusCode::CONFLICT, "run_in_progress", e.to_string()),
            Error::Invalid(_) => Self::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_request", e.to_string()),
            Error::InvalidArguments(_) => Self::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_arguments", e.to_string()),
            Error::NoModel => Self::new(StatusCode::SERVICE_UNAVAILABLE, "no_model", e.to_string()),
            Error::Provider(_) => Self::new(StatusCode::BAD_GATEWAY, "model_error", e.to_string()),
            Error::Sqlx(_) | Error::Migrate(_) | Error::Corrupt(_) | Error::Io(_) => {
                tracing::error!(error = %e, "internal error");
                Self::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", "internal error; see the server log")
            }
        }
    }
}

impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> Self {
        Self::unprocessable(r.body_text())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(json!({ "error": { "code": self.code, "message": self.message } }))).into_response()
    }
}

pub type ApiResult<T> = Result<T, ApiError>;
