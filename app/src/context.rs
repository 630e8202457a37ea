//! State the whole app provides (in `App`) and any feature reads: what changed in the list of
//! threads. A feature's own state is provided by that feature, never by two sibling sections.

use leptos::prelude::*;

use crate::model::Thread;

/// Bumped whenever the list of threads may have changed; the sidebar refetches on it.
#[derive(Clone, Copy)]
pub struct ThreadsChanged(pub RwSignal<u32>);

impl ThreadsChanged {
    pub fn notify(&self) {
        self.0.update(|v| *v += 1);
    }
}

/// The thread as a rename or (un)archive in the sidebar left it: the open chat shows the change.
#[derive(Clone, Copy)]
pub struct ThreadEdited(pub RwSignal<Option<Thread>>);
