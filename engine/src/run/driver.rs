//! The agent loop. It works from SQLite, not memory: each pass settles the calls of the latest
//! turn (running the approved ones), pauses while any call waits for a person, and otherwise asks
//! the model for the next turn, until the model answers without tools or the step limit is hit.

use futures::StreamExt;
use tokio_util::sync::CancellationToken;
use warden_types::id::{MessageId, RuleId, RunId, ToolCallId};

use super::call_plan::{self, CallPlan, Recorded};
use super::connection_checks::{self, Replan};
use super::conversation::Conversation;
use super::{long_results, title, tool_set, RunEvent, RunStatus, RunSummary, ToolCallRecord, ToolCallStatus};
use crate::approval::gate::{parse_arguments, CallDecision};
use crate::approval::handoff::Clearance;
use crate::approval::lifecycle::result_event;
use crate::approval::lifecycle::SettledBy;
use crate::connection::ServerView;
use crate::error::{Error, Result};
use crate::message::{Block, Role};
use crate::outcome_text::{self, for_model};
use crate::run::handles::RunHandles;
use crate::shown::shown;
use crate::store::{NewToolCall, Store, WriteBatch};
use warden_llm::{StreamEvent, ToolCallAccumulator, TurnRequest};
use warden_tools::{ToolContent, ToolContext, ToolError, ToolOutput};
use warden_types::connection::CheckStatus;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Paused: a call waits for a decision.
    Waiting,
    /// Finished, failed or stopped (or the server is shutting down).
    Ended,
}

enum Turn {
    /// The model answered without tools: the answer is stored with the run finished.
    Answered {
        message_id: MessageId,
    },
    /// The model asked for tools; they are recorded, as returned here.
    CalledTools {
        calls: Vec<ToolCallRecord>,
    },
    Stopped {
        message_id: Option<MessageId>,
    },
    Failed(String),
}

/// What a driver is handed instead of reading it first: the run's row as its start or a decision
/// stored it and, after a decision, the calls of its latest turn as that decision left them.
pub struct Known {
    pub run: RunSummary,
    pub turn_calls: Option<Vec<ToolCallRecord>>,
}

/// `stored`: what the caller has as stored (a run just started, or resumed by a decision); read
/// otherwise.
pub async fn drive(
    rt: &RunHandles,
    run_id: &RunId,
    stored: Option<Known>,
    cancel: &CancellationToken,
) -> Result<Outcome> {
    let (run, mut known) = match stored {
        Some(Known { run, turn_calls }) => (run, turn_calls.map(KnownCalls::Read)),
        // Read together: the run's row and its latest turn's calls, which the first pass settles.
        None => {
            let (run, calls) = tokio::try_join!(rt.store.run(run_id), rt.store.calls_of_runs_last_message(run_id))?;
            (run, Some(KnownCalls::Read(calls)))
        }
    };
    if run.status.is_terminal() {
        return Ok(Outcome::Ended);
    }
    if run.status != RunStatus::Running {
        rt.store.set_run_status(run_id, RunStatus::Running, None).await?;
    }
    let mut step = run.step;
    loop {
        if cancel.is_cancelled() {
            return stopped(rt, &run, None).await;
        }
        if let Some(pending) = settle_latest_turn(rt, &run, step, known.take(), cancel).await? {
            if cancel.is_cancelled() {
                return stopped(rt, &run, None).await;
            }
            if pending {
                rt.store.set_run_status(run_id, RunStatus::Waiting, None).await?;
                return Ok(Outcome::Waiting);
            }
        }
        // The model is not asked while the run waits for a person to Connect a server or Continue
        // anyway; before the first turn, the servers the person's message names are checked.
        if step == 0 {
            connection_checks::ask_about_mentions(rt, &run).await?;
        }
        // No turn while a check waits. Only the run's own driver (this one) makes checks, and a
        // person's answer only settles one, so what this read finds holds until the turn: it is read
        // with what the turn reads, on the readers, and the step the turn takes is stored with what
        // the turn stores (`model_turn`), not by a write of its own before the model is asked.
        let (waits, inputs) = if step >= run.max_steps {
            (rt.store.run_has_pending_check(run_id).await?, None)
        } else {
            let (waits, inputs) = tokio::try_join!(rt.store.run_has_pending_check(run_id), TurnInputs::read(rt, &run))?;
            (waits, Some(inputs))
        };
        if waits {
            rt.store.set_run_status(run_id, RunStatus::Waiting, None).await?;
            return Ok(Outcome::Waiting);
        }
        let Some(inputs) = inputs else {
            let msg =
                format!("Stopped at the step limit ({} of {} steps). Retry to let it continue.", step, run.max_steps);
            return failed(rt, &run, msg).await;
        };
        step += 1;
        rt.events.emit(run_id, &RunEvent::Step { n: step, max: run.max_steps, action: "Thinking".into() });
        match model_turn(rt, &run, step, inputs, cancel).await? {
            Turn::CalledTools { calls } => {
                known = Some(KnownCalls::Written(calls));
                continue;
            }
            Turn::Answered { message_id } => {
                // The answer was stored with the run finished (and the thread's activity marked); the
                // thread is named after the run has ended.
                rt.events.emit(run_id, &RunEvent::RunFinished { message_id: Some(message_id), stopped: false });
                title::name_after_answer(rt, &run);
                return Ok(Outcome::Ended);
            }
            Turn::Stopped { message_id } => return stopped(rt, &run, message_id).await,
            Turn::Failed(message) => return failed(rt, &run, message).await,
        }
    }
}

