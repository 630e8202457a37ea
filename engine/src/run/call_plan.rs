//! One call the model asked for, from its decision to its rows: the approval point's decision (the
//! connection check of its MCP server in front), what its card shows, what is written besides the
//! call row (an approval, or the connection check it waits on), and what the page is told once that
//! is committed. A new turn's calls go through here, and so does a call that waited for its server
//! once the person connected it.

use serde_json::Value;
use sqlx::{Sqlite, Transaction};
use tokio_util::sync::CancellationToken;
use warden_types::id::ApprovalId;
use warden_types::id::ConnectionCheckId;

use super::{RunEvent, RunSummary, ToolCallRecord, ToolCallStatus};
use crate::approval::gate::{decide_call, CallDecision};
use crate::approval::lifecycle::result_event;
use crate::approval::{Approval, ApprovalStatus, DecidedBy, Decision, ThreadRule};
use crate::connection::ServerView;
use crate::error::Result;
use crate::run::handles::RunHandles;
use crate::store::{NewApproval, NewCheck, Store, WriteBatch};
use std::time::Duration;
use warden_policies::Request;
use warden_tools::registry::ToolRegistry;
use warden_tools::{Preview, Risk, ToolContent, ToolOrigin};
use warden_types::connection::CheckReason;
use warden_types::person::ActingPerson;
use warden_types::policy::{ApprovalRoute, Source};

/// A call decided and described for its card, before it is stored.
pub struct CallPlan {
    pub decision: CallDecision,
    pub summary: String,
    pub risk: Risk,
    pub needs_approval: bool,
    pub origin: ToolOrigin,
    pub preview: Option<Preview>,
    /// What the preview was made against (a file's SHA-256), which the approval is bound to.
    pub target_state: Option<String>,
}

impl CallPlan {
    /// A call that never reaches a tool: the model is told `feedback`.
    pub fn skipped(registry: &ToolRegistry, name: &str, feedback: String) -> Self {
        Self {
            decision: CallDecision::Skip { feedback },
            summary: format!("Invalid call to `{name}`"),
            risk: Risk::Low,
            needs_approval: false,
            origin: registry.get(name).map(|t| t.origin()).unwrap_or(ToolOrigin::BuiltIn),
            preview: None,
            target_state: None,
        }
    }

    /// The call's status as recorded, and its output when it is settled at once (it never runs).
    pub fn status(&self) -> (ToolCallStatus, Option<Vec<ToolContent>>) {
        match &self.decision {
            CallDecision::Run | CallDecision::RunByRule { .. } => (ToolCallStatus::Approved, None),
            CallDecision::Ask | CallDecision::AwaitServer { .. } => (ToolCallStatus::Pending, None),
            CallDecision::Skip { feedback } => {
                (ToolCallStatus::Invalid, Some(vec![ToolContent::Text { text: feedback.clone() }]))
            }
            CallDecision::ServerLeftOut { feedback, .. } => {
                (ToolCallStatus::Done, Some(vec![ToolContent::Text { text: feedback.clone() }]))
            }
        }
    }
}

