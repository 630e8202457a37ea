//! Same-origin check for state-changing requests: a page on another site must not be able to
//! create, change or decide anything. Requests without an `Origin` (curl, outside agents) pass;
//! browsers always send one on cross-site POST/PATCH/DELETE.

use axum::extract::Request;
use axum::http::{header, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::ApiError;

pub async fn require_same_origin(request: Request, next: Next) -> Response {
    if matches!(*request.method(), Method::GET | Method::HEAD | Method::OPTIONS) {
        return next.run(request).await;
    }
    let headers = request.headers();
    if headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) == Some("cross-site") {
        return forbidden();
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("");
        let origin_host = origin
            .to_str()
            .ok()
            .and_then(|o| o.split_once("://"))
            .map(|(_, rest)| rest.trim_end_matches('/'))
            .unwrap_or("\u{0}");
        if origin_host != host {
            return forbidden();
        }
    }
    next.run(request).await
}

fn forbidden() -> Response {
    ApiError::new(StatusCode::FORBIDDEN, "cross_origin", "cross-origin requests may not change anything").into_response()
}