/// The latest turn's calls, when the driver has them without a read of its own.
enum KnownCalls {
    /// As this driver just recorded them. A decision or a Connect that came in since is not in them,
    /// but it woke the run, and this driver, still active, drives it again after this pass
    /// (`Runtime`'s rewake), reading what the decision wrote.
    Written(Vec<ToolCallRecord>),
    /// As read with the run's row when the drive began (or by the decision that woke it, in the
    /// same transaction).
    Read(Vec<ToolCallRecord>),
}

/// Runs the approved calls of the run's latest assistant turn and marks calls left running by a
/// dead server as interrupted. `None`: the latest message is not a turn with calls; otherwise
/// whether some call still waits for a person.
///
/// `known`: the turn's calls if the driver has them (see [`KnownCalls`]); read otherwise.
async fn settle_latest_turn(
    rt: &RunHandles,
    run: &RunSummary,
    step: u32,
    known: Option<KnownCalls>,
    cancel: &CancellationToken,
) -> Result<Option<bool>> {
    // A run at step 0 has no turn stored (a turn is stored with its step): a new run skips the read.
    if step == 0 {
        return Ok(None);
    }
    let (calls, just_written) = match known {
        Some(KnownCalls::Written(calls)) => (calls, true),
        Some(KnownCalls::Read(calls)) => (calls, false),
        None => (rt.store.calls_of_runs_last_message(&run.id).await?, false),
    };
    if calls.is_empty() {
        return Ok(None);
    }
    // Calls waiting for their MCP server, with the status of the check they wait on. A check the
    // turn just asked is pending (a Connect since then woke the run: see above).
    let awaiting = if !just_written && calls.iter().any(|c| c.status == ToolCallStatus::Pending) {
        rt.store.calls_awaiting_checks(&run.id).await?
    } else {
        Default::default()
    };
    let mut pending = false;
    for call in &calls {
        match call.status {
            // Cancelled: `stopped` settles the calls still handed over.
            ToolCallStatus::Running if cancel.is_cancelled() => break,
            ToolCallStatus::Running => match rt.handoff.take(&call.id) {
                // Claimed by a person's approval and handed to this driver: start it.
                Some(clearance) => {
                    if execute(rt, run, step, call, cancel, Claim::Done(Box::new(clearance))).await?
                        == Executed::AskedAgain
                    {
                        pending = true;
                    }
                }
                // Only one driver exists per run, so a call marked running that nobody handed over was
                // started by a process that died: never run it again.
                None => {
                    let output = [ToolContent::Text { text: outcome_text::INTERRUPTED.into() }];
                    let settled = rt
                        .store
                        .settle_tool_call(
                            &call.id,
                            ToolCallStatus::Running,
                            ToolCallStatus::Interrupted,
                            &output,
                            true,
                            false,
                            None,
                        )
                        .await?;
                    emit_results(rt, &run.id, settled);
                }
            },
            ToolCallStatus::Approved => {
                if cancel.is_cancelled() {
                    break;
                }
                if execute(rt, run, step, call, cancel, Claim::Needed).await? == Executed::AskedAgain {
                    pending = true;
                }
            }
            // Its server was connected: decided again now, like a new call.
            ToolCallStatus::Pending
                if awaiting.get(&call.id) == Some(&CheckStatus::Connected) && !cancel.is_cancelled() =>
            {
                match connection_checks::replan(rt, run, call, cancel).await? {
                    Replan::Run(cleared) => {
                        if execute(rt, run, step, &cleared, cancel, Claim::Needed).await? == Executed::AskedAgain {
                            pending = true;
                        }
                    }
                    Replan::Waits => pending = true,
                    Replan::Settled => {}
                    Replan::Stopped => break,
                }
            }
            ToolCallStatus::Pending => pending = true,
            _ => {}
        }
    }
    Ok(Some(pending))
}

