//! The shared state of a Settings section that lists entries and edits them in a form (MCP servers,
//! model providers), provided as context: a counter the list refetches on, the entry in the form,
//! the removal waiting for confirmation, the last failed action, and the entries with an action under
//! way. `run` is the one way the section's buttons call the server, so every change refreshes the
//! list and every failure is shown.

use std::future::Future;

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::error::AppError;

/// A section whose entries are `E` in its form.
pub struct SectionUi<E: Send + Sync + 'static> {
    /// Bumped after every change (and by polling); the list refetches on it.
    pub changed: RwSignal<u32>,
    /// The entry in the add/edit form: `None` closed, `Some(None)` adding, `Some(Some(e))` editing.
    pub form: RwSignal<Option<Option<E>>>,
    /// The entry (by id) whose removal waits for confirmation.
    pub confirm_remove: RwSignal<Option<String>>,
    /// The last failed action, as `what "name": why`.
    pub error: RwSignal<Option<String>>,
    /// Ids of entries with an action under way (their buttons are disabled meanwhile).
    pub busy: RwSignal<Vec<String>>,
}

// Signals are Copy whatever they hold; a derive would ask `E: Copy`.
impl<E: Send + Sync + 'static> Clone for SectionUi<E> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<E: Send + Sync + 'static> Copy for SectionUi<E> {}

impl<E: Send + Sync + 'static> SectionUi<E> {
    pub fn new() -> Self {
        Self {
            changed: RwSignal::new(0),
            form: RwSignal::new(None),
            confirm_remove: RwSignal::new(None),
            error: RwSignal::new(None),
            busy: RwSignal::new(Vec::new()),
        }
    }

    pub fn refresh(&self) {
        self.changed.try_update(|v| *v += 1);
    }

    pub fn is_busy(&self, id: &str) -> bool {
        self.busy.with(|b| b.iter().any(|s| s == id))
    }

    /// Runs one action on the entry `id` (named `name` in messages), then refreshes the list; a
    /// failure is shown as `what "name": message`.
    pub fn run<F>(self, id: String, name: String, what: &'static str, action: F)
    where
        F: Future<Output = Result<(), AppError>> + 'static,
    {
        self.error.set(None);
        self.busy.update(|b| b.push(id.clone()));
        spawn_local(async move {
            if let Err(error) = action.await {
                self.error.try_set(Some(format!("{what} \"{name}\": {error}")));
            }
            self.busy.try_update(|b| b.retain(|s| *s != id));
            self.refresh();
        });
    }
}

impl<E: Send + Sync + 'static> Default for SectionUi<E> {
    fn default() -> Self {
        Self::new()
    }
}
