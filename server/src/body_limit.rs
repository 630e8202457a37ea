//! How large a request body may be: 2 MiB, except a thread being imported (32 MiB; an export carries
//! every tool output), by the API or by the sidebar's server function. A larger body is a 413 before
//! any of it is read when its length is declared, and when the stream passes the limit otherwise.

use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Request};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::Limited;
use leptos::server_fn::ServerFn;
use tower::{Layer, ServiceExt};
use warden_app::server_fns::ImportThread;

/// The largest request body accepted anywhere else (API and server functions).
pub const MAX_BODY_BYTES: usize = 2 * 1024 * 1024;

/// The largest thread export accepted for import.
pub const MAX_IMPORT_BYTES: usize = 32 * 1024 * 1024;

/// The limit for a request to `path`.
pub fn limit_for(path: &str) -> usize {
    if path == "/api/threads/import" || path == ImportThread::PATH {
        MAX_IMPORT_BYTES
    } else {
        MAX_BODY_BYTES
    }
}

/// Middleware: the rest of the stack sees a body no larger than its path's limit (a declared length
/// over it is refused here; a stream that passes it fails to read, which axum answers with a 413).
/// axum's own 2 MB default is switched off: the limit is decided here, once (a route may still set a
/// smaller one, as the outside clients' routes do).
pub async fn limit(request: Request, next: Next) -> Response {
    let limit = limit_for(request.uri().path());
    let declared =
        request.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|length| length > limit as u64) {
        return (StatusCode::PAYLOAD_TOO_LARGE, "length limit exceeded").into_response();
    }
    let request = request.map(|body| Body::new(Limited::new(body, limit)));
    match DefaultBodyLimit::disable().layer(next).oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}