/// Whether the call is already marked running (claimed by the decision, which handed over what cleared
/// it) or must be claimed here.
#[derive(Debug)]
enum Claim {
    Done(Box<Clearance>),
    Needed,
}

#[derive(Debug, PartialEq, Eq)]
enum Executed {
    /// Ran (or was claimed elsewhere, or was cut short); the call is settled or left for restart.
    Settled,
    /// Its target changed after the card was shown, or the thread rule that cleared it was revoked
    /// before it started: it did not run and waits for a new decision.
    AskedAgain,
}

async fn execute(
    rt: &RunHandles,
    run: &RunSummary,
    step: u32,
    call: &ToolCallRecord,
    cancel: &CancellationToken,
    claim: Claim,
) -> Result<Executed> {
    // A call already decided runs whatever the thread's switches say now.
    let registry = tool_set::registry(rt, run, &crate::thread::ThreadOptions::default());
    // The approval that cleared this call, and the target state it saw: as the decision handed them
    // over, or read before the claim.
    let clearance = match claim {
        Claim::Done(clearance) => {
            let Clearance { approval, target_state } = *clearance;
            Some((approval, target_state))
        }
        Claim::Needed => {
            let clearance = rt.store.clearance_of_call(&call.id).await?;
            // A call a thread rule cleared starts only while the rule exists (checked in the claim).
            let rule_id = clearance.as_ref().and_then(|(approval, _)| approval.cleared_by_rule());
            if !rt.store.mark_tool_call_started(&call.id, rule_id).await? {
                if let (Some((approval, _)), Some(rule_id)) = (&clearance, rule_id) {
                    if rt.store.rule(rule_id).await?.is_none() {
                        return reask_revoked_rule(rt, &registry, call, approval, rule_id).await;
                    }
                }
                return Ok(Executed::Settled);
            }
            clearance
        }
    };
    let network = clearance.as_ref().is_some_and(|(approval, _)| approval.network_granted());
    let binding = clearance.and_then(|(approval, state)| state.map(|s| (approval, s)));
    rt.events.emit(&run.id, &RunEvent::Step { n: step, max: run.max_steps, action: call.summary.clone() });
    let (progress_tx, mut progress_rx) = tokio::sync::mpsc::unbounded_channel::<warden_tools::Progress>();
    let events = rt.events.clone();
    let (run_id, call_id) = (run.id.clone(), call.id.clone());
    let forward = tokio::spawn(async move {
        while let Some(p) = progress_rx.recv().await {
            events.emit(
                &run_id,
                &RunEvent::ToolProgress {
                    tool_call_id: call_id.clone(),
                    progress: p.progress,
                    total: p.total,
                    message: p.message,
                },
            );
        }
    });
    let ctx = ToolContext {
        cancel: cancel.child_token(),
        progress: Some(progress_tx),
        network,
        call_id: Some(call.id.to_string()),
    };
    let limit = rt.config.tool_timeout;
    // `None`: the per-call limit ran out.
    let result = match registry.get(&call.name) {
        Some(tool) => {
            let args = call.arguments.clone();
            let running = async {
                match &binding {
                    Some((_, state)) => tool.call_if_unchanged(args, ctx, state).await,
                    None => tool.call(args, ctx).await,
                }
            };
            // Whatever the tool does, Stop and the per-call limit end the wait; dropping the
            // future is how a tool is told to give up (the shell kills its process group).
            tokio::select! {
                result = running => Some(result),
                _ = cancel.cancelled() => Some(Err(ToolError::Cancelled)),
                _ = tokio::time::sleep(limit) => None,
            }
        }
        None => Some(Err(ToolError::Failed(format!("the tool `{}` is no longer available", call.name)))),
    };
    let _ = forward.await;
    if rt.shutdown.is_cancelled() {
        // Leave the call marked running: after the restart it shows as interrupted.
        return Ok(Executed::Settled);
    }
    let failure = match &result {
        Some(Err(e)) => e.failure(),
        _ => None,
    };
    let output = match result {
        None => ToolOutput::error(outcome_text::tool_timed_out(limit)),
        Some(Ok(mut out)) => {
            if let Some(structured) = out.structured.take() {
                out.content.push(ToolContent::Text { text: format!("structured content: {structured}") });
            }
            out
        }
        Some(Err(ToolError::TargetChanged { .. })) => {
            if let Some((approval, _)) = &binding {
                let lifecycle = rt.lifecycle(&registry);
                let tool_timeout = rt.config.tool_timeout;
                let approval_timeout = call_plan::wait_limit(rt, approval.route.as_ref());
                let superseded =
                    lifecycle.supersede_changed_target(call, approval, tool_timeout, approval_timeout).await?;
                if let Some(new_approval_id) = superseded {
                    if let Some(timeout) = approval_timeout {
                        rt.timers.arm(new_approval_id, timeout);
                    }
                    return Ok(Executed::AskedAgain);
                }
            }
            ToolOutput::error(format!("Error: {}", ToolError::TargetChanged { now: String::new() }))
        }
        Some(Err(ToolError::Cancelled)) => ToolOutput::error(outcome_text::CANCELLED_WHILE_RUNNING),
        Some(Err(e)) => ToolOutput::error(format!("Error: {e}")),
    };
    let (_, truncated) = for_model(&output.content, rt.config.tool_output_limit);
    let settled = rt
        .store
        .settle_tool_call(
            &call.id,
            ToolCallStatus::Running,
            ToolCallStatus::Done,
            &output.content,
            output.is_error,
            truncated,
            failure,
        )
        .await?;
    emit_results(rt, &run.id, settled);
    Ok(Executed::Settled)
}

