//! Calls a person's approval has already marked `running`, waiting for their run's driver to start them.
//!
//! Approving a call is one transaction: the decision, the call marked running (claimed), the run marked
//! resumable. The driver then starts the call without a second write. A call marked running that is
//! not in this table was started by a process that died, and is never run again (it is settled as
//! interrupted), so an approved action runs at most once: if the server dies between the decision and
//! the start, the call shows as interrupted after the restart and the model is told.
//!
//! A call is handed over before the decision's transaction commits (and taken back if it fails), so a
//! driver that reads the call as running always finds it here. It comes with its [`Clearance`], as the
//! decision wrote it: the driver starts the call without reading the approval back.

use std::collections::HashMap;
use std::sync::Mutex;
use warden_types::id::RunId;
use warden_types::id::ToolCallId;

use warden_types::approval::Approval;

/// What cleared a call to run: the approval as decided, and the state of the call's target when its
/// card was shown (a tool that checks its target before acting refuses if it changed since).
#[derive(Debug, Clone, PartialEq)]
pub struct Clearance {
    pub approval: Approval,
    pub target_state: Option<String>,
}

#[derive(Default)]
pub struct Handoff {
    /// Call id -> its run's id and what cleared it.
    calls: Mutex<HashMap<ToolCallId, (RunId, Clearance)>>,
}

impl Handoff {
    fn calls(&self) -> std::sync::MutexGuard<'_, HashMap<ToolCallId, (RunId, Clearance)>> {
        self.calls.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Hands `call_id` of `run_id` to its driver; the guard takes it back unless `keep` is called.
    pub fn hand(&self, call_id: &ToolCallId, run_id: &RunId, clearance: Clearance) -> Handed<'_> {
        self.calls().insert(call_id.clone(), (run_id.clone(), clearance));
        Handed { handoff: self, call_id: call_id.clone(), kept: false }
    }

    /// What cleared `call_id`, if it was handed over (and takes it: only one driver starts it).
    pub fn take(&self, call_id: &ToolCallId) -> Option<Clearance> {
        self.calls().remove(call_id).map(|(_, clearance)| clearance)
    }

    /// Takes every call handed to `run_id`'s driver (a stopped run cancels them).
    pub fn take_run(&self, run_id: &RunId) -> Vec<ToolCallId> {
        let mut calls = self.calls();
        let ids: Vec<ToolCallId> =
            calls.iter().filter(|(_, (run, _))| run == run_id).map(|(id, _)| id.clone()).collect();
        for id in &ids {
            calls.remove(id);
        }
        ids
    }
}

/// A call handed over while its decision is being written.
pub struct Handed<'a> {
    handoff: &'a Handoff,
    call_id: ToolCallId,
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
    use warden_types::approval::ApprovalStatus;
    use warden_types::tool::Risk;
    use warden_types::tool::ToolOrigin;

    fn cleared(call_id: &str, target_state: Option<&str>) -> Clearance {
        let approval = Approval {
            id: format!("approval of {call_id}").into(),
            run_id: "r".into(),
            thread_id: "t".into(),
            tool_call_id: call_id.into(),
            tool: "shell".into(),
            origin: ToolOrigin::BuiltIn,
            arguments: serde_json::json!({"command": "echo ok"}),
            summary: "Run `echo ok`".into(),
            risk: Risk::Low,
            preview: None,
            status: ApprovalStatus::Approved,
            created_at: "then".into(),
            decided_at: Some("now".into()),
            expires_at: None,
            decision: None,
            route: None,
            votes: Vec::new(),
        };
        Clearance { approval, target_state: target_state.map(str::to_string) }
    }

    #[test]
    fn a_call_is_taken_once_with_its_clearance_and_a_failed_decision_takes_it_back() {
        let handoff = Handoff::default();
        handoff.hand(&"c1".into(), &"r1".into(), cleared("c1", Some("file hash"))).keep();
        drop(handoff.hand(&"c2".into(), &"r1".into(), cleared("c2", None)));
        handoff.hand(&"c3".into(), &"r2".into(), cleared("c3", None)).keep();
        assert_eq!(handoff.take(&"c2".into()), None, "not kept: the decision failed");
        assert_eq!(handoff.take(&"c1".into()), Some(cleared("c1", Some("file hash"))), "taken with what cleared it");
        assert_eq!(handoff.take(&"c1".into()), None, "taken once");
        assert_eq!(handoff.take_run(&"r2".into()), ["c3"]);
        assert_eq!(handoff.take(&"c3".into()), None);
    }
}
