//! Requests on the cards of Warden's own calls end with their call. Once a call's result is settled
//! (done, failed, cancelled by a stopped run, interrupted by a restart), nobody is left to use a
//! decision on a request that still waits on it: it is rejected (`call_ended`, saying how the call
//! ended) and its client told at once, instead of waiting on a finished card until its timeout.

use tokio::sync::broadcast::error::RecvError;
use warden_engine::Engine;
use warden_types::id::ToolCallId;
use warden_types::run::ToolCallStatus;
use warden_types::ErrorKind;

use super::OutsideHub;
use crate::error::Result;
use crate::protocol::{DecidedBy, DeciderKind, Verdict};
use crate::record::{Decision, RequestStatus};

impl OutsideHub {
    /// Until shutdown: looks at every waiting request of Warden's calls now (calls may have ended while
    /// Warden was down), then at the waiting requests of each call as it ends (at all of them again
    /// after missing some ends).
    pub(super) async fn end_with_their_calls(self, engine: Engine) {
        let mut ended = engine.watch_ended_calls();
        let mut call: Option<ToolCallId> = None;
        loop {
            if let Err(error) = self.reject_orphans(&engine, call.as_ref()).await {
                tracing::error!(%error, "could not end the outside requests of calls that ended");
            }
            call = tokio::select! {
                () = self.inner.shutdown.cancelled() => return,
                next = ended.recv() => match next {
                    Ok(call) => Some(call),
                    Err(RecvError::Lagged(_)) => None,
                    Err(RecvError::Closed) => return,
                },
            };
        }
    }

    /// Rejects every pending request (of `call`, or of any call) whose call is no longer running.
    async fn reject_orphans(&self, engine: &Engine, call: Option<&ToolCallId>) -> Result<()> {
        for (request_id, call_id) in self.inner.store.pending_linked(call).await? {
            let how = match engine.tool_call(&call_id).await {
                Ok(call) if call.status == ToolCallStatus::Running => continue,
                Ok(call) => ended_how(call.status).to_string(),
                Err(error) if error.kind() == ErrorKind::NotFound => {
                    "Warden's call is gone (its thread was deleted)".into()
                }
                Err(error) => {
                    tracing::warn!(%error, %call_id, "could not read the call an outside request waits on");
                    continue;
                }
            };
            let decision = Decision {
                decision: Verdict::Rejected,
                reason: Some(how.clone()),
                edited_code: None,
                decided_by: DecidedBy { kind: DeciderKind::CallEnded, detail: how },
                person: None,
            };
            if self.inner.store.decide(&request_id, RequestStatus::Rejected, &decision).await? {
                self.decided(&request_id).await?;
            }
        }
        Ok(())
    }
}

/// Why nobody will use a decision any more, by how the call ended.
fn ended_how(status: ToolCallStatus) -> &'static str {
    match status {
        // A call the person stops while it runs ends done, with the stop as its (error) result.
        ToolCallStatus::Done => {
            "Warden's call ended before a decision (its run was stopped, or the tool finished without waiting)"
        }
        ToolCallStatus::Interrupted => "Warden's call was interrupted: Warden restarted while it ran",
        _ => "Warden's call is not running",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stopped_call_and_a_restart_are_told_apart() {
        assert!(ended_how(ToolCallStatus::Done).contains("stopped"));
        assert!(ended_how(ToolCallStatus::Interrupted).contains("restarted"));
    }
}