/// The rule that cleared `call` was revoked before it started: it comes back as a card (unless it was
/// claimed or settled meanwhile).
async fn reask_revoked_rule(
    rt: &RunHandles,
    registry: &warden_tools::registry::ToolRegistry,
    call: &ToolCallRecord,
    approval: &crate::approval::Approval,
    rule_id: &RuleId,
) -> Result<Executed> {
    let lifecycle = rt.lifecycle(registry);
    let (tool_timeout, approval_timeout) = (rt.config.tool_timeout, call_plan::wait_limit(rt, approval.route.as_ref()));
    match lifecycle.reask_revoked_rule(call, approval, rule_id, tool_timeout, approval_timeout).await? {
        Some(new_approval_id) => {
            if let Some(timeout) = approval_timeout {
                rt.timers.arm(new_approval_id, timeout);
            }
            Ok(Executed::AskedAgain)
        }
        None => Ok(Executed::Settled),
    }
}

/// Longest time streamed text waits before it is relayed (one frame at 60 Hz).
const TEXT_FRAME: std::time::Duration = std::time::Duration::from_millis(16);

fn send_text(rt: &RunHandles, run_id: &RunId, unsent: &mut String, text: &mut String) {
    if unsent.is_empty() {
        return;
    }
    rt.events.emit(run_id, &RunEvent::TextDelta { text: unsent.clone() });
    text.push_str(unsent);
    unsent.clear();
}

