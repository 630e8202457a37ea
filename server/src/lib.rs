//! Warden's HTTP surface: the Leptos pages (server-rendered, with their server functions) and the
//! public API, in one router. `router` is separate from serving so tests drive it on port 0.

pub mod api;
pub mod app_state;
pub mod shutdown;

use axum::handler::Handler;
use axum::Router;
use leptos::prelude::provide_context;
use leptos_axum::{generate_route_list, LeptosRoutes};
use tower_http::compression::CompressionLayer;
use tower_http::trace::TraceLayer;
use warden_app::{shell, App};

pub use app_state::AppState;

/// The whole app: pages, server functions, static files under the site root, and `/api`.
pub fn router(state: AppState) -> Router {
    let routes = generate_route_list(App);
    let engine = state.engine.clone();
    let mcp = state.mcp.clone();
    let provide_engine = move || { provide_context(engine.clone()); provide_context(mcp.clone()); };
    let options = state.leptos_options.clone();
    Router::new()
        .merge(api::router::<AppState>())
        .leptos_routes_with_context(&state, routes, provide_engine.clone(), move || shell(options.clone()))
        // Static files (the wasm above all) go out gzipped to clients that accept it.
        .fallback(
            leptos_axum::file_and_error_handler_with_context::<AppState, _>(provide_engine, shell)
                .layer(CompressionLayer::new()),
        )
        // Server functions are POSTs too: no other site may call them.
        .layer(axum::middleware::from_fn(api::origin::require_same_origin))
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}
