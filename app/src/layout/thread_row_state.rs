//! What the sidebar is doing with one of its thread rows: a title being typed, a delete being
//! confirmed, or the error of the last change. It lives above the lists, which are read again and
//! rebuilt whenever a thread changes (a model naming its thread, a run ending), so a rename half
//! typed or a confirmation on screen is not lost when that happens. Writes use
//! `try_`: a handler of a row that was just replaced may still run after the sidebar is gone.

use leptos::prelude::*;

use crate::error::AppError;

/// What a row shows in place of its link and buttons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowMode {
    Normal,
    Renaming,
    ConfirmingDelete,
}

/// The one row being edited (only one at a time: starting on another row leaves the first), its
/// draft title, and the last error of each row's change.
#[derive(Clone, Copy)]
pub struct ThreadRowState {
    editing: RwSignal<Option<(String, RowMode)>>,
    pub draft: RwSignal<String>,
    errors: RwSignal<Vec<(String, AppError)>>,
}

impl ThreadRowState {
    /// Provides the state to the sidebar below, or returns the one already provided.
    pub fn provide() -> Self {
        if let Some(state) = use_context::<Self>() {
            return state;
        }
        let state = Self {
            editing: RwSignal::new(None),
            draft: RwSignal::new(String::new()),
            errors: RwSignal::new(Vec::new()),
        };
        provide_context(state);
        state
    }

    /// The state provided above, or a fresh one for a row shown on its own.
    pub fn get() -> Self {
        use_context::<Self>().unwrap_or_else(Self::provide)
    }

    pub fn mode(self, thread_id: &str) -> RowMode {
        self.editing
            .try_with(|e| match e {
                Some((id, mode)) if id == thread_id => *mode,
                _ => RowMode::Normal,
            })
            .unwrap_or(RowMode::Normal)
    }

    /// Starts renaming a row with its title in the box, or asking to confirm its deletion.
    pub fn begin(self, thread_id: &str, mode: RowMode, title: &str) {
        if mode == RowMode::Renaming {
            self.draft.try_set(title.to_string());
        }
        self.clear_error(thread_id);
        self.editing.try_set((mode != RowMode::Normal).then(|| (thread_id.to_string(), mode)));
    }

    /// Back to the link and buttons, if this row is the one being edited.
    pub fn end(self, thread_id: &str) {
        self.editing.try_update(|e| {
            if e.as_ref().is_some_and(|(id, _)| id == thread_id) {
                *e = None;
            }
        });
    }

    pub fn error(self, thread_id: &str) -> Option<AppError> {
        self.errors.try_with(|errors| errors.iter().find(|(id, _)| id == thread_id).map(|(_, e)| e.clone())).flatten()
    }

    pub fn set_error(self, thread_id: &str, error: AppError) {
        self.errors.try_update(|errors| {
            errors.retain(|(id, _)| id != thread_id);
            errors.push((thread_id.to_string(), error));
        });
    }

    pub fn clear_error(self, thread_id: &str) {
        if self.errors.try_with_untracked(|errors| errors.iter().any(|(id, _)| id == thread_id)).unwrap_or(false) {
            self.errors.try_update(|errors| errors.retain(|(id, _)| id != thread_id));
        }
    }
}