/// Decides the call and describes it. `None`: the run was stopped while its preview was made.
pub async fn plan(
    rt: &RunHandles,
    registry: &ToolRegistry,
    rules: &[ThreadRule],
    servers: &ServerView,
    name: &str,
    arguments: &Value,
    cancel: &CancellationToken,
) -> Option<CallPlan> {
    let decision = decide_call(registry, rules, servers, name, arguments, warden_sandbox::status().available);
    let tool = registry.get(name);
    let server = match &decision {
        CallDecision::AwaitServer { server, .. } | CallDecision::ServerLeftOut { server, .. } => Some(server.clone()),
        _ => None,
    };
    let runs_or_asks = matches!(decision, CallDecision::Run | CallDecision::RunByRule { .. } | CallDecision::Ask);
    let plan = match (tool, server) {
        (Some(t), None) if runs_or_asks => {
            // A rule-run call of a tool with a target state (a file write) is bound like a card's: it
            // runs only while the target is as the rule's own call leaves it, else it asks again.
            let rule_binds = t.state_after(arguments).filter(|_| matches!(decision, CallDecision::RunByRule { .. }));
            let (preview, target_state) = if matches!(decision, CallDecision::Ask) || rule_binds.is_some() {
                // Bounded like a call: a preview reads the target (a file) and must not hang the turn.
                tokio::select! {
                    shown = t.preview_with_state(arguments) => shown,
                    _ = tokio::time::sleep(rt.config.tool_timeout) => (None, None),
                    _ = cancel.cancelled() => return None,
                }
            } else {
                (None, None)
            };
            let decision = match decision {
                CallDecision::RunByRule { .. } if rule_binds.is_some() && target_state != rule_binds => {
                    CallDecision::Ask
                }
                decision => decision,
            };
            CallPlan {
                summary: t.summary(arguments),
                risk: t.risk(arguments),
                needs_approval: t.needs_approval(arguments),
                origin: t.origin(),
                preview,
                target_state,
                decision,
            }
        }
        // Described as well as it can be now; decided again (and described by the tool) once connected.
        (tool, Some(server)) => {
            let (summary, risk, needs_approval) = match &tool {
                Some(t) => (t.summary(arguments), t.risk(arguments), t.needs_approval(arguments)),
                None => (format!("Call `{name}` on the MCP server `{server}`"), Risk::Medium, true),
            };
            CallPlan {
                summary,
                risk,
                needs_approval,
                origin: ToolOrigin::Mcp { server },
                preview: None,
                target_state: None,
                decision,
            }
        }
        _ => match decision {
            CallDecision::Skip { feedback } => CallPlan::skipped(registry, name, feedback),
            // A decision to run or ask is only ever made for a registered tool.
            _ => CallPlan::skipped(registry, name, format!("There is no tool named `{name}`.")),
        },
    };
    Some(plan)
}

/// What recording a plan wrote besides the call row.
#[derive(Debug, Default)]
pub struct Recorded {
    /// Its approval (asked, or approved by a rule), as stored.
    pub approval: Option<Approval>,
    /// The connection check it waits on.
    pub check_id: Option<ConnectionCheckId>,
    /// Whether that check was made for this call (the page is told of it then).
    pub new_check: bool,
}

/// A call whose plan is being recorded, as its row holds it.
#[derive(Clone, Copy)]
pub struct Recording<'a> {
    pub run: &'a RunSummary,
    pub call: &'a ToolCallRecord,
    pub plan: &'a CallPlan,
    /// When an approval asked for now times out.
    pub expires_at: Option<&'a str>,
    /// Who decides an approval asked for now (see [`route`]).
    pub route: Option<&'a ApprovalRoute>,
}

/// Who decides the call's card, if it asks: the first approval policy that matches it (its tool, MCP
/// server, risk, and who asked for the run), copied, or anyone who decides, alone. `None`: it does not ask.
pub fn route(rt: &RunHandles, requester: Option<&ActingPerson>, name: &str, plan: &CallPlan) -> Option<ApprovalRoute> {
    if !matches!(plan.decision, CallDecision::Ask) {
        return None;
    }
    let mcp_server = match &plan.origin {
        ToolOrigin::Mcp { server } => Some(server.as_str()),
        ToolOrigin::BuiltIn => None,
    };
    let request = Request { source: Source::Chat, tool: name, mcp_server, risk: plan.risk, requester };
    Some(rt.policies.route(&request))
}

/// How long a card routed by `route` waits: its policy's timeout, else the server's (`None`: for ever).
pub fn wait_limit(rt: &RunHandles, route: Option<&ApprovalRoute>) -> Option<Duration> {
    route.and_then(|r| r.timeout_secs).map(Duration::from_secs).or(rt.config.approval_timeout)
}

/// When a card routed by `route`, asked for now, times out.
pub fn expiry(rt: &RunHandles, route: Option<&ApprovalRoute>) -> Option<String> {
    wait_limit(rt, route).map(|t| warden_db::timestamp::at(std::time::SystemTime::now() + t))
}

