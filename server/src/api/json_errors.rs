//! Rejections that axum and tower-http answer in plain text (a query or path that does not parse,
//! a body over the limit, a wrong method or content type) turned into the API's documented JSON
//! error, `{"error": {"code", "message"}}`. Only `/api/` answers are rewritten, plus every 413.

use axum::extract::Request;
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::ApiError;

/// How much of a plain-text rejection is kept as the message.
const MAX_MESSAGE_BYTES: usize = 4096;

pub async fn json_errors(request: Request, next: Next) -> Response {
    let api = request.uri().path().starts_with("/api/");
    let response = next.run(request).await;
    let status = response.status();
    let Some(code) = code_for(status) else { return response };
    if !(api || status == StatusCode::PAYLOAD_TOO_LARGE) || is_json(&response) {
        return response;
    }
    let (parts, body) = response.into_parts();
    let text = match axum::body::to_bytes(body, MAX_MESSAGE_BYTES).await {
        Ok(bytes) => String::from_utf8_lossy(&bytes).trim().to_string(),
        Err(_) => String::new(),
    };
    let message = if text.is_empty() { status.canonical_reason().unwrap_or("bad request").to_string() } else { text };
    let mut out = ApiError::new(status, code, message).into_response();
    if let Some(allow) = parts.headers.get(header::ALLOW) {
        out.headers_mut().insert(header::ALLOW, allow.clone());
    }
    out
}

fn code_for(status: StatusCode) -> Option<&'static str> {
    Some(match status {
        StatusCode::BAD_REQUEST => "bad_request",
        StatusCode::METHOD_NOT_ALLOWED => "method_not_allowed",
        StatusCode::PAYLOAD_TOO_LARGE => "payload_too_large",
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
        StatusCode::UNPROCESSABLE_ENTITY => "invalid_request",
        _ => return None,
    })
}

fn is_json(response: &Response) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("application/json"))
}
