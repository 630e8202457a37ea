//! Applying a decision to a pending approval: a person's (approve, edit, deny, allow for the
//! thread), a timeout's, or a stopped run's. Each is one transaction that only succeeds while the
//! approval is pending; then the run is woken to carry on.
//!
//! What was approved is what runs. A decision names one approval by id and applies the arguments
//! that approval showed (or the person's edit, validated, in their place), never a later card's.
//! For a tool that reports a target state with its preview (`Tool::preview_with_state`; a file
//! write gives the SHA-256 of the file, or `absent`), the approval keeps that state, and the
//! driver runs the approved call with `Tool::call_if_unchanged`, which compares it on the very
//! descriptor it writes. If the target changed after the card was shown, nothing is written and
//! `supersede_changed_target` settles the approval as `superseded` (the model is told nothing: it
//! is not a denial) and puts the call back to waiting with a new approval whose preview is the
//! diff against what is there now.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::Value;

use super::rules::rule_for;
use super::{Approval, ApprovalStatus, DecidedBy, Decision, DecisionInput, Scope, Verdict};
use crate::error::{Error, Result};
use crate::run::outcome_text;
use crate::run::{RunEvent, ToolCallRecord, ToolCallStatus};
use crate::runtime::Runtime;
use crate::store::{new_id, parse_time, NewApproval, Store};
use crate::tools::{Preview, ToolContent};

const MAX_REASON_CHARS: usize = 4000;

pub async fn decide(rt: &Arc<Runtime>, approval_id: &str, input: DecisionInput) -> Result<Approval> {
    let approval = rt.store.approval(approval_id).await?;
    if approval.status != ApprovalStatus::Pending {
        return Err(Error::AlreadyDecided(approval_id.to_string()));
    }
    if input.reason.as_ref().is_some_and(|r| r.chars().count() > MAX_REASON_CHARS) {
        return Err(Error::Invalid(format!("reason must be at most {MAX_REASON_CHARS} characters")));
    }
    let (status, call_status, arguments, output) = match input.decision {
        Verdict::Approve => {
            let arguments = match &input.arguments {
                Some(edited) => {
                    rt.tools
                        .snapshot()
                        .validate(&approval.tool, edited)
                        .map_err(|e| Error::InvalidArguments(e.to_string()))?;
                    edited.clone()
                }
                None => approval.arguments.clone(),
            };
            (ApprovalStatus::Approved, ToolCallStatus::Approved, arguments, None)
        }
        Verdict::Deny => {
            if input.arguments.is_some() {
                return Err(Error::Invalid("`arguments` can only come with `approve`".into()));
            }
            if input.scope == Scope::Thread {
                return Err(Error::Invalid("`scope: thread` can only come with `approve`".into()));
            }
            let output = vec![ToolContent::Text { text: outcome_text::denied(input.reason.as_deref()) }];
            (ApprovalStatus::Denied, ToolCallStatus::Denied, approval.arguments.clone(), Some(output))
        }
    };
    let rule = match input.scope {
        Scope::Thread => Some(rule_for(&approval.tool, &arguments, input.prefix.as_deref()).map_err(Error::Invalid)?),
        Scope::Once if input.prefix.is_some() => {
            return Err(Error::Invalid("`prefix` can only come with `scope: thread`".into()))
        }
        Scope::Once => None,
    };
    if input.network {
        if status != ApprovalStatus::Approved || input.scope != Scope::Once {
            return Err(Error::Invalid("`network` can only come with `approve` for this one call (scope `once`)".into()));
        }
        let sandboxed = rt.tools.snapshot().get(&approval.tool).is_some_and(|t| t.runs_sandboxed_commands());
        if !sandboxed {
            return Err(Error::Invalid(format!("`network` applies only to sandboxed commands, not to `{}`", approval.tool)));
        }
    }
    let edited = input.arguments.as_ref().filter(|a| **a != approval.arguments).cloned();
    let decision = Decision {
        status,
        by: DecidedBy::User {
            edited_arguments: edited.clone(),
            reason: input.reason.clone(),
            scope: input.scope,
            network: input.network,
        },
    };

    let mut tx = rt.store.pool().begin().await?;
    if !Store::record_decision(&mut tx, approval_id, &decision).await? {
        return Err(Error::AlreadyDecided(approval_id.to_string()));
    }
    let run_with = edited.as_ref().or(Some(&arguments)).filter(|_| status == ApprovalStatus::Approved);
    // The decision applies to this approval's call only while the call waits on it; dropping the
    // transaction rolls the decision back.
    if !Store::resolve_pending_call(&mut tx, &approval.tool_call_id, call_status, run_with, output.as_deref()).await? {
        return Err(Error::AlreadyDecided(approval_id.to_string()));
    }
    if let Some(rule) = &rule {
        Store::insert_rule(&mut tx, &approval.thread_id, &approval.tool, rule).await?;
    }
    Store::mark_run_resumable(&mut tx, &approval.run_id).await?;
    tx.commit().await?;

    resolved(rt, &approval, status.as_str(), arguments);
    if let Some(output) = &output {
        rt.events.emit(&approval.run_id, &RunEvent::ToolResult {
            tool_call_id: approval.tool_call_id.clone(),
            output: outcome_text::for_model(output, usize::MAX).0,
            is_error: true,
            truncated: false,
        });
    }
    rt.wake(&approval.run_id);
    rt.store.approval(approval_id).await
}

