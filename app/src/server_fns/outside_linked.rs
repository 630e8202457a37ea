//! Outside requests that belong to tool calls of Warden's own runs: an executor an MCP tool called
//! asked for approval naming the call (`warden_call_id`), so the request shows on that call's card in
//! the thread, and counts with the thread, instead of as an inbox item of its own. Deciding one goes
//! through `decide_outside` like any outside request.

use leptos::prelude::*;
use leptos::server_fn::codec::Json;
use warden_outside::OutsideRequest;
use warden_types::id::ThreadId;

use crate::error::AppError;

/// The outside requests on the cards of the thread's calls (pending and decided), oldest first, for a
/// person who may read the thread.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn linked_outside_requests(thread_id: ThreadId) -> Result<Vec<OutsideRequest>, AppError> {
    let (engine, reader) = (super::engine()?, super::asker::reader()?);
    engine.as_reader(&reader).access(&thread_id).await?;
    Ok(super::outside::hub()?.linked_to_thread(&thread_id).await?)
}

/// Adds the outside requests waiting on the cards of each thread's calls to its count of what waits.
#[cfg(feature = "ssr")]
pub(crate) async fn count_linked_pending(threads: &mut [crate::model::Thread]) -> Result<(), AppError> {
    let waiting = super::outside::hub()?.pending_linked_by_thread().await?;
    if waiting.is_empty() {
        return Ok(());
    }
    for thread in threads {
        if let Some(n) = waiting.get(&thread.id) {
            let n = u32::try_from(*n).unwrap_or(u32::MAX);
            thread.pending_approvals = thread.pending_approvals.saturating_add(n);
        }
    }
    Ok(())
}
