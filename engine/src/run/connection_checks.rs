//! The driver's side of connection checks (see `approval::gate` for the call's side): before a
//! run's first model turn, a check for each offline or disabled MCP server the person's message
//! names with `@name`; once the person connected a server, its waiting calls decided again like new
//! ones; and a stopped run's checks cancelled. The person's decisions are `runtime::connection_checks`.

use std::collections::HashSet;
use std::time::SystemTime;
use warden_types::id::{ConnectionCheckId, RunId, ThreadId};

use tokio_util::sync::CancellationToken;

use super::call_plan;
use super::{tool_set, RunEvent, RunSummary, ToolCallRecord, ToolCallStatus};
use crate::connection::ServerView;
use crate::error::Result;
use crate::message::Role;
use crate::run::handles::RunHandles;
use crate::store::{NewCheck, Replanned, Store};
use crate::thread::ThreadOptions;
use crate::toolbox::SourceServer;
use warden_types::connection::CheckReason;

/// The MCP servers as the thread's run sees them now: none with tools or MCP tools switched off.
pub async fn server_view(rt: &RunHandles, thread_id: &ThreadId, options: &ThreadOptions) -> Result<ServerView> {
    view_of(rt, thread_id, options, || rt.tools.servers()).await
}

/// `server_view`, of the servers `listed` gives (asked only when the thread offers MCP tools).
async fn view_of(
    rt: &RunHandles,
    thread_id: &ThreadId,
    options: &ThreadOptions,
    listed: impl FnOnce() -> Vec<SourceServer>,
) -> Result<ServerView> {
    if !options.tools || !options.mcp {
        return Ok(ServerView::default());
    }
    let left_out = rt.store.servers_left_out(thread_id, SystemTime::now()).await?;
    Ok(ServerView::new(listed(), left_out))
}

/// Asks about every down server the person's latest message names (once per run and server; a
/// server the thread goes on without is not asked about). The driver then waits while any check of
/// the run is pending.
pub async fn ask_about_mentions(rt: &RunHandles, run: &RunSummary) -> Result<()> {
    // No server is down (the common case): nothing to ask, nothing to read.
    let listed = rt.tools.servers();
    if listed.iter().all(|s| s.down.is_none()) {
        return Ok(());
    }
    let options = rt.store.thread_options(&run.thread_id).await?;
    // The list just read, not a second one.
    let servers = view_of(rt, &run.thread_id, &options, || listed).await?;
    if !servers.any_to_ask_about() {
        return Ok(());
    }
    let messages = rt.store.messages(&run.thread_id).await?;
    let Some(prompt) = messages.iter().rev().find(|m| m.role == Role::User) else { return Ok(()) };
    let needed: Vec<_> = servers.needed_by_mentions(&prompt.content).into_iter().filter(|n| !n.left_out).collect();
    if needed.is_empty() {
        return Ok(());
    }
    let asked: HashSet<String> = rt
        .store
        .connection_checks_of_run(&run.id)
        .await?
        .into_iter()
        .filter(|c| c.reason == CheckReason::Mentioned)
        .map(|c| c.server)
        .collect();
    let mut made = Vec::new();
    let mut tx = rt.store.write_tx().await?;
    for needed in needed.iter().filter(|n| !asked.contains(&n.server)) {
        let id = ConnectionCheckId::new();
        let check = NewCheck {
            id: &id,
            run_id: &run.id,
            thread_id: &run.thread_id,
            server: &needed.server,
            reason: &CheckReason::Mentioned,
            down: needed.down,
        };
        Store::insert_connection_check(&mut tx, &check).await?;
        made.push(id);
    }
    tx.commit().await?;
    for id in made {
        let check = rt.store.connection_check(&id).await?;
        rt.events.emit(&run.id, &RunEvent::ConnectionCheck { check });
    }
    Ok(())
}

/// What deciding a waiting call again came to.
pub enum Replan {
    /// Cleared to run: the driver runs it now.
    Run(Box<ToolCallRecord>),
    /// It waits for a person (an approval, or its server is down again).
    Waits,
    /// Settled without running (an invalid call), or settled by someone else first.
    Settled,
    /// The run was stopped meanwhile.
    Stopped,
}

/// A call that waited for its server, which the person connected: decided again, as a new call of
/// this turn would be now (the approval point, the thread's rules and switches, the servers' state).
pub async fn replan(
    rt: &RunHandles,
    run: &RunSummary,
    call: &ToolCallRecord,
    cancel: &CancellationToken,
) -> Result<Replan> {
    let options = rt.store.thread_options(&run.thread_id).await?;
    let registry = tool_set::registry(rt, run, &options);
    let rules = rt.store.rules_of_thread(&run.thread_id).await?;
    let servers = server_view(rt, &run.thread_id, &options).await?;
    let Some(plan) = call_plan::plan(rt, &registry, &rules, &servers, &call.name, &call.arguments, cancel).await else {
        return Ok(Replan::Stopped);
    };
    let (status, output) = plan.status();
    let requester = match plan.decision {
        crate::approval::gate::CallDecision::Ask => rt.store.run_requester(&run.id).await?,
        _ => None,
    };
    let route = call_plan::route(rt, requester.as_ref(), &call.name, &plan);
    let expires_at = call_plan::expiry(rt, route.as_ref());
    let mut tx = rt.store.write_tx().await?;
    let recording =
        call_plan::Recording { run, call, plan: &plan, expires_at: expires_at.as_deref(), route: route.as_ref() };
    let recorded = call_plan::record(&mut tx, recording).await?;
    let replanned = Replanned {
        status,
        summary: &plan.summary,
        risk: plan.risk,
        needs_approval: plan.needs_approval,
        origin: &plan.origin,
        preview: plan.preview.as_ref(),
        output: output.as_deref(),
        check_id: recorded.check_id.as_ref(),
    };
    // Not pending any more: settled by someone else (a stop); dropping the transaction undoes the rest.
    let Some(record) = Store::replan_call(&mut tx, &call.id, &replanned).await? else {
        return Ok(Replan::Settled);
    };
    tx.commit().await?;
    rt.events.emit(
        &run.id,
        &RunEvent::ToolCall {
            id: record.id.clone(),
            name: record.name.clone(),
            arguments: record.arguments.clone(),
            call: record.clone(),
        },
    );
    call_plan::announce(rt, run, record.clone(), &plan, &recorded).await?;
    Ok(match status {
        ToolCallStatus::Approved => Replan::Run(Box::new(record)),
        ToolCallStatus::Pending => Replan::Waits,
        _ => Replan::Settled,
    })
}

/// The run stopped (or failed): its pending checks are cancelled and the page told.
pub async fn cancel(rt: &RunHandles, run_id: &RunId) -> Result<()> {
    for check in rt.store.cancel_checks_of_run(run_id).await? {
        rt.events.emit(run_id, &RunEvent::ConnectionCheck { check });
    }
    Ok(())
}