fn resolved(rt: &Runtime, approval: &Approval, decision: &str, arguments: Value) {
    rt.events.emit(&approval.run_id, &RunEvent::ApprovalResolved {
        approval_id: approval.id.clone(),
        tool_call_id: approval.tool_call_id.clone(),
        decision: decision.to_string(),
        arguments,
    });
}

/// Settles the approval as timed out (never as the person's denial) if it is still pending.
pub async fn settle_timeout(rt: &Arc<Runtime>, approval_id: &str) -> Result<()> {
    let approval = rt.store.approval(approval_id).await?;
    if approval.status != ApprovalStatus::Pending {
        return Ok(());
    }
    let secs = rt.config.approval_timeout.map(|d| d.as_secs()).unwrap_or(0);
    let output = vec![ToolContent::Text { text: outcome_text::timed_out(secs) }];
    let decision = Decision { status: ApprovalStatus::TimedOut, by: DecidedBy::Timeout };
    let mut tx = rt.store.pool().begin().await?;
    if !Store::record_decision(&mut tx, approval_id, &decision).await? {
        return Ok(());
    }
    Store::resolve_pending_call(&mut tx, &approval.tool_call_id, ToolCallStatus::TimedOut, None, Some(&output)).await?;
    Store::mark_run_resumable(&mut tx, &approval.run_id).await?;
    tx.commit().await?;
    resolved(rt, &approval, "timed_out", approval.arguments.clone());
    rt.events.emit(&approval.run_id, &RunEvent::ToolResult {
        tool_call_id: approval.tool_call_id.clone(),
        output: outcome_text::timed_out(secs),
        is_error: true,
        truncated: false,
    });
    rt.wake(&approval.run_id);
    Ok(())
}

/// The run was stopped while this approval waited.
pub async fn settle_cancelled(rt: &Runtime, approval: &Approval) -> Result<bool> {
    let decision = Decision { status: ApprovalStatus::Cancelled, by: DecidedBy::RunStopped };
    let mut tx = rt.store.pool().begin().await?;
    let done = Store::record_decision(&mut tx, &approval.id, &decision).await?;
    tx.commit().await?;
    Ok(done)
}

/// The approved call's target changed after its card was shown (`ToolError::TargetChanged` from
/// `Tool::call_if_unchanged`): nothing ran. The approval is settled as superseded and the call,
/// claimed as running, goes back to pending with a new approval showing the diff against the
/// target as it is now. Returns whether it did (`false`: someone else settled the call first).
pub async fn supersede_changed_target(rt: &Arc<Runtime>, call: &ToolCallRecord, approval: &Approval) -> Result<bool> {
    let tool = rt.tools.snapshot().get(&call.name);
    let (preview, state): (Option<Preview>, Option<String>) = match &tool {
        Some(tool) => tokio::time::timeout(rt.config.tool_timeout, tool.preview_with_state(&call.arguments))
            .await
            .unwrap_or((None, None)),
        None => (None, None),
    };
    let (summary, risk) = match &tool {
        Some(tool) => (tool.summary(&call.arguments), tool.risk(&call.arguments)),
        None => (call.summary.clone(), call.risk),
    };
    let new_approval_id = new_id();
    let decision = Decision {
        status: ApprovalStatus::Superseded,
        by: DecidedBy::TargetChanged { replaced_by: new_approval_id.clone() },
    };
    let expires_at = rt.config.approval_timeout.map(|t| crate::store::at(SystemTime::now() + t));
    let mut tx = rt.store.pool().begin().await?;
    if !Store::supersede_approval(&mut tx, &approval.id, &decision).await?
        || !Store::reopen_call(&mut tx, &call.id, &summary, risk, preview.as_ref()).await?
    {
        return Ok(false);
    }
    Store::insert_approval(&mut tx, &NewApproval {
        id: &new_approval_id,
        tool_call_id: &call.id,
        run_id: &call.run_id,
        thread_id: &call.thread_id,
        // The arguments the call runs with (the person's edit, if there was one), shown again.
        arguments: &call.arguments,
        status: ApprovalStatus::Pending,
        decision: None,
        expires_at,
        preview: preview.as_ref(),
        target_state: state.as_deref(),
    })
    .await?;
    tx.commit().await?;

    resolved(rt, approval, ApprovalStatus::Superseded.as_str(), call.arguments.clone());
    let fresh = rt.store.approval(&new_approval_id).await?;
    rt.events.emit(&call.run_id, &RunEvent::ApprovalRequest { approval: fresh });
    if let Some(timeout) = rt.config.approval_timeout {
        schedule_timeout(rt, new_approval_id, timeout);
    }
    Ok(true)
}

/// Fires the approval's timeout after `after`, unless the server shuts down first.
pub fn schedule_timeout(rt: &Arc<Runtime>, approval_id: String, after: Duration) {
    let rt = rt.clone();
    tokio::spawn(async move {
        tokio::select! {
            _ = rt.shutdown.cancelled() => {}
            _ = tokio::time::sleep(after) => {
                if let Err(e) = settle_timeout(&rt, &approval_id).await {
                    tracing::error!(approval_id, error = %e, "could not time out an approval");
                }
            }
        }
    });
}

/// After a restart: re-arm the timers of pending approvals that have a deadline.
pub async fn restore_timeouts(rt: &Arc<Runtime>) -> Result<()> {
    for (id, expires_at) in rt.store.expiring_approvals().await? {
        let left = parse_time(&expires_at)
            .and_then(|t| t.duration_since(SystemTime::now()).ok())
            .unwrap_or(Duration::ZERO);
        schedule_timeout(rt, id, left);
    }
    Ok(())
}
