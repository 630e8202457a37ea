//! What the chat page knows about the run in progress beyond the stored thread: the text streamed
//! since the last stored message, the step and current action, and tool progress. Stored records
//! the run changes arrive in its events and patch the thread ([`crate::model::ThreadDetail::apply`]);
//! this holds only what is never stored.

use std::collections::HashMap;

use leptos::prelude::*;

use crate::model::{ModelChoice, Role, RunEvent};

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

/// What the page should do after an event, beyond patching the thread with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Follow {
    Nothing,
    /// The title changed: the sidebar lists it again.
    Sidebar,
    /// The run is over: close the stream.
    Finish,
}

#[derive(Clone, Copy)]
pub struct LiveRun {
    pub run_id: RwSignal<Option<String>>,
    /// Text streamed since the run's last stored message: the model's turn as it arrives.
    pub text: RwSignal<String>,
    /// `(step, max, action)`.
    pub step: RwSignal<Option<(u32, u32, String)>>,
    /// Progress of the tool calls running now, by tool call id.
    pub progress: RwSignal<HashMap<String, CallProgress>>,
    /// The provider and model the run was started with.
    pub model: RwSignal<Option<ModelChoice>>,
    /// The run's approvals and connection checks waiting for a decision, by id: while any waits, the
    /// run is not "calling" anything.
    pub waiting: RwSignal<std::collections::HashSet<String>>,
}

impl LiveRun {
    pub fn new() -> Self {
        Self {
            run_id: RwSignal::new(None),
            text: RwSignal::new(String::new()),
            step: RwSignal::new(None),
            progress: RwSignal::new(HashMap::new()),
            model: RwSignal::new(None),
            waiting: RwSignal::new(Default::default()),
        }
    }

    pub fn start(&self, run_id: String) {
        self.run_id.set(Some(run_id));
        self.step.set(None);
        self.model.set(None);
        self.waiting.set(Default::default());
    }

    pub fn reset(&self) {
        self.run_id.set(None);
        self.text.set(String::new());
        self.step.set(None);
        self.progress.set(HashMap::new());
        self.model.set(None);
        self.waiting.set(Default::default());
    }

    pub fn apply(&self, event: &RunEvent) -> Follow {
        match event {
            RunEvent::RunStarted { model, .. } => {
                self.model.set(model.clone());
                Follow::Nothing
            }
            RunEvent::ApprovalRequest { approval } => {
                self.waiting.update(|w| {
                    w.insert(approval.id.clone().to_string());
                });
                Follow::Nothing
            }
            RunEvent::ApprovalResolved { approval_id, .. } => {
                self.waiting.update(|w| {
                    w.remove(approval_id.as_str());
                });
                Follow::Nothing
            }
            RunEvent::ConnectionCheck { check } => {
                self.waiting.update(|w| {
                    if check.status == crate::model::CheckStatus::Pending {
                        w.insert(check.id.clone().to_string());
                    } else {
                        w.remove(check.id.as_str());
                    }
                });
                Follow::Nothing
            }
            RunEvent::Step { n, max, action } => {
                self.step.set(Some((*n, *max, action.clone())));
                Follow::Nothing
            }
            RunEvent::TextDelta { text } => {
                self.text.update(|t| t.push_str(text));
                Follow::Nothing
            }
            // The model's turn is stored: the stored message shows it from now on.
            RunEvent::MessageStored { message } if message.role == Role::Assistant => {
                self.clear_text();
                Follow::Nothing
            }
            RunEvent::MessageStored { .. } => Follow::Nothing,
            RunEvent::ToolCall { name, .. } => {
                self.step.update(|s| {
                    if let Some((_, _, action)) = s {
                        *action = format!("Calling {name}");
                    }
                });
                Follow::Nothing
            }
            RunEvent::ToolProgress { tool_call_id, message, progress, total } => {
                let report = CallProgress { progress: *progress, total: *total, message: message.clone() };
                let detail = report.describe();
                self.progress.update(|all| {
                    all.insert(tool_call_id.clone().to_string(), report);
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
                    all.remove(tool_call_id.as_str());
                });
                Follow::Nothing
            }
            RunEvent::ThreadUpdated { .. } => Follow::Sidebar,
            // The server restarted mid-turn: the turn is streamed again from its start.
            RunEvent::TurnRestarted {} => {
                self.clear_text();
                Follow::Nothing
            }
            RunEvent::RunFinished { .. } | RunEvent::RunFailed { .. } => {
                self.clear_text();
                self.run_id.set(None);
                self.step.set(None);
                self.progress.set(HashMap::new());
                self.waiting.set(Default::default());
                Follow::Finish
            }
        }
    }

    fn clear_text(&self) {
        if self.text.with_untracked(|t| !t.is_empty()) {
            self.text.set(String::new());
        }
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
