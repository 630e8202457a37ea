//! One way to settle a pending approval, whoever settles it: a person, the timeout, or a stopped
//! run (and, when an approved call's target changed, superseding it with a new approval). Each is one transaction that only succeeds while the approval is pending, then the events
//! that tell the page. `settle` says whether the run can resume; it never wakes the run itself
//! (only the runtime does that), so this module does not know the runtime.

use std::time::{Duration, SystemTime};
use warden_types::id::{ApprovalId, RuleId};

use serde_json::Value;

use super::handoff::{Clearance, Handoff};
use super::rules::rule_for;
use super::{Approval, ApprovalStatus, DecidedBy, Decision, DecisionInput, Scope, Verdict};
use crate::error::{Error, Result};
use crate::events::EventHub;
use crate::outcome_text;
use crate::store::{NewApproval, Store, WriteBatch};
use warden_policies::{may_decide, route_of, Tally};
use warden_tools::registry::ToolRegistry;
use warden_tools::{Preview, ToolContent};
use warden_types::event::RunEvent;
use warden_types::person::ActingPerson;
use warden_types::policy::VoteVia;
use warden_types::run::{RunSummary, ToolCallRecord, ToolCallStatus};

const MAX_REASON_CHARS: usize = 4000;

/// Who settles the approval.
pub enum SettledBy {
    /// A person's decision or vote (approve, edit, deny, allow for the thread), checked against the
    /// approval's route: theirs to decide, not their own request unless allowed, the quorum counted.
    Person { person: ActingPerson, input: DecisionInput, via: Option<VoteVia> },
    /// The approval waited longer than the configured timeout (`secs`, told to the model).
    Timeout { secs: u64 },
    /// The run was stopped while the approval waited.
    RunStopped,
}

/// What settling did.
pub struct Settled {
    /// The approval as it was before it was settled.
    pub approval: Approval,
    /// The approval as settled.
    pub decided: Approval,
    /// Whether the run can carry on now (the caller wakes it). `false` for a vote that did not make the
    /// quorum: the approval is still pending, with the vote on it.
    pub resume: bool,
    /// The run, if it was waiting, and its latest turn's calls, as the decision left them: what its
    /// driver would read first.
    pub resumed: Option<(RunSummary, Vec<ToolCallRecord>)>,
}

/// The narrow handles settling needs: the store, the event hub, and the tools (to validate an
/// edit and to check what a network grant applies to).
pub struct Lifecycle<'a> {
    pub store: &'a Store,
    pub events: &'a EventHub,
    pub tools: &'a ToolRegistry,
    /// Where an approved call, claimed by the decision, waits for its driver.
    pub handoff: &'a Handoff,
}

/// The changes one settlement makes, worked out before the transaction.
struct Plan {
    decision: Decision,
    /// The call's new status, the arguments it runs with, and its output (for a call that never runs).
    call_status: Option<ToolCallStatus>,
    run_with: Option<Value>,
    output: Option<Vec<ToolContent>>,
    /// A person's decision applies only while the call still waits on this approval.
    call_must_wait: bool,
    rule: Option<super::RuleMatcher>,
    /// The arguments shown as decided.
    arguments: Value,
    resume: bool,
}

