//! Warden's HTTP surface: the Leptos pages (server-rendered, with their server functions) and the
//! public API, in one router behind the access gate. `router` is separate from serving so tests drive
//! it on port 0.

pub mod access;
pub mod api;
pub mod app_state;
pub mod body_limit;
pub mod decision_page;
pub mod notifying;
pub mod public_url;
pub mod render_alone;
pub mod render_arena;
pub mod request_view;
pub mod security_headers;
pub mod serve;
pub mod shutdown;

use axum::handler::Handler;
use axum::Router;
use leptos::prelude::provide_context;
use leptos_axum::{generate_route_list, AxumRouteListing, LeptosRoutes};
use tower::Layer;
use tower_http::compression::predicate::{DefaultPredicate, Predicate};
use tower_http::compression::CompressionLayer;
use tower_http::services::ServeDir;
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::trace::TraceLayer;
use warden_app::{shell, App};

pub use access::Access;
pub use app_state::{AppState, OpenError};

pub use body_limit::MAX_BODY_BYTES;

/// The whole app: pages, server functions, static files under the site root, and `/api`, behind
/// `protect` with the state's access policy (static files under the site root need no token).
pub fn router(state: AppState) -> Router {
    let routes = routes();
    let engine = state.engine.clone();
    let mcp = state.mcp.clone();
    let outside = state.outside.clone();
    let dialer = state.dialer.clone();
    let sessions = state.sessions.clone();
    let people = state.people.clone();
    let reach = state.reach.clone();
    let notifier = state.notifier.clone();
    let provide_engine = move || {
        provide_context(engine.clone());
        provide_context(mcp.clone());
        provide_context(outside.clone());
        provide_context(dialer.clone());
        provide_context(sessions.clone());
        provide_context(people.clone());
        provide_context(reach.clone());
        provide_context(notifier.clone());
    };
    let options = state.leptos_options.clone();
    // The wasm, JS and CSS: as the brotli copies a release build made (`<file>.br`), to browsers that
    // accept them; otherwise gzipped on the fly by the layer below.
    let pkg_dir = std::path::Path::new(&*options.site_root).join(&*options.site_pkg_dir);
    let pkg = ServeDir::new(pkg_dir).precompressed_br();
    // Checked with the server before each use (a `304 Not Modified` when unchanged, by `Last-Modified`):
    // the files of one build work only together (a lazy page's wasm module links only to the main wasm
    // it was split from), so a browser must never keep using a file an update replaced.
    let pkg = SetResponseHeaderLayer::overriding(
        axum::http::header::CACHE_CONTROL,
        axum::http::HeaderValue::from_static("no-cache"),
    )
    .layer(pkg);
    let access = state.access.clone().with_static_root(state.leptos_options.site_root.to_string());
    // Pages are each rendered alone, in a runtime of their own, and sent whole; server functions run
    // on one long-lived thread of their own (see `render_alone` and `render_arena`). The API and static
    // files are served where they come in.
    let pages = Router::new()
        .leptos_routes_with_context(&state, routes, provide_engine.clone(), move || shell(options.clone()))
        // Other static files (`public/`) go out gzipped to clients that accept it.
        .fallback(
            leptos_axum::file_and_error_handler_with_context::<AppState, _>(provide_engine, shell)
                .layer(CompressionLayer::new()),
        )
        // Pages go out gzipped to browsers that accept it: a chat's HTML carries every message twice
        // (as HTML and in the hydration data). Only HTML: server functions answer JSON that may hold a
        // secret shown once (a new client's token) beside text a client chose, which is what a
        // compression oracle needs; a page's one secret, its CSP nonce, is new in every answer. Gzipped
        // on the page's own render thread, before it is sent whole.
        .layer(CompressionLayer::new().compress_when(DefaultPredicate::new().and(is_html)))
        .layer(axum::middleware::from_fn(render_alone::render_alone));
    let app = pages
        .merge(api::routes::<AppState>().into_router())
        .nest_service(&format!("/{}", state.leptos_options.site_pkg_dir), CompressionLayer::new().layer(pkg))
        .with_state(state);
    protect(app, access)
}

/// The app's routes, listed once per process, before its first router exists.
///
/// Listing them renders the app with every resource held back by a switch that is global to the
/// process (leptos_server's `SuppressResourceLoad`, leptos-rs/leptos#4773): a resource whose first poll
/// came while the switch was on, in a page that any other server of the same process was rendering,
/// waited forever, and so did that page (the sidebar sent, then nothing). Listing the routes anew for
/// every router did that to the first pages of servers started side by side (as the tests start
/// them). The routes are the same for every router, so they are listed once, and no page can be
/// rendering then: no router exists before they are.
fn routes() -> Vec<AxumRouteListing> {
    static ROUTES: std::sync::LazyLock<Vec<AxumRouteListing>> = std::sync::LazyLock::new(|| generate_route_list(App));
    ROUTES.clone()
}

/// Whether an answer is an HTML page (what the pages' compression is for).
fn is_html(
    _: axum::http::StatusCode,
    _: axum::http::Version,
    headers: &axum::http::HeaderMap,
    _: &axum::http::Extensions,
) -> bool {
    headers.get(axum::http::header::CONTENT_TYPE).is_some_and(|t| t.as_bytes().starts_with(b"text/html"))
}

/// Wraps any router in Warden's edge, outermost first: tracing, security headers on every answer,
/// the access gate (host, origin, token), JSON bodies for plain-text rejections, the body limit.
pub fn protect(app: Router, access: Access) -> Router {
    let app = app
        .layer(axum::middleware::from_fn(body_limit::limit))
        .layer(axum::middleware::from_fn(api::json_errors::json_errors))
        .layer(axum::middleware::from_fn_with_state(access, access::middleware::guard));
    security_headers::apply(app).layer(TraceLayer::new_for_http())
}
