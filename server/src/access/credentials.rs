//! Reading credentials off a request, for the person's gate (`middleware`) and the outside clients'
//! routes alike: the bearer header, a token in the address, and the 401 both answer with.

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::api::ApiError;

/// `Some(Ok(token))` for `Authorization: Bearer <token>`, `Some(Err)` for another or malformed
/// `Authorization`, `None` without one.
pub fn bearer(headers: &HeaderMap) -> Option<Result<&str, ()>> {
    let value = headers.get(header::AUTHORIZATION)?;
    let Ok(text) = value.to_str() else { return Some(Err(())) };
    Some(match text.split_once(' ') {
        Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => Ok(token.trim()),
        _ => Err(()),
    })
}

/// The `token` of a query string (decoded), if it has one.
pub fn query_token(query: Option<&str>) -> Option<String> {
    form_urlencoded::parse(query?.as_bytes()).find(|(k, _)| k == "token").map(|(_, v)| v.into_owned())
}

/// 401 `unauthorized` with `WWW-Authenticate: Bearer`.
pub fn unauthorized(message: &str) -> Response {
    let mut response = ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", message).into_response();
    response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    response
}
