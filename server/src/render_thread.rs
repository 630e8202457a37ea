//! The thread every page and server function is rendered on: a current-thread Tokio runtime of its
//! own, for the whole process.
//!
//! A Leptos page rendered on the server spawns tasks of its own (one per `<Suspense>` waiting for
//! its resources, one per resource). On the multi-threaded runtime these ran on two workers at once
//! over the same page's signals and memos, and `reactive_graph` 0.2 does not survive that: two
//! threads bringing one memo up to date at the same time found it empty ("already disposed", an
//! `unwrap` on `None`), and the page's response never finished. One thread for all of them removes
//! the race: each page's tasks take turns, as they do in a browser. Rendering is a few milliseconds
//! a page; the API, its event streams and the agent's runs stay on their own threads.
//!
//! The response body is streamed from the render thread too (the rest of a page is rendered while it
//! is sent), through a small channel to the connection. A render that panics is answered with a 500
//! before the body starts, or ends the body with an error (the browser sees a broken response, not a
//! page that looks whole).

use std::sync::OnceLock;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use http_body::Frame;
use http_body_util::{BodyExt, StreamBody};
use tokio::runtime::{Builder, Handle};
use tokio::sync::{mpsc, oneshot};
use tracing::instrument::WithSubscriber;
use tracing::Instrument;

use crate::render_arena;

/// How many body frames may wait between the render thread and the connection.
const FRAMES_IN_FLIGHT: usize = 16;

/// The render thread's runtime, started by the first request that needs it.
fn handle() -> &'static Handle {
    static HANDLE: OnceLock<Handle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let runtime = Builder::new_current_thread().enable_all().build().expect("the render runtime starts");
        let handle = runtime.handle().clone();
        std::thread::Builder::new()
            .name("warden-render".into())
            .spawn(move || runtime.block_on(std::future::pending::<()>()))
            .expect("the render thread starts");
        handle
    })
}

/// Middleware: renders the request on the render thread and streams its body back from there.
pub async fn render_there(request: Request, next: Next) -> Response {
    let (head_tx, head_rx) = oneshot::channel();
    let (frames_tx, mut frames_rx) = mpsc::channel::<Result<Frame<Bytes>, axum::Error>>(FRAMES_IN_FLIGHT);
    // The request's span and log subscriber go along, so what the render logs is the request's.
    let render = async move {
        let (head, mut body) = next.run(request).await.into_parts();
        if head_tx.send(head).is_err() {
            return; // the client is gone
        }
        while let Some(frame) = body.frame().await {
            if frames_tx.send(frame).await.is_err() {
                return; // the client is gone: dropping the body ends the page's render
            }
        }
    };
    // Its own reactive owner and arena across its waits (see `render_arena`).
    let rendering = handle().spawn(render_arena::own_world(render).in_current_span().with_current_subscriber());
    let Ok(head) = head_rx.await else {
        tracing::error!("a page's render panicked before its response began");
        return (StatusCode::INTERNAL_SERVER_ERROR, "the page could not be rendered").into_response();
    };
    let frames = futures::stream::poll_fn(move |cx| frames_rx.poll_recv(cx));
    // After the last frame: a render that panicked fails the body instead of ending it.
    let outcome = futures::stream::once(async move {
        match rendering.await {
            Ok(()) => None,
            Err(e) => {
                tracing::error!(error = %e, "a page's render panicked while its response was sent");
                Some(Err(axum::Error::new(e)))
            }
        }
    })
    .filter_map(std::future::ready);
    Response::from_parts(head, Body::new(StreamBody::new(frames.chain(outcome))))
}
