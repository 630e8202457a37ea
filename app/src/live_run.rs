//! What the chat page knows about the run in progress beyond the stored thread: the text streamed
//! so far, the step and current action. Events update it; anything stored (tool calls, approvals,
//! finished messages) is refetched instead, so a second tab and a reload show the same thing.

use std::collections::HashMap;

use leptos::prelude::*;

use crate::model::RunEvent;

/// The latest progress a running tool call reported.
#[derive(Debug, Clone, PartialEq)]
pub struct CallProgress {
    pub progress: f64,
    pub total: Option<f64>,
    pub message: Option<String>,
}

impl CallProgress {
    /// Done so far as a fraction of the whole, when the tool said how much there is.
    pub fn fraction(&self) -> Option<f64> {
        self.total.filter(|t| *t > 0.0).map(|t| (self.progress / t).clamp(0.0, 1.0))
    }

    /// In words: the tool's own message, else a percentage, else the raw count.
    pub fn describe(&self) -> String {
        match (&self.message, self.fraction()) {
            (Some(m), _) => m.clone(),
            (None, Some(f)) => format!("{:.0}%", f * 100.0),
            (None, None) => format!("{}", self.progress),
        }
    }
}

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
    /// Progress of the tool calls running now, by tool call id.
    pub progress: RwSignal<HashMap<String, CallProgress>>,
    /// Bytes of `text` that the next refetch will show as a stored message.
    stored_prefix: RwSignal<Option<usize>>,
}

impl LiveRun {
    pub fn new() -> Self {
        Self {
            run_id: RwSignal::new(None),
            text: RwSignal::new(String::new()),
            step: RwSignal::new(None),
            progress: RwSignal::new(HashMap::new()),
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
        self.progress.set(HashMap::new());
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
            RunEvent::ToolProgress { tool_call_id, message, progress, total } => {
                let report = CallProgress { progress, total, message };
                let detail = report.describe();
                self.progress.update(|all| {
                    all.insert(tool_call_id, report);
                });
                self.step.update(|s| {
                    if let Some((_, _, action)) = s {
                        *action = detail;
                    }
                });
                Follow::Nothing
            }
            RunEvent::ToolResult { tool_call_id, .. } => {
                self.progress.update(|all| {
                    all.remove(&tool_call_id);
                });
                Follow::Refetch
            }
            RunEvent::ApprovalRequest { .. } | RunEvent::ApprovalResolved { .. } => Follow::Refetch,
            RunEvent::ThreadUpdated { .. } => Follow::RefetchWithSidebar,
            RunEvent::TurnRestarted {} => {
                // The server restarted mid-turn: what was streamed since the last stored message is
                // streamed again from the start, so drop it here.
                let keep = self.stored_prefix.get_untracked().unwrap_or(0);
                self.text.update(|t| t.truncate(keep.min(t.len())));
                Follow::Nothing
            }
            RunEvent::RunFinished { .. } | RunEvent::RunFailed { .. } => {
                self.mark_text_stored();
                self.run_id.set(None);
                self.step.set(None);
                self.progress.set(HashMap::new());
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

#[cfg(test)]
mod tests {
    use super::CallProgress;

    fn report(progress: f64, total: Option<f64>, message: Option<&str>) -> CallProgress {
        CallProgress { progress, total, message: message.map(str::to_owned) }
    }

    #[test]
    fn progress_reads_as_the_tools_message_else_a_percentage_else_the_count() {
        assert_eq!(report(3.0, Some(10.0), Some("step 3 of 10")).describe(), "step 3 of 10");
        assert_eq!(report(1.0, Some(4.0), None).describe(), "25%");
        assert_eq!(report(7.0, None, None).describe(), "7");
    }

    #[test]
    fn the_fraction_needs_a_positive_total_and_stays_within_the_bar() {
        assert_eq!(report(1.0, Some(4.0), None).fraction(), Some(0.25));
        assert_eq!(report(9.0, Some(4.0), None).fraction(), Some(1.0));
        assert_eq!(report(1.0, Some(0.0), None).fraction(), None);
        assert_eq!(report(1.0, None, None).fraction(), None);
    }
}
