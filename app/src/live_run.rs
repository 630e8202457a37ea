//! What the chat page knows about the run in progress beyond the stored thread: the text streamed
//! so far, the step and current action. Events update it; anything stored (tool calls, approvals,
//! finished messages) is refetched instead, so a second tab and a reload show the same thing.

use leptos::prelude::*;

use crate::model::RunEvent;

/// What the page should do after an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Follow {
    Nothing,
    /// Stored state changed: refetch the thread.
    Refetch,
    /// The title changed: refetch the thread and the sidebar.
    RefetchWithSidebar,
    /// The run is over: close the stream and refetch.
    Finish,
}

#[derive(Clone, Copy)]
pub struct LiveRun {
    pub run_id: RwSignal<Option<String>>,
    /// Text of the current step, not stored yet.
    pub text: RwSignal<String>,
    /// `(step, max, action)`.
    pub step: RwSignal<Option<(u32, u32, String)>>,
    /// Bytes of `text` that the next refetch will show as a stored message.
    stored_prefix: RwSignal<Option<usize>>,
}

impl LiveRun {
    pub fn new() -> Self {
        Self {
            run_id: RwSignal::new(None),
            text: RwSignal::new(String::new()),
            step: RwSignal::new(None),
            stored_prefix: RwSignal::new(None),
        }
    }

    pub fn start(&self, run_id: String) {
        self.run_id.set(Some(run_id));
        self.step.set(None);
    }

    pub fn reset(&self) {
        self.run_id.set(None);
        self.text.set(String::new());
        self.step.set(None);
        self.stored_prefix.set(None);
    }

    pub fn apply(&self, event: RunEvent) -> Follow {
        match event {
            RunEvent::RunStarted { .. } => Follow::Nothing,
            RunEvent::Step { n, max, action } => {
                self.step.set(Some((n, max, action)));
                Follow::Nothing
            }
            RunEvent::TextDelta { text } => {
                self.text.update(|t| t.push_str(&text));
                Follow::Nothing
            }
            RunEvent::ToolCall { name, .. } => {
                self.mark_text_stored();
                self.step.update(|s| {
                    if let Some((_, _, action)) = s {
                        *action = format!("Calling {name}");
                    }
                });
                Follow::Refetch
            }
            RunEvent::ToolProgress { message, progress, total, .. } => {
                let detail = match (message, total) {
                    (Some(m), _) => m,
                    (None, Some(total)) if total > 0.0 => format!("{:.0}%", progress / total * 100.0),
                    (None, _) => format!("{progress}"),
                };
                self.step.update(|s| {
                    if let Some((_, _, action)) = s {
                        *action = detail;
                    }
                });
                Follow::Nothing
            }
            RunEvent::ApprovalRequest { .. } | RunEvent::ApprovalResolved { .. } | RunEvent::ToolResult { .. } => {
                Follow::Refetch
            }
            RunEvent::ThreadUpdated { .. } => Follow::RefetchWithSidebar,
            RunEvent::RunFinished { .. } | RunEvent::Error { .. } => {
                self.mark_text_stored();
                self.run_id.set(None);
                self.step.set(None);
                Follow::Finish
            }
        }
    }

    /// The streamed text that is not stored yet (what the stored messages do not already show).
    pub fn unstored_text(&self) -> String {
        let from = self.stored_prefix.get().unwrap_or(0);
        self.text.with(|t| t.get(from..).unwrap_or_default().to_string())
    }

    /// The stored thread has arrived: drop the streamed text it now contains.
    pub fn thread_refreshed(&self) {
        if let Some(n) = self.stored_prefix.get_untracked() {
            self.stored_prefix.set(None);
            self.text.update(|t| {
                let n = n.min(t.len());
                t.drain(..n);
            });
        }
    }

    fn mark_text_stored(&self) {
        let len = self.text.with_untracked(String::len);
        self.stored_prefix.set(Some(len));
    }
}

impl Default for LiveRun {
    fn default() -> Self {
        Self::new()
    }
}
