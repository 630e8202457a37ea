//! The runtime's side of approvals: it settles them through `approval::lifecycle` and wakes the
//! run when settling says it can resume; it owns the approval timers.
//!
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

use std::sync::{Arc, Weak};
use std::time::{Duration, SystemTime};
use warden_types::id::ApprovalId;

use super::Runtime;
use crate::approval::lifecycle::SettledBy;
use crate::approval::{Approval, DecisionInput};
use crate::error::{Error, Result};
use crate::run::handles::ApprovalTimers;
use warden_db::timestamp::parse_time;
use warden_types::person::ActingPerson;
use warden_types::policy::VoteVia;

/// The runtime's approval timers, as the driver sees them.
pub struct Timers(pub Weak<Runtime>);

impl ApprovalTimers for Timers {
    fn arm(&self, approval_id: ApprovalId, after: Duration) {
        if let Some(rt) = self.0.upgrade() {
            schedule_timeout(&rt, approval_id, after);
        }
    }
}

/// A person's decision or vote; the run is woken to carry on once it is decided.
pub async fn decide(
    rt: &Arc<Runtime>,
    approval_id: &ApprovalId,
    person: &ActingPerson,
    input: DecisionInput,
    via: Option<VoteVia>,
) -> Result<Approval> {
    let tools = rt.handles.tools.snapshot();
    let by = SettledBy::Person { person: person.clone(), input, via };
    let settled = rt.handles.lifecycle(&tools).settle(approval_id, by).await?;
    if settled.resume {
        rt.resume(&settled.approval.run_id, settled.resumed);
    }
    Ok(settled.decided)
}

/// What the card of `approval_id` would show with `arguments` in place of its own (a person editing them
/// before approving): only for a pending approval the person may decide, with arguments the tool takes.
/// Reads the target as it is now (a file write's diff), within the tool timeout; changes nothing.
pub async fn preview_edit(
    rt: &Arc<Runtime>,
    approval_id: &ApprovalId,
    person: &ActingPerson,
    arguments: &serde_json::Value,
) -> Result<warden_types::approval::EditPreview> {
    let approval = rt.handles.store.approval(approval_id).await?;
    if approval.status != crate::approval::ApprovalStatus::Pending {
        return Err(Error::AlreadyDecided(approval_id.to_string()));
    }
    warden_policies::may_decide(&warden_policies::route_of(&approval), person)?;
    let tools = rt.handles.tools.snapshot();
    tools.validate(&approval.tool, arguments).map_err(|e| Error::InvalidArguments(e.to_string()))?;
    let Some(tool) = tools.get(&approval.tool) else {
        return Ok(warden_types::approval::EditPreview { summary: approval.summary, preview: None });
    };
    let preview = tokio::time::timeout(rt.handles.config.tool_timeout, tool.preview_with_state(arguments))
        .await
        .ok()
        .and_then(|p| p.0);
    Ok(warden_types::approval::EditPreview { summary: tool.summary(arguments), preview })
}

/// Settles the approval as timed out (never as the person's denial) if it is still pending.
pub async fn settle_timeout(rt: &Arc<Runtime>, approval_id: &ApprovalId) -> Result<()> {
    // The approval's own policy's timeout, else the server's (what the model is told it waited).
    let route = rt.handles.store.approval(approval_id).await?.route;
    let secs = crate::run::call_plan::wait_limit(&rt.handles, route.as_ref()).map(|d| d.as_secs()).unwrap_or(0);
    let tools = rt.handles.tools.snapshot();
    match rt.handles.lifecycle(&tools).settle(approval_id, SettledBy::Timeout { secs }).await {
        Ok(settled) => {
            if settled.resume {
                rt.resume(&settled.approval.run_id, settled.resumed);
            }
            Ok(())
        }
        Err(Error::AlreadyDecided(_)) => Ok(()),
        Err(e) => Err(e),
    }
}

/// Fires the approval's timeout after `after`, unless the server shuts down first.
pub fn schedule_timeout(rt: &Arc<Runtime>, approval_id: ApprovalId, after: Duration) {
    let rt = rt.clone();
    tokio::spawn(async move {
        tokio::select! {
            _ = rt.handles.shutdown.cancelled() => {}
            _ = tokio::time::sleep(after) => {
                if let Err(e) = settle_timeout(&rt, &approval_id).await {
                    tracing::error!(%approval_id, error = %e, "could not time out an approval");
                }
            }
        }
    });
}

/// After a restart: re-arm the timers of pending approvals that have a deadline.
pub async fn restore_timeouts(rt: &Arc<Runtime>) -> Result<()> {
    for (id, expires_at) in rt.handles.store.expiring_approvals().await? {
        let left =
            parse_time(&expires_at).and_then(|t| t.duration_since(SystemTime::now()).ok()).unwrap_or(Duration::ZERO);
        schedule_timeout(rt, id, left);
    }
    Ok(())
}
