//! Every page is rendered alone: on a thread of the blocking pool, in a current-thread Tokio
//! runtime of its own that ends with it, and sent once it is whole. Server functions run on a thread
//! of their own that lives as long as the process.
//!
//! A Leptos page rendered on the server spawns tasks of its own (one per resource, one per
//! `<Suspense>` waiting for its resources) and keeps its reactive owner and arena in thread-locals.
//! Leptos 0.8 does not survive pages that share threads: on the multi-threaded runtime, two workers
//! brought one page's memo up to date at once and found it empty ("already disposed"), and the
//! response never finished. Rendered alone, a page's tasks share their thread with no other page's,
//! and whatever a page leaves behind (an effect still waiting) is dropped with its runtime. A thread
//! of the pool is reused once a page is done, so each page also starts in a reactive world of its own
//! (`render_arena`).
//!
//! The body is gathered on that thread and sent whole: a slow reader then holds no render thread,
//! and a render that fails is answered with an error status instead of a page cut off midway. (Pages
//! are rendered in a few milliseconds from the local store; streaming them bought nothing.)
//! [`RENDERS_AT_ONCE`] pages are rendered at a time; more wait their turn.
//!
//! A page that is not whole after [`RENDER_LIMIT`] is answered with 503, and the log says so. (A few
//! first pages of servers started side by side in one process used to hang: listing the routes held
//! back every resource of the process; see `routes` in this crate's root. They are listed once now.)
//!
//! Server functions (POSTs) are not run alone: what they start in the background (connecting an MCP
//! server, dialling an executor) must outlive the request, so they run on the long-lived server
//! functions' thread, to their end.

use std::sync::OnceLock;
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;

use tokio::runtime::{Builder, Handle};
use tokio::sync::Semaphore;
use tracing::instrument::WithSubscriber;
use tracing::Instrument;

use crate::render_arena;

/// How many pages are rendered at the same time (each on a thread of its own).
pub const RENDERS_AT_ONCE: usize = 8;

/// How long one render may take, body included, before it is given up. The slowest page measured (ten
/// answers of highlighted code) renders in 0.14-0.17 s, 1.7 s unoptimised.
pub const RENDER_LIMIT: Duration = Duration::from_secs(30);

static RENDERS: Semaphore = Semaphore::const_new(RENDERS_AT_ONCE);

/// How a render ended, when it did not end with a response.
enum Failed {
    /// The runtime for it could not be started.
    NoRuntime(std::io::Error),
    TooSlow,
    /// Reading the body it produced failed.
    Body(axum::Error),
    Panicked(tokio::task::JoinError),
}

/// Middleware: renders the request alone (see the module's description) and answers with the whole
/// response.
pub async fn render_alone(request: Request, next: Next) -> Response {
    let rendered = if matches!(*request.method(), Method::GET | Method::HEAD) {
        let Ok(_turn) = RENDERS.acquire().await else {
            // The semaphore is never closed.
            return (StatusCode::SERVICE_UNAVAILABLE, "the page could not be rendered").into_response();
        };
        render_page(request, next).await
    } else {
        on_function_thread(request, next).await
    };
    match rendered {
        Ok(response) => response,
        Err(Failed::TooSlow) => {
            tracing::error!(limit = ?RENDER_LIMIT, "a page's render took too long and was given up");
            (StatusCode::SERVICE_UNAVAILABLE, "the page took too long to render; try again").into_response()
        }
        Err(Failed::NoRuntime(e)) => {
            tracing::error!(error = %e, "no runtime could be started to render a page");
            (StatusCode::SERVICE_UNAVAILABLE, "the page could not be rendered").into_response()
        }
        Err(Failed::Body(e)) => {
            tracing::error!(error = %e, "a page's body could not be rendered");
            (StatusCode::INTERNAL_SERVER_ERROR, "the page could not be rendered").into_response()
        }
        Err(Failed::Panicked(e)) => {
            tracing::error!(error = %e, "a page's render panicked");
            (StatusCode::INTERNAL_SERVER_ERROR, "the page could not be rendered").into_response()
        }
    }
}

/// The response to `request`, its body gathered whole.
async fn whole(request: Request, next: Next) -> Result<Response, Failed> {
    let (head, body) = next.run(request).await.into_parts();
    let body = body.collect().await.map_err(Failed::Body)?.to_bytes();
    Ok(Response::from_parts(head, Body::from(body)))
}

/// Runs a server function on the thread kept for them, to its end (see the module's description).
async fn on_function_thread(request: Request, next: Next) -> Result<Response, Failed> {
    let run = render_arena::own_world(whole(request, next)).in_current_span().with_current_subscriber();
    function_thread()?.spawn(run).await.map_err(Failed::Panicked)?
}

/// The server functions' thread: a current-thread runtime for the life of the process, started by the
/// first server function.
fn function_thread() -> Result<&'static Handle, Failed> {
    static HANDLE: OnceLock<Result<Handle, String>> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            let (started, handle) = std::sync::mpsc::channel();
            std::thread::Builder::new()
                .name("warden-functions".into())
                .spawn(move || match Builder::new_current_thread().enable_all().build() {
                    Ok(runtime) => {
                        let _ = started.send(Ok(runtime.handle().clone()));
                        runtime.block_on(std::future::pending::<()>())
                    }
                    Err(e) => {
                        let _ = started.send(Err(e.to_string()));
                    }
                })
                .map_err(|e| e.to_string())?;
            // Waits the few microseconds a runtime takes to build, once.
            handle.recv().map_err(|e| e.to_string())?
        })
        .as_ref()
        .map_err(|e| Failed::NoRuntime(std::io::Error::other(e.clone())))
}

/// Renders the request on a thread of the blocking pool, in a runtime of its own, within
/// [`RENDER_LIMIT`].
async fn render_page(request: Request, next: Next) -> Result<Response, Failed> {
    // The request's span and log subscriber go along, so what the render logs is the request's.
    let render = render_arena::own_world(whole(request, next)).in_current_span().with_current_subscriber();
    tokio::task::spawn_blocking(move || {
        let runtime = Builder::new_current_thread().enable_all().build().map_err(Failed::NoRuntime)?;
        // Dropping the runtime drops whatever the page left running.
        runtime.block_on(async { tokio::time::timeout(RENDER_LIMIT, render).await.map_err(|_| Failed::TooSlow)? })
    })
    .await
    .map_err(Failed::Panicked)?
}
