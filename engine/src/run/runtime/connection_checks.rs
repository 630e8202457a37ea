//! A person's answer to a connection check, which applies only to the check it names and only while
//! that check is pending (`Error::CheckDecided` otherwise).
//!
//! Connect: the server is enabled if it was disabled and connected now; once it is connected the
//! check is settled and the run woken, and its waiting calls are decided again by the driver (through
//! the usual approval point). If it does not connect, the check stays pending with the error.
//!
//! Continue anyway: in one transaction the check is settled, the thread goes on without the server
//! for an hour (`CONTINUE_WITHOUT_SECS`), the calls waiting on it are settled with a result telling
//! the model the server is unavailable, and the run is made resumable; then it is woken.

use std::sync::Arc;
use std::time::{Duration, SystemTime};
use warden_types::id::ConnectionCheckId;

use super::Runtime;
use crate::approval::lifecycle::result_event;
use crate::error::{Error, Result};
use crate::outcome_text;
use crate::store::{Store, WriteBatch};
use warden_tools::ToolContent;
use warden_types::connection::{CheckDecision, CheckStatus, ConnectionCheck, CONTINUE_WITHOUT_SECS};
use warden_types::event::RunEvent;

/// Longest connection error kept on a check (it comes from the server or its process).
const MAX_ERROR_CHARS: usize = 2000;

pub async fn decide(
    rt: &Arc<Runtime>,
    check_id: &ConnectionCheckId,
    decision: CheckDecision,
) -> Result<ConnectionCheck> {
    let check = rt.handles.store.connection_check(check_id).await?;
    if check.status != CheckStatus::Pending {
        return Err(Error::CheckDecided(check_id.to_string()));
    }
    match decision {
        CheckDecision::Connect => connect(rt, check).await,
        CheckDecision::ContinueWithout => continue_without(rt, check).await,
    }
}

async fn connect(rt: &Arc<Runtime>, check: ConnectionCheck) -> Result<ConnectionCheck> {
    let store = &rt.handles.store;
    let attempt = rt.handles.tools.connect(&check.server).await;
    let changed = match attempt {
        Ok(()) => {
            let mut tx = store.write_tx().await?;
            let decided = Store::decide_check(&mut tx, &check.id, CheckStatus::Connected).await?;
            if decided.is_some() {
                let mut batch = WriteBatch::new();
                Store::mark_run_resumable(&mut batch, &check.run_id);
                batch.run_in(&mut tx).await?;
                tx.commit().await?;
            }
            decided
        }
        Err(why) => {
            tracing::info!(server = check.server, error = why, "a connection check's Connect did not connect");
            let why: String = why.chars().take(MAX_ERROR_CHARS).collect();
            store.record_check_error(&check.id, &why).await?
        }
    };
    // Decided by someone else while this one connected.
    let changed = changed.ok_or_else(|| Error::CheckDecided(check.id.to_string()))?;
    rt.handles.events.emit(&check.run_id, &RunEvent::ConnectionCheck { check: changed.clone() });
    if changed.status == CheckStatus::Connected {
        rt.wake(&check.run_id);
    }
    Ok(changed)
}

async fn continue_without(rt: &Arc<Runtime>, check: ConnectionCheck) -> Result<ConnectionCheck> {
    let store = &rt.handles.store;
    let until = SystemTime::now() + Duration::from_secs(CONTINUE_WITHOUT_SECS);
    let output = [ToolContent::Text { text: outcome_text::server_left_out(&check.server, check.down) }];
    let mut tx = store.write_tx().await?;
    let Some(decided) = Store::decide_check(&mut tx, &check.id, CheckStatus::ContinuedWithout).await? else {
        return Err(Error::CheckDecided(check.id.to_string()));
    };
    Store::leave_server_out(&mut tx, &check.thread_id, &check.server, until).await?;
    let settled = Store::settle_calls_of_check(&mut tx, &check.id, &output).await?;
    let mut batch = WriteBatch::new();
    Store::mark_run_resumable(&mut batch, &check.run_id);
    batch.run_in(&mut tx).await?;
    tx.commit().await?;
    let events = &rt.handles.events;
    events.emit(&check.run_id, &RunEvent::ConnectionCheck { check: decided.clone() });
    for call in settled {
        events.emit(&check.run_id, &result_event(call, rt.handles.config.tool_output_limit));
    }
    rt.wake(&check.run_id);
    Ok(decided)
}
