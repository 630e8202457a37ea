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
//! [`own_world`] makes both task-local for the task that renders a page (its handler and its body,
//! which `render_thread` streams from the same task): what the task left current when one poll ended
//! is made current again when its next poll begins, as if no other page had been polled on the thread
//! between.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use leptos::reactive::owner::{Owner, Sandboxed, WeakOwner};

/// `task`, polled with its own reactive owner and arena.
pub fn own_world<F: Future>(task: F) -> impl Future<Output = F::Output> {
    OwnWorld { task: Box::pin(task), saved: None }
}

struct OwnWorld<F> {
    task: Pin<Box<F>>,
    /// What the last poll left current (`None` before the first).
    saved: Option<Saved>,
}

struct Saved {
    owner: Option<WeakOwner>,
    /// The arena, held by a `Sandboxed` that never finishes: the only public way to read the
    /// thread's current arena (`new`) and to make it current again (`poll`).
    arena: Sandboxed<std::future::Pending<()>>,
}

impl Saved {
    /// Remembers what is current now.
    fn now() -> Self {
        Saved { owner: Owner::current().map(|o| o.downgrade()), arena: Sandboxed::new(std::future::pending()) }
    }

    /// Makes it current again.
    fn restore(&mut self) {
        // Sets the arena and answers Pending; the no-op waker is never woken.
        let _ = Pin::new(&mut self.arena).poll(&mut Context::from_waker(Waker::noop()));
        match self.owner.as_ref().and_then(WeakOwner::upgrade) {
            // Also sets that owner's arena, which is the same one for a page's owners.
            Some(owner) => owner.set(),
            None => {
                if let Some(other) = Owner::current() {
                    other.unset();
                }
            }
        }
    }
}

impl<F: Future> Future for OwnWorld<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.get_mut();
        if let Some(saved) = this.saved.as_mut() {
            saved.restore();
        }
        let polled = this.task.as_mut().poll(cx);
        this.saved = Some(Saved::now());
        polled
    }
}
