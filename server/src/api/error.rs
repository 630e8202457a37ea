//! The API's error: engine and MCP errors mapped to HTTP statuses by their kind with a JSON body
//! (`{"error": {"code", "message"}}`). 5xx bodies say nothing internal: they carry an error id,
//! and the cause goes to the log under the same id.

use axum::extract::rejection::JsonRejection;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use warden_engine::Error;
use warden_types::ErrorKind;

#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
    /// Sent as `Retry-After` (seconds) with a 429 that waiting helps.
    retry_after: Option<u64>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self { status, code, message: message.into(), retry_after: None }
    }

    pub fn unprocessable(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_request", message)
    }

    pub fn bad_request(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, code, message)
    }

    /// A 500 whose body names only an error id; `cause` is logged with that id.
    pub fn internal(cause: &dyn std::fmt::Display) -> Self {
        let error_id = warden_db::new_id();
        tracing::error!(error_id = %error_id, error = %cause, "internal error");
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            format!("internal error (id {error_id}); the details are in the server log"),
        )
    }

    pub fn status(&self) -> StatusCode {
        self.status
    }
}

impl ApiError {
    /// An error of `kind` with the public `code`: its status comes from the kind
    /// ([`ErrorKind::status`], the same table the server functions use); an internal one says only
    /// its id and `error` goes to the log.
    pub fn of_kind(kind: ErrorKind, code: &'static str, error: &dyn std::fmt::Display) -> Self {
        match kind {
            ErrorKind::Internal => Self::internal(error),
            _ => Self::new(kind.status(), code, error.to_string()),
        }
    }
}

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        Self::of_kind(e.kind(), e.code(), &e)
    }
}

impl From<warden_mcp::Error> for ApiError {
    fn from(e: warden_mcp::Error) -> Self {
        Self::of_kind(e.kind(), e.code(), &e)
    }
}

impl From<warden_reach::Error> for ApiError {
    fn from(e: warden_reach::Error) -> Self {
        Self::of_kind(e.kind(), "internal", &e)
    }
}

impl From<warden_people::Error> for ApiError {
    fn from(e: warden_people::Error) -> Self {
        Self::of_kind(e.kind(), e.code(), &e)
    }
}

/// A refused frame keeps its protocol code (`malformed`, `too_large`, `id_reused`, …) with its status.
impl From<warden_outside::Error> for ApiError {
    fn from(e: warden_outside::Error) -> Self {
        use warden_outside::protocol::ErrorCode;
        if let Some(retry_after) = e.limited() {
            // A per-client bound: 429, with when to try again if waiting is what helps.
            let message = match &e {
                warden_outside::Error::Frame(frame) => frame.message.clone(),
                _ => e.to_string(),
            };
            let mut error = Self::new(StatusCode::TOO_MANY_REQUESTS, e.code(), message);
            error.retry_after = retry_after.map(|d| d.as_secs().max(1));
            return error;
        }
        match &e {
            warden_outside::Error::Unauthorized => Self::new(StatusCode::UNAUTHORIZED, e.code(), e.to_string()),
            warden_outside::Error::Frame(frame) if frame.code != ErrorCode::Internal => {
                Self::new(super::outside::frame_status(frame.code), e.code(), frame.message.clone())
            }
            _ => Self::of_kind(e.kind(), e.code(), &e),
        }
    }
}

/// A `before` that is not a position in its list is a 422 that says what it must be.
impl From<warden_types::cursor::CursorError> for ApiError {
    fn from(e: warden_types::cursor::CursorError) -> Self {
        Self::unprocessable(e.to_string())
    }
}

/// A body that is not the JSON asked for is a 422; one over the size limit keeps its 413.
impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> Self {
        if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
            return Self::new(StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large", r.body_text());
        }
        Self::unprocessable(r.body_text())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = Json(json!({ "error": { "code": self.code, "message": self.message } }));
        match self.retry_after {
            Some(secs) => (self.status, [(axum::http::header::RETRY_AFTER, secs.to_string())], body).into_response(),
            None => (self.status, body).into_response(),
        }
    }
}

pub type ApiResult<T> = Result<T, ApiError>;
