//! The providers section's shared state, provided as context: a counter the list refetches on, the
//! entry in the form, the removal waiting for confirmation, the last failed action, entries with an
//! action under way, and each entry's last connection test (kept here so it outlives a refetch).

use std::collections::HashMap;
use std::future::Future;

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::error::AppError;
use warden_types::provider::{ProviderEntry, ProviderProbe};

/// What the last Test connection of an entry or of the form found.
#[derive(Debug, Clone, PartialEq)]
pub enum ProbeOutcome {
    Tested(ProviderProbe),
    /// The test could not be made (bad input, unknown entry).
    Refused(String),
}

#[derive(Clone, Copy)]
pub struct ProvidersUi {
    pub changed: RwSignal<u32>,
    /// `None` closed, `Some(None)` adding, `Some(Some(entry))` editing.
    pub form: RwSignal<Option<Option<ProviderEntry>>>,
    /// The id of the entry whose removal waits for confirmation.
    pub confirm_remove: RwSignal<Option<String>>,
    pub error: RwSignal<Option<String>>,
    pub busy: RwSignal<Vec<String>>,
    /// The last test of each entry, by id.
    pub probes: RwSignal<HashMap<String, ProbeOutcome>>,
}

impl ProvidersUi {
    pub fn new() -> Self {
        Self {
            changed: RwSignal::new(0),
            form: RwSignal::new(None),
            confirm_remove: RwSignal::new(None),
            error: RwSignal::new(None),
            busy: RwSignal::new(Vec::new()),
            probes: RwSignal::new(HashMap::new()),
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

impl Default for ProvidersUi {
    fn default() -> Self {
        Self::new()
    }
}
