//! Keeps a rendered page in its own reactive world, whatever else was polled on its thread.
//!
//! Leptos finds "the current owner" (which new signals, memos and effects belong to, and which
//! disposes them) and, with `sandboxed-arenas` (which `leptos_axum` turns on), "the current arena"
//! (where each request's values are stored) in two thread-locals. Code sets them and never puts them
//! back. `leptos_integration_utils` 0.8 renders the page's first chunk, calls the `<Title>` formatter
//! and produces the body from futures that do not set them: once such a future has waited (it always
//! does, for a tick) and another task was polled on the thread meanwhile, it goes on under whatever
//! owner and arena that task left. When pages shared a thread, that was another page's: its values
//! were then "already disposed" (or were disposed when the other page ended), and the render panicked
//! or never finished (`tests/pages.rs`).
//!
//! Pages are now rendered alone (`render_alone`), so the other tasks on a page's thread are its own;
//! server functions still share one thread, taking turns. And the pages' threads are reused: a page's
//! first poll began in the world the previous page left, and whatever Leptos creates before the
//! page's root owner (the response options, the meta context) went into that page's arena.
//!
//! [`own_world`] makes both task-local for the task that renders a page or runs a server function:
//! its first poll begins in a world of its own (no owner, an empty arena the task keeps), and what
//! the task left current when one poll ended is made current again when its next poll begins.

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
    /// What the last poll left current (before the first: a blank world).
    saved: Option<Saved>,
}

struct Saved {
    owner: Option<WeakOwner>,
    /// The arena, held by a `Sandboxed` that never finishes: the only public way to read the
    /// thread's current arena (`new`) and to make it current again (`poll`).
    arena: Sandboxed<std::future::Pending<()>>,
}

impl Saved {
    /// A world of its own: no owner, and a new, empty arena (which this keeps alive).
    fn blank() -> Self {
        // A root owner brings a new arena and makes both current; only the arena is kept.
        let root = Owner::new_root(None);
        let blank = Saved { owner: None, arena: Sandboxed::new(std::future::pending()) };
        root.unset();
        blank
    }

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
        this.saved.get_or_insert_with(Saved::blank).restore();
        let polled = this.task.as_mut().poll(cx);
        this.saved = Some(Saved::now());
        polled
    }
}
