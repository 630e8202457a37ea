//! The gate every request passes, in this order: the `Host` must be allowed (403), a state-changing
//! request must come from an allowed origin (403), then it must carry the token or a live session's
//! cookie (401) unless it is `/api/health` or a static file, and a server function must be a JSON
//! `POST` (415). `GET <page>?token=…` is the sign-in link: it starts a new session. An event stream a
//! session opened ends when that session is signed out.
//! The outside clients' routes (`api::outside::is_client_route`) need an allowed origin whatever
//! their method, and then their route checks the client's own token instead of the person's.

use axum::body::Body;
use axum::extract::connect_info::ConnectInfo;
use axum::extract::{FromRequest, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::{Form, Json};
use futures::StreamExt;
use tokio::sync::broadcast::error::RecvError;
use warden_sessions::{Sessions, SignedIn};
use warden_types::id::PersonId;

use super::credentials::{bearer, query_token, unauthorized as unauthorized_api};
use super::invitation_page::{self, INVITE_PREFIX};
use super::password_sign_in;
use super::sign_in_page::{self, Reason, PASSKEY_OPTIONS_PATH, PASSKEY_PATH, SIGN_IN_PATH, SIGN_IN_PREFIX};
use super::{oidc, passkeys, roles, server_fn_rules, Access, Caller};
use crate::api::ApiError;
use crate::decision_page::DECIDE_PREFIX;

/// Paths anyone on an allowed host may call.
const PUBLIC_PATHS: &[&str] = &["/api/health"];

pub async fn guard(State(access): State<Access>, mut request: Request, next: Next) -> Response {
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
    // A decision link's page: its secret is the credential (the page checks it); no session, no sign-in.
    if path.starts_with(DECIDE_PREFIX) && !is_api {
        return next.run(request).await;
    }
    if path == SIGN_IN_PATH || path.starts_with(SIGN_IN_PREFIX) || path.starts_with(INVITE_PREFIX) {
        return signing_in(&access, request).await;
    }
    if !is_api && matches!(*request.method(), Method::GET | Method::HEAD) {
        if let Some(given) = query_token(request.uri().query()) {
            let (uri, peer) = (request.uri().clone(), peer(&request));
            return sign_in(&access, &uri, request.headers(), peer, &given).await;
        }
    }
    let caller = match bearer(request.headers()) {
        Some(Ok(given)) if access.token().matches(given) => Some(Caller::Token),
        // A wrong or malformed bearer is refused even if a cookie would pass: the caller meant the header.
        Some(_) => return unauthorized_api("the bearer token is not valid for this server"),
        // The site's files are public: a browser's requests for them need no look at its session.
        None if matches!(*request.method(), Method::GET | Method::HEAD) && access.is_static_file(path) => {
            return next.run(request).await;
        }
        None => match access.signed_in(request.headers()).await {
            Ok(session) => session.map(Caller::Browser),
            Err(error) => return store_failed(&error),
        },
    };
    if let Some(caller) = caller {
        if is_server_fn(path) && !is_json_post(&request) {
            return json_only();
        }
        let asker = match access.asker(&caller).await {
            Ok(Some(asker)) => asker,
            Ok(None) if is_api || changes_state => {
                return unauthorized_api("this account is disabled: ask an owner of this Warden");
            }
            Ok(None) => return sign_in_page::response(&access, Reason::AccountDisabled),
            Err(error) => return store_failed(&error),
        };
        if is_server_fn(path) {
            match server_fn_rules::need(path) {
                Some(need) if need.allows(asker.role()) => {}
                Some(need) => return roles::refused(need, asker.role()).into_response(),
                None => return no_rule(),
            }
        }
        request.extensions_mut().insert(asker);
        let Caller::Browser(signed_in) = caller else { return next.run(request).await };
        request.extensions_mut().insert(signed_in.clone());
        let response = next.run(request).await;
        return match access.sessions() {
            Some(sessions) => end_with_session(response, sessions.clone(), signed_in).await,
            None => response,
        };
    }
    if is_api || changes_state {
        unauthorized_api(
            "sign in first: send `Authorization: Bearer <token>` or open the sign-in link the server printed",
        )
    } else {
        sign_in_page::response(&access, Reason::NotSignedIn)
    }
}

/// The pages a person signs in on without being signed in: the password form (`GET` shows it, `POST` signs
/// in), the identity provider's (`GET /sign-in/oidc` and its callback), a passkey's sign-in (`POST /sign-in/passkey/options`, then `POST /sign-in/passkey`), and an
/// invitation link's page (`GET` shows it, `POST` makes the account; with a passkey, `POST …/passkey/options`
/// then `POST …/passkey`). Their `POST`s passed the origin check already; the passkeys' take JSON only.
async fn signing_in(access: &Access, request: Request) -> Response {
    let peer = peer(&request);
    let (method, path) = (request.method().clone(), request.uri().path().to_string());
    let headers = request.headers().clone();
    let invitation = path.strip_prefix(INVITE_PREFIX).map(|rest| match rest.split_once('/') {
        Some((secret, step)) => (secret, Some(step)),
        None => (rest, None),
    });
    match (method, path.as_str(), invitation) {
        (Method::GET | Method::HEAD, SIGN_IN_PATH, None) => sign_in_page::response(access, Reason::NotSignedIn),
        (Method::GET, oidc::START_PATH, None) => oidc::start(access, &headers, peer).await,
        (Method::GET, oidc::CALLBACK_PATH, None) => oidc::finish(access, &headers, peer, request.uri().query()).await,
        (Method::GET | Method::HEAD, _, Some((secret, None))) => invitation_page::show(access, secret).await,
        (Method::POST, SIGN_IN_PATH, None) => {
            match Form::<password_sign_in::SignInForm>::from_request(request, &()).await {
                Ok(Form(form)) => password_sign_in::sign_in(access, &headers, peer, form).await,
                Err(rejection) => rejection.into_response(),
            }
        }
        (Method::POST, PASSKEY_OPTIONS_PATH, None) => passkeys::sign_in_options(access, &headers, peer).await,
        (Method::POST, PASSKEY_PATH, None) => match Json::from_request(request, &()).await {
            Ok(Json(answer)) => passkeys::sign_in_finish(access, &headers, peer, answer).await,
            Err(rejection) => ApiError::from(rejection).into_response(),
        },
        (Method::POST, _, Some((secret, None))) => {
            let secret = secret.to_string();
            match Form::<invitation_page::AcceptForm>::from_request(request, &()).await {
                Ok(Form(form)) => invitation_page::accept(access, &headers, peer, &secret, form).await,
                Err(rejection) => rejection.into_response(),
            }
        }
        (Method::POST, _, Some((secret, Some("passkey/options")))) => {
            let secret = secret.to_string();
            match Json::from_request(request, &()).await {
                Ok(Json(typed)) => passkeys::join_options(access, &headers, peer, &secret, typed).await,
                Err(rejection) => ApiError::from(rejection).into_response(),
            }
        }
        (Method::POST, _, Some((secret, Some("passkey")))) => {
            let secret = secret.to_string();
            match Json::from_request(request, &()).await {
                Ok(Json(answer)) => passkeys::join_finish(access, &headers, peer, &secret, answer).await,
                Err(rejection) => ApiError::from(rejection).into_response(),
            }
        }
        (Method::GET | Method::HEAD | Method::POST, _, _) => StatusCode::NOT_FOUND.into_response(),
        _ => StatusCode::METHOD_NOT_ALLOWED.into_response(),
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

/// Whether `path` is one of the app's server functions (as the server function registry lists them, so
/// a new one is covered without being named here).
fn is_server_fn(path: &str) -> bool {
    static PATHS: std::sync::LazyLock<std::collections::HashSet<&'static str>> =
        std::sync::LazyLock::new(|| leptos::server_fn::axum::server_fn_paths().map(|(path, _)| path).collect());
    PATHS.contains(path)
}

/// A `POST` with a JSON body (`application/json`, parameters allowed). A form, multipart or
/// `text/plain` body is what another page can send without a CORS preflight, so server functions take
/// none of them: whatever slips past the origin check (a browser that sends no `Origin`, a name
/// trusted on any port) still cannot call one from a `<form>`.
fn is_json_post(request: &Request) -> bool {
    let content_type = request.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    let media_type = content_type.split(';').next().unwrap_or("").trim();
    request.method() == Method::POST && media_type.eq_ignore_ascii_case("application/json")
}

/// An event stream a browser's session opened ends as soon as that session is signed out (a page's
/// or a server function's answer is whole and needs no watching).
async fn end_with_session(response: Response, sessions: Sessions, signed_in: SignedIn) -> Response {
    let is_stream =
        response.headers().get(header::CONTENT_TYPE).is_some_and(|t| t.as_bytes().starts_with(b"text/event-stream"));
    if !is_stream {
        return response;
    }
    let mut revoked = sessions.revocations();
    let id = signed_in.session_id.clone();
    let (parts, body) = response.into_parts();
    let ended = async move {
        // Signed out between the check and the subscription: end at once.
        if !sessions.is_live(&id).await.unwrap_or(false) {
            return;
        }
        loop {
            match revoked.recv().await {
                Ok(what) if what.covers(&signed_in) => return,
                Ok(_) => {}
                Err(RecvError::Lagged(_)) => {
                    if !sessions.is_live(&id).await.unwrap_or(false) {
                        return;
                    }
                }
                Err(RecvError::Closed) => std::future::pending().await,
            }
        }
    };
    let body = Body::from_stream(body.into_data_stream().take_until(Box::pin(ended)));
    Response::from_parts(parts, body)
}

/// Right token: start a new session (ending the one the browser came with, if any), set its cookie and
/// send the browser to the same page without the token (303, so the token leaves the address bar and
/// history). Wrong: the sign-in page, nothing set.
async fn sign_in(
    access: &Access,
    uri: &axum::http::Uri,
    headers: &HeaderMap,
    peer: Option<std::net::IpAddr>,
    given: &str,
) -> Response {
    if !access.token().matches(given) {
        tracing::warn!(path = %uri.path(), "sign-in link with a wrong token");
        return sign_in_page::response(access, Reason::WrongToken);
    }
    let Some(owner) = access.founding_owner() else {
        return store_failed(&"no people attached to the access policy");
    };
    let rest: Vec<(String, String)> = form_urlencoded::parse(uri.query().unwrap_or("").as_bytes())
        .filter(|(k, _)| k != "token")
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    let mut location = uri.path().to_string();
    if !rest.is_empty() {
        location.push('?');
        location.push_str(&form_urlencoded::Serializer::new(String::new()).extend_pairs(rest).finish());
    }
    start_session(access, headers, peer, owner, &location).await
}

/// Signs `person_id` in on this browser: a new session (ending the one the browser came with, if any), its
/// cookie, and a 303 to `location` (a path on this server).
pub(super) async fn start_session(
    access: &Access,
    headers: &HeaderMap,
    peer: Option<std::net::IpAddr>,
    person_id: &PersonId,
    location: &str,
) -> Response {
    let (name, value) = match new_session_cookie(access, headers, peer, person_id).await {
        Ok(cookie) => cookie,
        Err(refused) => return refused,
    };
    // Paths not starting with one `/` would be read as another host (`//…`) or a scheme by the browser.
    let location = if location.starts_with('/') && !location.starts_with("//") { location } else { "/" };
    let location = HeaderValue::from_str(location).unwrap_or_else(|_| HeaderValue::from_static("/"));
    let mut response = (
        StatusCode::SEE_OTHER,
        [(header::LOCATION, location), (header::CACHE_CONTROL, HeaderValue::from_static("no-store"))],
    )
        .into_response();
    response.headers_mut().insert(name, value);
    response
}

/// Signs `person_id` in on this browser for a page's script (a passkey's sign-in): the session cookie and
/// `{"location": "/"}`, where the script then goes.
pub(super) async fn start_session_for_script(
    access: &Access,
    headers: &HeaderMap,
    peer: Option<std::net::IpAddr>,
    person_id: &PersonId,
) -> Response {
    let (name, value) = match new_session_cookie(access, headers, peer, person_id).await {
        Ok(cookie) => cookie,
        Err(refused) => return refused,
    };
    let mut response = (
        [(header::CACHE_CONTROL, HeaderValue::from_static("no-store"))],
        axum::Json(serde_json::json!({ "location": "/" })),
    )
        .into_response();
    response.headers_mut().insert(name, value);
    response
}

/// A new session for `person_id` on this browser (ending the one it came with, if any): its `Set-Cookie`.
pub(super) async fn new_session_cookie(
    access: &Access,
    headers: &HeaderMap,
    peer: Option<std::net::IpAddr>,
    person_id: &PersonId,
) -> Result<(header::HeaderName, HeaderValue), Response> {
    let Some(sessions) = access.sessions() else {
        return Err(store_failed(&"no session store attached to the access policy"));
    };
    // Rotation: the session this browser had is over; the old cookie value opens nothing.
    match access.signed_in(headers).await {
        Ok(Some(old)) => {
            if let Err(error) = sessions.revoke(&old.person_id, &old.session_id).await {
                return Err(store_failed(&error));
            }
        }
        Ok(None) => {}
        Err(error) => return Err(store_failed(&error)),
    }
    let user_agent = headers.get(header::USER_AGENT).and_then(|v| v.to_str().ok());
    let started = match sessions.start(person_id, user_agent, where_from(headers, peer).as_deref()).await {
        Ok(started) => started,
        Err(error) => return Err(store_failed(&error)),
    };
    tracing::info!(session = %started.id, person = %person_id, "a browser signed in");
    Ok(access.cookie().set(started.secret.expose(), served_over_https(headers)))
}

/// Where a sign-in comes from, for the list of signed-in browsers: the peer address, and what a proxy
/// in front says it forwarded for (display only: anyone may send that header).
fn where_from(headers: &HeaderMap, peer: Option<std::net::IpAddr>) -> Option<String> {
    let forwarded = headers.get("x-forwarded-for").and_then(|v| v.to_str().ok());
    match (peer, forwarded) {
        (Some(peer), Some(forwarded)) => Some(format!("{peer} (forwarded for {forwarded})")),
        (Some(peer), None) => Some(peer.to_string()),
        (None, Some(forwarded)) => Some(format!("forwarded for {forwarded}")),
        (None, None) => None,
    }
}

/// The address of the peer the request came from (`serve` puts it in the request).
fn peer(request: &Request) -> Option<std::net::IpAddr> {
    request.extensions().get::<ConnectInfo<std::net::SocketAddr>>().map(|ConnectInfo(addr)| addr.ip())
}

/// Whether the browser reached Warden over https, through a TLS reverse proxy that says so. Believing
/// a client that claims it over plain HTTP costs nothing: the browser then refuses the `Secure` cookie,
/// and that client only fails to sign itself in.
pub(super) fn served_over_https(headers: &HeaderMap) -> bool {
    let said = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_ascii_lowercase);
    said("x-forwarded-proto").is_some_and(|p| p.trim() == "https")
        || said("forwarded").is_some_and(|f| f.split([';', ',']).any(|part| part.trim() == "proto=https"))
}

/// The signed-in browsers or the people could not be read or written: a 500 that names only an error id.
pub(super) fn store_failed(error: &dyn std::fmt::Display) -> Response {
    ApiError::internal(error).into_response()
}

/// A server function nobody gave a rule (`server_fn_rules`): refused to everyone rather than open to all.
fn no_rule() -> Response {
    ApiError::new(StatusCode::FORBIDDEN, "no_rule", "this server function has no access rule").into_response()
}

fn json_only() -> Response {
    ApiError::new(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unsupported_media_type",
        "server functions take a POST with an `application/json` body only",
    )
    .into_response()
}

fn cross_origin() -> Response {
    ApiError::new(StatusCode::FORBIDDEN, "cross_origin", "cross-origin requests may not change anything")
        .into_response()
}
