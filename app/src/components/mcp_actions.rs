//! The settings page's shared state, provided as context: a counter the server list refetches on,
//! which server is being edited, and the last failed action's message. `run` is the one way the
//! page's buttons call the server, so every change refreshes the list and every failure is shown.

use std::future::Future;

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::error::AppError;
use warden_types::mcp::McpServerConfig;

#[derive(Clone, Copy)]
pub struct McpUi {
    /// Bumped after every change (and by polling); the list refetches on it.
    pub changed: RwSignal<u32>,
    /// The server in the add/edit form: `None` closed, `Some(None)` adding, `Some(Some(c))` editing.
    pub form: RwSignal<Option<Option<McpServerConfig>>>,
    /// The server whose removal waits for confirmation.
    pub confirm_remove: RwSignal<Option<String>>,
    /// The last failed action, as "what: why".
    pub error: RwSignal<Option<String>>,
    /// Names of servers with an action under way (their buttons are disabled meanwhile).
    pub busy: RwSignal<Vec<String>>,
}

impl McpUi {
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
        self.changed.update(|v| *v += 1);
    }

    pub fn is_busy(&self, server: &str) -> bool {
        self.busy.with(|b| b.iter().any(|s| s == server))
    }

    /// Runs one action on `server`, then refreshes the list; a failure is shown as `what: message`.
    pub fn run<F>(self, server: String, what: &'static str, action: F)
    where
        F: Future<Output = Result<(), AppError>> + 'static,
    {
        self.error.set(None);
        self.busy.update(|b| b.push(server.clone()));
        spawn_local(async move {
            if let Err(error) = action.await {
                self.error.set(Some(format!("{what} `{server}`: {error}")));
            }
            self.busy.update(|b| b.retain(|s| *s != server));
            self.refresh();
        });
    }
}

impl Default for McpUi {
    fn default() -> Self {
        Self::new()
    }
}