/// Tells the page which calls are settled, with their records as stored.
fn emit_results(rt: &RunHandles, run_id: &RunId, settled: impl IntoIterator<Item = ToolCallRecord>) {
    for call in settled {
        rt.events.emit(run_id, &result_event(call, rt.config.tool_output_limit));
    }
}

/// A call the model asked for, planned, before it is stored.
struct PlannedCall {
    /// Its place in the model's turn.
    position: u32,
    id: ToolCallId,
    /// The provider's id for it.
    call_id: String,
    name: String,
    arguments: serde_json::Value,
    plan: CallPlan,
}

/// A call as stored with its turn, and what is announced for it once the turn is committed.
struct RecordedCall {
    /// The call as stored.
    call: ToolCallRecord,
    plan: CallPlan,
    recorded: Recorded,
}

/// What a model turn reads before it asks the model.
struct TurnInputs {
    /// The thread's switches, read at every turn: a change applies from the next turn of a run.
    /// A call to a tool not offered is answered as one to an unknown tool and never runs.
    options: crate::thread::ThreadOptions,
    conversation: Conversation,
}

impl TurnInputs {
    /// Two readers at once: neither waits for the other.
    async fn read(rt: &RunHandles, run: &RunSummary) -> Result<Self> {
        let (options, conversation) =
            tokio::try_join!(rt.store.thread_options(&run.thread_id), Conversation::load(&rt.store, &run.thread_id))?;
        Ok(Self { options, conversation })
    }
}

