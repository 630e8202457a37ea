//! Keeps each rendered page in its own reactive world while other pages share its thread.
//!
//! Leptos finds "the current owner" (which new signals, memos and effects belong to, and which
//! disposes them) and, with `sandboxed-arenas` (which `leptos_axum` turns on), "the current arena"
//! (where each request's values are stored) in two thread-locals. Code sets them and never puts them
//! back. `leptos_integration_utils` 0.8 renders the page's first chunk, calls the `<Title>` formatter
//! and streams the body from futures that do not set them: once such a future has waited (it always
//! does, for a tick) and another page was polled on the same thread meanwhile (every page is rendered
//! on the render thread), it goes on under the *other* page's owner and arena. Its values are then
//! "already disposed" (or are disposed when the other page ends): the render panics, and the browser
//! gets a cut connection or a page load that never finishes. Under eight concurrent loads that was
//! about one page in a hundred (`tests/pages.rs`).
//!
//! [`scoped`] makes both task-local for the handler and for the body it answers: what the request's
//! own code left current when one poll ended is made current again when its next poll begins, as if
//! no other page had been polled on the thread between.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use http_body::Frame;
use leptos::reactive::owner::{Owner, Sandboxed, WeakOwner};

/// Runs the rest of the stack, and streams its body, with their own owner and arena.
pub async fn scoped(request: Request, next: Next) -> Response {
    let mut locals = TaskLocals::default();
    let response = Scoped { inner: Box::pin(next.run(request)), locals: &mut locals }.await;
    response.map(|body| Body::new(ScopedBody { inner: body, locals }))
}

/// A task's reactive thread-locals as its last poll left them.
#[derive(Default)]
struct TaskLocals {
    /// Not `None` once a poll has ended.
    saved: Option<Saved>,
}

struct Saved {
    owner: Option<WeakOwner>,
    /// The arena, held by a `Sandboxed` that never finishes: the only public way to read the
    /// thread's current arena (`new`) and to make it current again (`poll`).
    arena: Sandboxed<std::future::Pending<()>>,
}

impl TaskLocals {
    /// Makes current what the last poll left (nothing before the first).
    fn enter(&mut self) {
        let Some(saved) = self.saved.as_mut() else { return };
        // Sets the arena and answers Pending; the no-op waker is never woken.
        let _ = Pin::new(&mut saved.arena).poll(&mut Context::from_waker(Waker::noop()));
        match saved.owner.as_ref().and_then(WeakOwner::upgrade) {
            // Also sets that owner's arena, which is the same one for a page's owners.
            Some(owner) => owner.set(),
            None => {
                if let Some(other) = Owner::current() {
                    other.unset();
                }
            }
        }
    }

    /// Remembers what this poll leaves current.
    fn leave(&mut self) {
        self.saved = Some(Saved {
            owner: Owner::current().map(|o| o.downgrade()),
            arena: Sandboxed::new(std::future::pending()),
        });
    }

    fn around<T>(&mut self, poll: impl FnOnce() -> T) -> T {
        self.enter();
        let polled = poll();
        self.leave();
        polled
    }
}

/// The handler's future, polled within its task-locals.
struct Scoped<'a, F> {
    inner: Pin<Box<F>>,
    locals: &'a mut TaskLocals,
}

impl<F: Future> Future for Scoped<'_, F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.get_mut();
        let inner = &mut this.inner;
        this.locals.around(|| inner.as_mut().poll(cx))
    }
}

/// The response body, polled within the task-locals its handler left.
struct ScopedBody {
    inner: Body,
    locals: TaskLocals,
}

impl http_body::Body for ScopedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let this = self.get_mut();
        let inner = &mut this.inner;
        this.locals.around(|| Pin::new(inner).poll_frame(cx))
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}
