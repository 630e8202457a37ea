//! The outside clients section's state, provided as context to its pieces, and the signal by which
//! another section (Executors) tells its table to list again.

use std::future::Future;

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::error::AppError;

/// The section's shared state, provided as context to its pieces.
#[derive(Clone, Copy)]
pub struct OutsideUi {
    /// Bumped after every change; the client list refetches on it.
    pub changed: RwSignal<u32>,
    /// The last failed action, as "what: why".
    pub error: RwSignal<Option<String>>,
    /// The last action that worked, in words.
    pub notice: RwSignal<Option<String>>,
    /// The client whose revocation waits for confirmation.
    pub confirm_revoke: RwSignal<Option<String>>,
    /// The client whose policy override is open for editing.
    pub editing: RwSignal<Option<String>>,
    /// Set while an action is under way (the buttons are disabled meanwhile).
    pub busy: RwSignal<bool>,
    /// Whether the person is an owner: they see every client and the policies; anyone else sees their
    /// own clients, and no policy (a policy can approve without asking).
    pub manages: bool,
}

impl OutsideUi {
    pub(crate) fn new(manages: bool) -> Self {
        Self {
            manages,
            changed: RwSignal::new(0),
            error: RwSignal::new(None),
            notice: RwSignal::new(None),
            confirm_revoke: RwSignal::new(None),
            editing: RwSignal::new(None),
            busy: RwSignal::new(false),
        }
    }

    pub fn refresh(&self) {
        self.changed.update(|v| *v += 1);
    }

    pub fn failed(&self, message: String) {
        self.notice.set(None);
        self.error.set(Some(message));
    }

    /// Runs one change through the hub, then refreshes the list; says `done` or `what: why`.
    pub fn run<F>(self, what: &'static str, done: &'static str, action: F)
    where
        F: Future<Output = Result<(), AppError>> + 'static,
    {
        self.error.set(None);
        self.notice.set(None);
        self.busy.set(true);
        spawn_local(async move {
            match action.await {
                Ok(()) => self.notice.set(Some(done.to_string())),
                Err(error) => self.error.set(Some(format!("{what}: {error}"))),
            }
            self.busy.set(false);
            self.refresh();
        });
    }
}

/// Bumped when something outside this section adds or removes a client (Settings → Executors: each
/// executor asks as a client of its own), so the table lists again without a reload. Provided by
/// the settings page, above both sections.
#[derive(Clone, Copy)]
pub struct OutsideClientsChanged(RwSignal<u32>);

impl OutsideClientsChanged {
    pub fn provide() -> Self {
        let changed = Self(RwSignal::new(0));
        provide_context(changed);
        changed
    }

    /// The count of changes, read by the table (it lists again when it moves).
    pub fn get(self) -> u32 {
        self.0.get()
    }

    /// Tells the table to list again.
    pub fn bump(self) {
        self.0.try_update(|n| *n = n.wrapping_add(1));
    }
}
