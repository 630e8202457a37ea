//! Approvals: a person's (or a rule's, or a timeout's) decision on one gated tool call.
//! `gate` is the one place where a new call is decided; `decide` applies a person's decision or a
//! timeout, and supersedes an approval whose target changed before the call ran (what was approved
//! is what runs); `rules` matches "allow for this thread"; `handoff` passes a call an approval claimed to
//! its run's driver.

pub mod gate;
pub mod handoff;
pub mod lifecycle;
pub mod rules;

pub use warden_types::approval::{
    Approval, ApprovalStatus, DecidedBy, Decision, DecisionInput, RuleMatcher, Scope, ThreadRule, Verdict,
};