/// Writes what the plan needs besides the call row, in the turn's (or the new decision's)
/// transaction: its approval, or the run's pending check for its server (made if there is none
/// yet, so calls of one server in one turn share one question) with the call waiting on it.
pub async fn record(tx: &mut Transaction<'static, Sqlite>, recording: Recording<'_>) -> Result<Recorded> {
    let Recording { run, call, plan, .. } = recording;
    let (call_id, name) = (call.id.as_str(), call.name.as_str());
    match &plan.decision {
        CallDecision::AwaitServer { server, down } => {
            let (check_id, new_check) = match Store::pending_check_for(tx, &run.id, server).await? {
                Some(id) => (id, false),
                None => {
                    let id = ConnectionCheckId::new();
                    let reason = CheckReason::CalledTool { tool: name.to_string() };
                    let check = NewCheck {
                        id: &id,
                        run_id: &run.id,
                        thread_id: &run.thread_id,
                        server,
                        reason: &reason,
                        down: *down,
                    };
                    Store::insert_connection_check(tx, &check).await?;
                    (id, true)
                }
            };
            Store::attach_call_to_check(tx, call_id, &check_id).await?;
            Ok(Recorded { approval: None, check_id: Some(check_id), new_check })
        }
        _ => {
            let mut batch = WriteBatch::new();
            let approval = record_approval(&mut batch, recording)?;
            batch.run_in(tx).await?;
            Ok(Recorded { approval, ..Recorded::default() })
        }
    }
}

/// Whether recording the call's plan reads what the transaction wrote before (a connection check
/// shared by the turn's calls to one server); otherwise [`record_approval`] is all it writes.
pub fn records_with_reads(plan: &CallPlan) -> bool {
    matches!(plan.decision, CallDecision::AwaitServer { .. })
}

/// The approval a plan records for its call, in `batch`: one to ask for (`Ask`) or one a thread rule
/// gave (`RunByRule`); none for the other decisions but `AwaitServer`, which [`record`] handles.
pub fn record_approval(batch: &mut WriteBatch, recording: Recording<'_>) -> Result<Option<Approval>> {
    let Recording { run, call, plan, expires_at, route } = recording;
    let (call_id, name, arguments) = (&call.id, &call.name, &call.arguments);
    let by_rule = match &plan.decision {
        CallDecision::Ask => None,
        CallDecision::RunByRule { rule_id } => {
            Some(Decision { status: ApprovalStatus::Approved, by: DecidedBy::Rule { rule_id: rule_id.clone() } })
        }
        _ => return Ok(None),
    };
    let approval_id = ApprovalId::new();
    let approval = Store::insert_approval(
        batch,
        &NewApproval {
            id: &approval_id,
            tool_call_id: call_id,
            run_id: &run.id,
            thread_id: &run.thread_id,
            // What the call's row holds: the turn and a replan store the plan's.
            tool: name,
            origin: &plan.origin,
            summary: &plan.summary,
            risk: plan.risk,
            arguments,
            status: if by_rule.is_some() { ApprovalStatus::Approved } else { ApprovalStatus::Pending },
            decision: by_rule.as_ref(),
            expires_at: if by_rule.is_none() { expires_at.map(str::to_string) } else { None },
            preview: plan.preview.as_ref(),
            target_state: plan.target_state.as_deref(),
            route: if by_rule.is_none() { route } else { None },
        },
    )?;
    Ok(Some(approval))
}

/// Once the call is committed, tells the page what it needs beyond the call itself: the approval
/// card (with its timer), a rule's approval, the result of a call that never runs, the check it
/// waits on.
pub async fn announce(
    rt: &RunHandles,
    run: &RunSummary,
    call: ToolCallRecord,
    plan: &CallPlan,
    recorded: &Recorded,
) -> Result<()> {
    match (&plan.decision, &recorded.approval) {
        (CallDecision::Ask, Some(approval)) => {
            rt.events.emit(&run.id, &RunEvent::ApprovalRequest { approval: approval.clone() });
            if let Some(timeout) = wait_limit(rt, approval.route.as_ref()) {
                rt.timers.arm(approval.id.clone(), timeout);
            }
        }
        (CallDecision::RunByRule { .. }, Some(approval)) => {
            rt.events.emit(
                &run.id,
                &RunEvent::ApprovalResolved {
                    approval_id: approval.id.clone(),
                    tool_call_id: call.id.clone(),
                    decision: approval.status,
                    arguments: call.arguments.clone(),
                    approval: approval.clone(),
                    call,
                    rule: None,
                },
            );
        }
        (CallDecision::Skip { .. } | CallDecision::ServerLeftOut { .. }, _) => {
            rt.events.emit(&run.id, &result_event(call, rt.config.tool_output_limit));
        }
        (CallDecision::AwaitServer { .. }, _) => {
            if let (Some(check_id), true) = (&recorded.check_id, recorded.new_check) {
                let check = rt.store.connection_check(check_id).await?;
                rt.events.emit(&run.id, &RunEvent::ConnectionCheck { check });
            }
        }
        _ => {}
    }
    Ok(())
}