impl Lifecycle<'_> {
    /// Settles a pending approval. `Error::AlreadyDecided` when it is not pending (any more).
    pub async fn settle(&self, approval_id: &ApprovalId, by: SettledBy) -> Result<Settled> {
        let (approval, target_state) = self.store.approval_with_target_state(approval_id).await?;
        if approval.status != ApprovalStatus::Pending {
            return Err(Error::AlreadyDecided(approval_id.to_string()));
        }
        // A person's vote is written in the decision's transaction, which is opened first: the count it
        // settles on is the count it wrote (the transaction holds the write lock).
        let mut voted_in = None;
        let plan = match by {
            SettledBy::Person { person, input, via } => {
                let mut tx = self.store.write_tx().await?;
                match self.vote(&mut tx, &approval, &person, input, via).await? {
                    Voted::Settles(plan) => {
                        voted_in = Some(tx);
                        *plan
                    }
                    Voted::Waits => {
                        tx.commit().await?;
                        let now = self.store.approval(approval_id).await?;
                        self.events.emit(&approval.run_id, &RunEvent::ApprovalRequest { approval: now.clone() });
                        return Ok(Settled { approval, decided: now, resume: false, resumed: None });
                    }
                }
            }
            SettledBy::Timeout { secs } => Plan {
                decision: Decision { status: ApprovalStatus::TimedOut, by: DecidedBy::Timeout },
                call_status: Some(ToolCallStatus::TimedOut),
                run_with: None,
                output: Some(vec![ToolContent::Text { text: outcome_text::timed_out(secs) }]),
                call_must_wait: false,
                rule: None,
                arguments: approval.arguments.clone(),
                resume: true,
            },
            SettledBy::RunStopped => Plan {
                decision: Decision { status: ApprovalStatus::Cancelled, by: DecidedBy::RunStopped },
                call_status: None,
                run_with: None,
                output: None,
                call_must_wait: false,
                rule: None,
                arguments: approval.arguments.clone(),
                resume: false,
            },
        };

        // One transaction, its statements sent as one batch: the decision (only while the approval is
        // pending), the call's new status (only while it waits), the rule, the run made resumable (and
        // read back with its latest turn's calls, for its driver). Any return before the commit drops
        // the transaction, which rolls all of it back.
        let mut tx = match voted_in {
            Some(tx) => tx,
            None => self.store.write_tx().await?,
        };
        let mut batch = WriteBatch::new();
        let decided_at = Store::record_decision(&mut batch, approval_id, &plan.decision)?;
        // The call runs with the arguments approved (a person's edit, maybe): its header says what it does.
        let summary = plan.run_with.as_ref().and_then(|args| self.tools.get(&approval.tool).map(|t| t.summary(args)));
        if let Some(call_status) = plan.call_status {
            Store::resolve_pending_call(
                &mut batch,
                &approval.tool_call_id,
                call_status,
                plan.run_with.as_ref(),
                summary.as_deref(),
                plan.output.as_deref(),
            )?;
        }
        let rule = match &plan.rule {
            Some(rule) => Some(Store::insert_rule(&mut batch, &approval.thread_id, &approval.tool, rule)?),
            None => None,
        };
        if plan.resume {
            Store::resume_run(&mut batch, &approval.run_id);
        }
        let rows = batch.run_in(&mut tx).await?;
        if !Store::decision_applied(&rows)? {
            return Err(Error::AlreadyDecided(approval_id.to_string()));
        }
        // The call's row, if it was still waiting: the one row after the decision's.
        let call = match plan.call_status {
            Some(_) => rows.get(1).map(Store::returned_call).transpose()?,
            None => None,
        };
        if plan.call_status.is_some() && call.is_none() && plan.call_must_wait {
            return Err(Error::AlreadyDecided(approval_id.to_string()));
        }
        let resumed = if plan.resume { Store::resumed_run(&rows)? } else { None };
        // The approval as it is now: what a page patches in, and what cleared the call if it runs.
        let decided = Approval {
            status: plan.decision.status,
            decision: Some(plan.decision.clone()),
            decided_at: Some(decided_at),
            votes: plan.decision.votes().to_vec(),
            ..approval.clone()
        };
        // This transaction holds the write lock, so no other decision on this approval gets this far.
        // Handed over before the commit, so a driver that reads the call as running finds it; taken
        // back if the commit fails.
        let handed = (plan.call_status == Some(ToolCallStatus::Running)).then(|| {
            let clearance = Clearance { approval: decided.clone(), target_state };
            self.handoff.hand(&approval.tool_call_id, &approval.run_id, clearance)
        });
        tx.commit().await?;
        if let Some(handed) = handed {
            handed.keep();
        }

        let call = match call {
            Some(call) => call,
            None => self.store.tool_call(&approval.tool_call_id).await?,
        };
        self.events.emit(
            &approval.run_id,
            &RunEvent::ApprovalResolved {
                approval_id: approval.id.clone(),
                tool_call_id: approval.tool_call_id.clone(),
                decision: plan.decision.status,
                arguments: plan.arguments,
                approval: decided.clone(),
                call: call.clone(),
                rule,
            },
        );
        if plan.output.is_some() && call.status.is_settled() {
            self.events.emit(&approval.run_id, &result_event(call, usize::MAX));
        }
        Ok(Settled { approval, decided, resume: plan.resume, resumed })
    }

    /// The approved call's target changed after its card was shown: nothing ran. The approval is
    /// settled as superseded and the call, claimed as running, goes back to pending with a new
    /// approval showing the diff against the target as it is now. Returns the new approval's id
    /// (`None`: someone else settled the call first); its timer is the caller's to start.
    pub async fn supersede_changed_target(
        &self,
        call: &ToolCallRecord,
        approval: &Approval,
        tool_timeout: Duration,
        approval_timeout: Option<Duration>,
    ) -> Result<Option<ApprovalId>> {
        let by = |replaced_by| DecidedBy::TargetChanged { replaced_by };
        self.ask_again(call, approval, ToolCallStatus::Running, by, tool_timeout, approval_timeout).await
    }

    /// The thread rule that approved the call was revoked before the call started: nothing ran, and
    /// a revoked rule clears nothing. The rule's approval is settled as superseded and the call, still
    /// approved, goes back to pending with a new card. Returns the new approval's id (`None`: the
    /// call was claimed or settled first); its timer is the caller's to start.
    pub async fn reask_revoked_rule(
        &self,
        call: &ToolCallRecord,
        approval: &Approval,
        rule_id: &RuleId,
        tool_timeout: Duration,
        approval_timeout: Option<Duration>,
    ) -> Result<Option<ApprovalId>> {
        let by = |replaced_by| DecidedBy::RuleRevoked { rule_id: rule_id.clone(), replaced_by };
        self.ask_again(call, approval, ToolCallStatus::Approved, by, tool_timeout, approval_timeout).await
    }

    /// Settles `approval` as superseded (`by`, given the new approval's id) and puts its call, in
    /// status `from`, back to pending with a new approval, described and previewed afresh.
    async fn ask_again(
        &self,
        call: &ToolCallRecord,
        approval: &Approval,
        from: ToolCallStatus,
        by: impl FnOnce(ApprovalId) -> DecidedBy,
        tool_timeout: Duration,
        approval_timeout: Option<Duration>,
    ) -> Result<Option<ApprovalId>> {
        let tool = self.tools.get(&call.name);
        let (preview, state): (Option<Preview>, Option<String>) = match &tool {
            Some(tool) => tokio::time::timeout(tool_timeout, tool.preview_with_state(&call.arguments))
                .await
                .unwrap_or((None, None)),
            None => (None, None),
        };
        let (summary, risk) = match &tool {
            Some(tool) => (tool.summary(&call.arguments), tool.risk(&call.arguments)),
            None => (call.summary.clone(), call.risk),
        };
        let new_approval_id = ApprovalId::new();
        let decision = Decision { status: ApprovalStatus::Superseded, by: by(new_approval_id.clone()) };
        let expires_at = approval_timeout.map(|t| warden_db::timestamp::at(SystemTime::now() + t));
        let mut tx = self.store.write_tx().await?;
        if !Store::supersede_approval(&mut tx, &approval.id, &decision).await?
            || !Store::reopen_call(&mut tx, &call.id, from, &summary, risk, preview.as_ref()).await?
        {
            return Ok(None);
        }
        let mut batch = WriteBatch::new();
        let fresh = Store::insert_approval(
            &mut batch,
            &NewApproval {
                id: &new_approval_id,
                tool_call_id: &call.id,
                run_id: &call.run_id,
                thread_id: &call.thread_id,
                // As `reopen_call` left the call's row.
                tool: &call.name,
                origin: &call.origin,
                summary: &summary,
                risk,
                // The arguments the call runs with (the person's edit, if there was one), shown again.
                arguments: &call.arguments,
                status: ApprovalStatus::Pending,
                decision: None,
                expires_at,
                preview: preview.as_ref(),
                target_state: state.as_deref(),
                // Decided by the same people as before; the votes start again (nothing was decided on this).
                route: approval.route.as_ref(),
            },
        )?;
        batch.run_in(&mut tx).await?;
        tx.commit().await?;

        let (superseded, reopened) = (self.store.approval(&approval.id).await?, self.store.tool_call(&call.id).await?);
        self.events.emit(
            &approval.run_id,
            &RunEvent::ApprovalResolved {
                approval_id: approval.id.clone(),
                tool_call_id: approval.tool_call_id.clone(),
                decision: ApprovalStatus::Superseded,
                arguments: call.arguments.clone(),
                approval: superseded,
                call: reopened,
                rule: None,
            },
        );
        self.events.emit(&call.run_id, &RunEvent::ApprovalRequest { approval: fresh });
        Ok(Some(new_approval_id))
    }

    /// Checks `person`'s decision against the approval's route and records their vote in `tx`: a deny
    /// settles at once; an approval settles once enough distinct approvers approved what the card shows;
    /// an edit (with a quorum) makes the edited arguments the shown ones and starts the count again.
    async fn vote(
        &self,
        tx: &mut sqlx::Transaction<'static, sqlx::Sqlite>,
        approval: &Approval,
        person: &ActingPerson,
        input: DecisionInput,
        via: Option<VoteVia>,
    ) -> Result<Voted> {
        let route = route_of(approval);
        may_decide(&route, person)?;
        if route.quorum > 1 && input.scope == Scope::Thread {
            return Err(Error::Invalid(
                "`allow for this thread` needs a policy where one approval is enough; approve this call once".into(),
            ));
        }
        if route.quorum > 1 && input.network {
            return Err(Error::Invalid("`network` needs a policy where one approval is enough".into()));
        }
        let verdict = input.decision;
        let names_arguments = input.arguments.is_some();
        let mut plan = self.person(approval, input)?;
        // What the person saw is what they decide: an edit by another approver since they read the card
        // (or a decision) makes theirs stale.
        let shown = Store::shown_while_pending(tx, &approval.id)
            .await?
            .ok_or_else(|| Error::AlreadyDecided(approval.id.to_string()))?;
        if shown != approval.arguments {
            return Err(Error::ShownChanged);
        }
        // The model's arguments, for a card an approver may have edited (with a quorum).
        let proposed = match route.quorum > 1 {
            true => Some(self.store.tool_call(&approval.tool_call_id).await?.arguments),
            false => None,
        };
        // An approval of a card someone edited names what it approves: nobody's vote counts for an edit
        // they were not shown (a client that read the card before the edit sends no arguments).
        let edited_by_another = proposed.as_ref().is_some_and(|p| *p != shown);
        if verdict == Verdict::Approve && edited_by_another && !names_arguments {
            return Err(Error::ShownChanged);
        }
        let edit = route.quorum > 1 && verdict == Verdict::Approve && plan.arguments != shown;
        if edit {
            Store::show_edit(tx, &approval.id, &plan.arguments).await?;
        }
        if verdict == Verdict::Deny {
            // One deny denies, whatever this person voted before.
            sqlx::query("DELETE FROM approval_votes WHERE approval_id = ? AND person_id = ?")
                .bind(&approval.id)
                .bind(&person.id)
                .execute(&mut **tx)
                .await?;
        }
        if !Store::insert_vote(tx, &approval.id, person, verdict, &plan.arguments, via).await? {
            return Err(Error::AlreadyVoted);
        }
        let votes = Store::votes_in(tx, &approval.id).await?;
        if verdict == Verdict::Approve && !Tally::of(route.quorum, &votes).approved() {
            return Ok(Voted::Waits);
        }
        if let (Some(proposed), Verdict::Approve) = (&proposed, verdict) {
            // The shown arguments may be an approver's edit: recorded as edited against the model's call.
            if let DecidedBy::User { edited_arguments, .. } = &mut plan.decision.by {
                *edited_arguments = (*proposed != plan.arguments).then(|| plan.arguments.clone());
            }
            plan.run_with = Some(plan.arguments.clone());
        }
        if let DecidedBy::User { votes: decided_by, .. } = &mut plan.decision.by {
            *decided_by = votes;
        }
        Ok(Voted::Settles(Box::new(plan)))
    }

    /// Checks a person's decision against the approval it names.
    fn person(&self, approval: &Approval, input: DecisionInput) -> Result<Plan> {
        if input.reason.as_ref().is_some_and(|r| r.chars().count() > MAX_REASON_CHARS) {
            return Err(Error::Invalid(format!("reason must be at most {MAX_REASON_CHARS} characters")));
        }
        let (status, call_status, arguments, output) = match input.decision {
            Verdict::Approve => {
                let arguments = match &input.arguments {
                    Some(edited) => {
                        self.tools
                            .validate(&approval.tool, edited)
                            .map_err(|e| Error::InvalidArguments(e.to_string()))?;
                        edited.clone()
                    }
                    None => approval.arguments.clone(),
                };
                // Claimed to run in the decision's own transaction (see `handoff`).
                (ApprovalStatus::Approved, ToolCallStatus::Running, arguments, None)
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
            Scope::Thread => {
                Some(rule_for(&approval.tool, &arguments, input.prefix.as_deref()).map_err(Error::Invalid)?)
            }
            Scope::Once if input.prefix.is_some() => {
                return Err(Error::Invalid("`prefix` can only come with `scope: thread`".into()))
            }
            Scope::Once => None,
        };
        if input.network {
            if status != ApprovalStatus::Approved || input.scope != Scope::Once {
                return Err(Error::Invalid(
                    "`network` can only come with `approve` for this one call (scope `once`)".into(),
                ));
            }
            let sandboxed = self.tools.get(&approval.tool).is_some_and(|t| t.runs_sandboxed_commands());
            if !sandboxed {
                return Err(Error::Invalid(format!(
                    "`network` applies only to sandboxed commands, not to `{}`",
                    approval.tool
                )));
            }
        }
        let edited = input.arguments.as_ref().filter(|a| **a != approval.arguments).cloned();
        let run_with = match status {
            ApprovalStatus::Approved => Some(edited.clone().unwrap_or_else(|| arguments.clone())),
            _ => None,
        };
        Ok(Plan {
            decision: Decision {
                status,
                by: DecidedBy::User {
                    edited_arguments: edited,
                    reason: input.reason,
                    scope: input.scope,
                    network: input.network,
                    votes: Vec::new(),
                },
            },
            call_status: Some(call_status),
            run_with,
            output,
            call_must_wait: true,
            rule,
            arguments,
            resume: true,
        })
    }
}

/// What a person's vote did.
enum Voted {
    /// It decides the approval: settle it with this plan, in the vote's transaction.
    Settles(Box<Plan>),
    /// Recorded; the approval waits for more approvals.
    Waits,
}

/// The `tool_result` event of a settled call: its output as the model sees it (cut at `limit`
/// bytes), and the record.
pub fn result_event(call: ToolCallRecord, limit: usize) -> RunEvent {
    let (output, cut) = outcome_text::for_model(call.output.as_deref().unwrap_or_default(), limit);
    RunEvent::ToolResult {
        tool_call_id: call.id.clone(),
        output,
        is_error: call.is_error,
        truncated: call.truncated || cut,
        call,
    }
}
