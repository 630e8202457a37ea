//! Calls a person's approval has already marked `running`, waiting for their run's driver to start them.
//!
//! Approving a call is one transaction: the decision, the call marked running (claimed), the run marked
//! resumable. The driver then starts the call without a second write. A call marked running that is
//! not in this table was started by a process that died, and is never run again (it is settled as
//! interrupted), so an approved action runs at most once: if the server dies between the decision and
//! the start, the call shows as interrupted after the restart and the model is told.
//!
//! A call is handed over before the decision's transaction commits (and taken back if it fails), so a
//! driver that reads the call as running always finds it here.

use std::collections::HashMap;
use std::sync::Mutex;

#[derive(Default)]
pub struct Handoff {
    /// Call id -> run id.
    calls: Mutex<HashMap<String, String>>,
}

impl Handoff {
    fn calls(&self) -> std::sync::MutexGuard<'_, HashMap<String, String>> {
        self.calls.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Hands `call_id` of `run_id` to its driver; the guard takes it back unless `keep` is called.
    pub fn hand(&self, call_id: &str, run_id: &str) -> Handed<'_> {
        self.calls().insert(call_id.to_string(), run_id.to_string());
        Handed { handoff: self, call_id: call_id.to_string(), kept: false }
    }

    /// Whether `call_id` was handed over (and takes it: only one driver starts it).
    pub fn take(&self, call_id: &str) -> bool {
        self.calls().remove(call_id).is_some()
    }

    /// Takes every call handed to `run_id`'s driver (a stopped run cancels them).
    pub fn take_run(&self, run_id: &str) -> Vec<String> {
        let mut calls = self.calls();
        let ids: Vec<String> = calls.iter().filter(|(_, run)| *run == run_id).map(|(id, _)| id.clone()).collect();
        for id in &ids {
            calls.remove(id);
        }
        ids
    }
}

/// A call handed over while its decision is being written.
pub struct Handed<'a> {
    handoff: &'a Handoff,
    call_id: String,
    kept: bool,
}

impl Handed<'_> {
    /// The decision is committed: the call stays handed over.
    pub fn keep(mut self) {
        self.kept = true;
    }
}

impl Drop for Handed<'_> {
    fn drop(&mut self) {
        if !self.kept {
            self.handoff.calls().remove(&self.call_id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_is_taken_once_and_a_failed_decision_takes_it_back() {
        let handoff = Handoff::default();
        handoff.hand("c1", "r1").keep();
        drop(handoff.hand("c2", "r1"));
        handoff.hand("c3", "r2").keep();
        assert!(!handoff.take("c2"), "not kept: the decision failed");
        assert!(handoff.take("c1"));
        assert!(!handoff.take("c1"), "taken once");
        assert_eq!(handoff.take_run("r2"), ["c3"]);
        assert!(!handoff.take("c3"));
    }
}
