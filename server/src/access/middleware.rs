//! The gate every request passes, in this order: the `Host` must be allowed (403), a state-changing
//! request must come from an allowed origin (403), and then it must carry the token or the session
//! cookie (401) unless it is `/api/health` or a static file. `GET <page>?token=…` is the sign-in link.
//! The outside clients' routes (`api::outside::is_client_route`) need an allowed origin whatever
//! their method, and then their route checks the client's own token instead of the person's.

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::credentials::{bearer, query_token, unauthorized as unauthorized_api};
use super::sign_in_page::{self, Reason};
use super::Access;
use crate::api::ApiError;

/// Paths anyone on an allowed host may call.
const PUBLIC_PATHS: &[&str] = &["/api/health"];

pub async fn guard(State(access): State<Access>, request: Request, next: Next) -> Response {
    if !host_allowed(&access, &request) {
        return ApiError::new(
            StatusCode::FORBIDDEN,
            "host_not_allowed",
            "this server does not answer to that host name (see WARDEN_ALLOWED_HOSTS)",
        )
        .into_response();
    }
    if crate::api::outside::is_client_route(request.method(), request.uri().path()) {
        if !origin_allowed(&access, request.headers()) {
            return cross_origin();
        }
        return next.run(request).await;
    }
    let changes_state = !matches!(*request.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if changes_state && !origin_allowed(&access, request.headers()) {
        return cross_origin();
    }
    let path = request.uri().path();
    let is_api = path.starts_with("/api/");
    if PUBLIC_PATHS.contains(&path) {
        return next.run(request).await;
    }
    if !is_api && matches!(*request.method(), Method::GET | Method::HEAD) {
        if let Some(given) = query_token(request.uri().query()) {
            return sign_in(&access, &request, &given);
        }
    }
    match bearer(request.headers()) {
        Some(Ok(given)) if access.token().matches(given) => return next.run(request).await,
        // A wrong or malformed bearer is refused even if a cookie would pass: the caller meant the header.
        Some(_) => return unauthorized_api("the bearer token is not valid for this server"),
        None => {}
    }
    if access.session().is_signed_in(request.headers()) {
        return next.run(request).await;
    }
    if matches!(*request.method(), Method::GET | Method::HEAD) && access.is_static_file(path) {
        return next.run(request).await;
    }
    if is_api || changes_state {
        unauthorized_api(
            "sign in first: send `Authorization: Bearer <token>` or open the sign-in link the server printed",
        )
    } else {
        sign_in_page::response(Reason::NotSignedIn)
    }
}

/// The host the request is addressed to: the URI's authority (absolute-form requests), else `Host`.
fn host_allowed(access: &Access, request: &Request) -> bool {
    let host = match request.uri().authority() {
        Some(authority) => Some(authority.as_str()),
        None => request.headers().get(header::HOST).and_then(|v| v.to_str().ok()),
    };
    host.is_some_and(|h| access.hosts().allows_host(h))
}

/// Browsers say where a request comes from; a cross-site one, or one whose `Origin` is not an
/// allowed host on our port, may not change anything. Requests without either header (curl, API
/// clients) pass here and still need the token.
fn origin_allowed(access: &Access, headers: &HeaderMap) -> bool {
    if headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) == Some("cross-site") {
        return false;
    }
    match headers.get(header::ORIGIN) {
        None => true,
        Some(origin) => origin.to_str().is_ok_and(|o| access.hosts().allows_origin(o)),
    }
}

/// Right token: set the session cookie and send the browser to the same page without the token
/// (303, so the token leaves the address bar and history). Wrong: the sign-in page, nothing set.
fn sign_in(access: &Access, request: &Request, given: &str) -> Response {
    if !access.token().matches(given) {
        tracing::warn!(path = %request.uri().path(), "sign-in link with a wrong token");
        return sign_in_page::response(Reason::WrongToken);
    }
    let rest: Vec<(String, String)> = form_urlencoded::parse(request.uri().query().unwrap_or("").as_bytes())
        .filter(|(k, _)| k != "token")
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    let mut location = request.uri().path().to_string();
    if !rest.is_empty() {
        location.push('?');
        location.push_str(&form_urlencoded::Serializer::new(String::new()).extend_pairs(rest).finish());
    }
    // Paths starting `//` would be read as another host by the browser.
    if location.starts_with("//") {
        location = "/".to_string();
    }
    let location = HeaderValue::from_str(&location).unwrap_or_else(|_| HeaderValue::from_static("/"));
    let mut response = (
        StatusCode::SEE_OTHER,
        [(header::LOCATION, location), (header::CACHE_CONTROL, HeaderValue::from_static("no-store"))],
    )
        .into_response();
    let (name, value) = access.session().set_cookie();
    response.headers_mut().insert(name, value);
    response
}

fn cross_origin() -> Response {
    ApiError::new(StatusCode::FORBIDDEN, "cross_origin", "cross-origin requests may not change anything")
        .into_response()
}