/// The run's `step`th model turn: stream it, relay text as it comes, then record the answer and every
/// call the model asked for, each decided at the approval point, and the step with them.
async fn model_turn(
    rt: &RunHandles,
    run: &RunSummary,
    step: u32,
    inputs: TurnInputs,
    cancel: &CancellationToken,
) -> Result<Turn> {
    let provider = match rt.providers.resolve(run.model.as_ref()) {
        Ok(p) => p,
        Err(e) => return Ok(Turn::Failed(e.to_string())),
    };
    let TurnInputs { options, mut conversation } = inputs;
    let registry = tool_set::registry(rt, run, &options);
    long_results::summarise_new(rt, run, provider.as_ref(), cancel, &mut conversation).await?;
    let messages = conversation.for_model(&rt.config);
    let request = TurnRequest { messages, tools: tool_set::offered(rt, run, &registry).await? };
    let stream = match provider.stream_turn(request, cancel.clone()).await {
        Ok(s) => s,
        Err(_) if cancel.is_cancelled() => return Ok(Turn::Stopped { message_id: None }),
        Err(e) => return Ok(Turn::Failed(e.to_string())),
    };
    // Text is relayed at most once per animation frame: a fast stream costs a few events a frame
    // instead of one per token, and a slow one (a real model's pace) still goes out token by token.
    let mut stream = stream.ready_chunks(256);
    let mut text = String::new();
    let mut unsent = String::new();
    let mut last_sent = tokio::time::Instant::now() - TEXT_FRAME;
    let mut calls = ToolCallAccumulator::default();
    let mut failure = None;
    let (max_bytes, max_calls) = (rt.config.max_turn_bytes, rt.config.max_tool_calls_per_turn);
    let mut turn_bytes = 0usize;
    let mut cut: Option<String> = None;
    // Both made once: a timer or waiter registered per chunk would cost more than the chunk.
    let cancelled = cancel.cancelled();
    tokio::pin!(cancelled);
    let flush = tokio::time::sleep_until(last_sent + TEXT_FRAME);
    tokio::pin!(flush);
    loop {
        let flush_at = last_sent + TEXT_FRAME;
        let chunk = tokio::select! {
            biased;
            _ = &mut cancelled => break,
            _ = &mut flush, if !unsent.is_empty() => {
                send_text(rt, &run.id, &mut unsent, &mut text);
                last_sent = tokio::time::Instant::now();
                flush.as_mut().reset(last_sent + TEXT_FRAME);
                continue;
            }
            chunk = stream.next() => chunk,
        };
        let Some(chunk) = chunk else { break };
        for item in chunk {
            match item {
                Ok(StreamEvent::TextDelta(t)) => {
                    turn_bytes += t.len();
                    unsent.push_str(&t)
                }
                Ok(StreamEvent::ToolCallDelta { index, call_id, name, arguments }) => {
                    turn_bytes += arguments.len()
                        + name.as_ref().map_or(0, String::len)
                        + call_id.as_ref().map_or(0, String::len);
                    calls.push(index, call_id.as_deref(), name.as_deref(), &arguments)
                }
                Ok(StreamEvent::Finished { .. }) => {}
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
            // Checked per event, so what is held never grows far past the caps.
            if turn_bytes > max_bytes {
                cut = Some(format!("exceeded {max_bytes} bytes"));
            } else if calls.len() > max_calls {
                cut = Some(format!("asked for more than {max_calls} tool calls"));
            }
            if cut.is_some() {
                break;
            }
        }
        if let Some(what) = cut {
            drop(stream);
            tracing::warn!(run_id = %run.id, what, "model turn cut");
            return Ok(Turn::Failed(outcome_text::turn_cut(&what)));
        }
        if !unsent.is_empty() && tokio::time::Instant::now() >= flush_at {
            send_text(rt, &run.id, &mut unsent, &mut text);
            last_sent = tokio::time::Instant::now();
            flush.as_mut().reset(last_sent + TEXT_FRAME);
        }
        if failure.is_some() {
            break;
        }
    }
    send_text(rt, &run.id, &mut unsent, &mut text);
    drop(stream);
    if cancel.is_cancelled() {
        if rt.shutdown.is_cancelled() {
            return Ok(Turn::Stopped { message_id: None });
        }
        // Keep what the person already saw.
        let message_id = if text.is_empty() {
            None
        } else {
            let mut batch = WriteBatch::new();
            Store::store_step(&mut batch, &run.id, step);
            // Rendered (Markdown, highlighting) before the batch runs: other writers should not wait
            // on the rendering.
            let m = shown(Store::insert_message(
                &mut batch,
                &run.thread_id,
                Some(&run.id),
                Role::Assistant,
                &[Block::Text { text }],
            )?);
            rt.store.commit(batch).await?;
            let id = m.id.clone();
            rt.events.emit(&run.id, &RunEvent::MessageStored { message: m });
            Some(id)
        };
        return Ok(Turn::Stopped { message_id });
    }
    if let Some(e) = failure {
        return Ok(Turn::Failed(e.to_string()));
    }

    let assembled = calls.finish();
    // A turn without calls (most of a streamed answer's turns) needs no rules and no servers.
    let (rules, servers) = if assembled.is_empty() {
        (Vec::new(), ServerView::default())
    } else {
        tokio::try_join!(
            rt.store.rules_of_thread(&run.thread_id),
            connection_checks::server_view(rt, &run.thread_id, &options)
        )?
    };
    let mut blocks = Vec::new();
    if !text.is_empty() {
        blocks.push(Block::Text { text });
    }
    let mut planned = Vec::new();
    for (position, call) in assembled.into_iter().enumerate() {
        let id = ToolCallId::new();
        let (call_id, name, arguments, plan) = match call {
            Ok(c) => match parse_arguments(&c.arguments) {
                Ok(args) => {
                    let Some(plan) = call_plan::plan(rt, &registry, &rules, &servers, &c.name, &args, cancel).await
                    else {
                        return Ok(Turn::Stopped { message_id: None });
                    };
                    (c.call_id, c.name, args, plan)
                }
                Err(e) => {
                    let plan =
                        CallPlan::skipped(&registry, &c.name, format!("Invalid arguments for `{}`: {e}", c.name));
                    (c.call_id, c.name, serde_json::Value::String(c.arguments), plan)
                }
            },
            Err(e) => {
                let plan = CallPlan::skipped(&registry, "unknown", format!("The tool call could not be read: {e}"));
                (format!("call_{id}"), "unknown".to_string(), serde_json::Value::Null, plan)
            }
        };
        blocks.push(Block::ToolCall {
            id: id.clone(),
            call_id: call_id.clone(),
            name: name.clone(),
            arguments: arguments.clone(),
        });
        planned.push(PlannedCall { position: position as u32, id, call_id, name, arguments, plan });
    }

    // Record the turn and every call (with its approval or connection check) in one transaction,
    // before anything runs: as one batch of statements (one round trip to the writer), unless a call
    // waits for its server, whose check the turn's other calls to that server share (read in the
    // transaction as it is written).
    // Who asked for the run, for the routing of the turn's cards (read only when one asks).
    let requester = match planned.iter().any(|p| matches!(p.plan.decision, CallDecision::Ask)) {
        true => rt.store.run_requester(&run.id).await?,
        false => None,
    };
    let mut tx = if planned.iter().any(|p| call_plan::records_with_reads(&p.plan)) {
        Some(rt.store.write_tx().await?)
    } else {
        None
    };
    let mut batch = WriteBatch::new();
    Store::store_step(&mut batch, &run.id, step);
    if planned.is_empty() {
        // An answer without calls ends the run: one write for both.
        Store::finish_run(&mut batch, &run.id);
    }
    // Rendered before the batch runs, as above.
    let message = shown(Store::insert_message(&mut batch, &run.thread_id, Some(&run.id), Role::Assistant, &blocks)?);
    let mut after = Vec::new();
    for PlannedCall { position, id, call_id, name, arguments, plan } in planned {
        let (status, output) = plan.status();
        let call = Store::insert_tool_call(
            &mut batch,
            NewToolCall {
                id,
                run_id: run.id.clone(),
                thread_id: run.thread_id.clone(),
                message_id: message.id.clone(),
                position,
                call_id,
                name,
                origin: plan.origin.clone(),
                arguments,
                summary: plan.summary.clone(),
                risk: plan.risk,
                needs_approval: plan.needs_approval,
                preview: plan.preview.clone(),
                status,
                output,
            },
        )?;
        let route = call_plan::route(rt, requester.as_ref(), &call.name, &plan);
        let expires_at = call_plan::expiry(rt, route.as_ref());
        let recording = call_plan::Recording {
            run,
            call: &call,
            plan: &plan,
            expires_at: expires_at.as_deref(),
            route: route.as_ref(),
        };
        let recorded = match tx.as_mut() {
            Some(tx) => {
                std::mem::take(&mut batch).run_in(tx).await?;
                call_plan::record(tx, recording).await?
            }
            None => Recorded { approval: call_plan::record_approval(&mut batch, recording)?, ..Recorded::default() },
        };
        after.push(RecordedCall { call, plan, recorded });
    }
    match tx {
        Some(mut tx) => {
            batch.run_in(&mut tx).await?;
            tx.commit().await?;
        }
        None => {
            rt.store.commit(batch).await?;
        }
    }

    // The calls and approvals as stored are announced as they were written, not read back.
    rt.events.emit(&run.id, &RunEvent::MessageStored { message: message.clone() });
    if after.is_empty() {
        return Ok(Turn::Answered { message_id: message.id });
    }
    let mut calls = Vec::with_capacity(after.len());
    for RecordedCall { call, plan, recorded } in after {
        rt.events.emit(
            &run.id,
            &RunEvent::ToolCall {
                id: call.id.clone(),
                name: call.name.clone(),
                arguments: call.arguments.clone(),
                call: call.clone(),
            },
        );
        calls.push(call.clone());
        call_plan::announce(rt, run, call, &plan, &recorded).await?;
    }
    Ok(Turn::CalledTools { calls })
}

/// Ends a run the person stopped: calls that have not run never will.
async fn stopped(rt: &RunHandles, run: &RunSummary, message_id: Option<MessageId>) -> Result<Outcome> {
    if rt.shutdown.is_cancelled() {
        return Ok(Outcome::Ended);
    }
    let registry = rt.tools.snapshot();
    let lifecycle = rt.lifecycle(&registry);
    for approval in rt.store.approvals_of_run_pending(&run.id).await? {
        // Settling emits `approval_resolved`; someone else may have settled it first.
        match lifecycle.settle(&approval.id, SettledBy::RunStopped).await {
            Ok(_) | Err(Error::AlreadyDecided(_)) => {}
            Err(e) => return Err(e),
        }
    }
    cancel_calls(rt, &run.id, true).await?;
    connection_checks::cancel(rt, &run.id).await?;
    rt.store.set_run_status(&run.id, RunStatus::Cancelled, None).await?;
    rt.store.touch_thread(&run.thread_id).await?;
    rt.events.emit(&run.id, &RunEvent::RunFinished { message_id, stopped: true });
    Ok(Outcome::Ended)
}

/// Cancels the calls a person approved that never started because the run ended first, and with
/// `unstarted` every call that has not started; the page is told.
async fn cancel_calls(rt: &RunHandles, run_id: &RunId, unstarted: bool) -> Result<()> {
    let output = [ToolContent::Text { text: outcome_text::CANCELLED.into() }];
    let handed = rt.handoff.take_run(run_id);
    emit_results(rt, run_id, rt.store.cancel_calls(run_id, &handed, unstarted, &output).await?);
    Ok(())
}

async fn failed(rt: &RunHandles, run: &RunSummary, message: String) -> Result<Outcome> {
    rt.store.set_run_status(&run.id, RunStatus::Failed, Some(&message)).await?;
    rt.events.emit(&run.id, &RunEvent::RunFailed { message });
    Ok(Outcome::Ended)
}

/// A driver hit an internal error (the database, most likely): end the run visibly.
pub async fn fail_after_internal_error(rt: &RunHandles, run_id: &RunId, error: &Error) {
    let message = format!("The run stopped because of an internal error: {error}");
    if let Err(e) = cancel_calls(rt, run_id, false).await {
        tracing::error!(%run_id, error = %e, "could not cancel the approved calls of a failed run");
    }
    if let Err(e) = connection_checks::cancel(rt, run_id).await {
        tracing::error!(%run_id, error = %e, "could not cancel the connection checks of a failed run");
    }
    if let Err(e) = rt.store.set_run_status(run_id, RunStatus::Failed, Some(&message)).await {
        tracing::error!(%run_id, error = %e, "could not record a failed run");
    }
    rt.events.emit(run_id, &RunEvent::RunFailed { message });
}
