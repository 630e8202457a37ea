//! Tool call rows. A call is marked `running` before it runs and settled after, so a crash in
//! between is seen on restart as `interrupted` and the call is never run twice.

use serde_json::Value;
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, Sqlite, Transaction};
use warden_types::id::{ConnectionCheckId, MessageId, RuleId, RunId, ThreadId, ToolCallId};

use warden_db::timestamp::now;

use super::{from_json, json, Store, WriteBatch};
use crate::error::{Error, Result};
use warden_types::run::{ToolCallRecord, ToolCallStatus};
use warden_types::tool::{Preview, Risk, ToolContent, ToolFailure, ToolOrigin};

pub struct NewToolCall {
    pub id: ToolCallId,
    pub run_id: RunId,
    pub thread_id: ThreadId,
    pub message_id: MessageId,
    pub position: u32,
    pub call_id: String,
    pub name: String,
    pub origin: ToolOrigin,
    pub arguments: Value,
    pub summary: String,
    pub risk: Risk,
    pub needs_approval: bool,
    pub preview: Option<Preview>,
    pub status: ToolCallStatus,
    /// Set for calls settled at once (invalid arguments).
    pub output: Option<Vec<ToolContent>>,
}

fn call_from_row(r: &SqliteRow) -> Result<ToolCallRecord> {
    let preview: Option<String> = r.try_get("preview")?;
    let output: Option<String> = r.try_get("output")?;
    Ok(ToolCallRecord {
        id: r.try_get("id")?,
        run_id: r.try_get("run_id")?,
        thread_id: r.try_get("thread_id")?,
        message_id: r.try_get("message_id")?,
        call_id: r.try_get("call_id")?,
        name: r.try_get("name")?,
        origin: from_json(&r.try_get::<String, _>("origin")?)?,
        arguments: from_json(&r.try_get::<String, _>("arguments")?)?,
        summary: r.try_get("summary")?,
        risk: r.try_get("risk")?,
        needs_approval: r.try_get::<i64, _>("needs_approval")? != 0,
        preview: preview.as_deref().map(from_json).transpose()?,
        status: r.try_get("status")?,
        output: output.as_deref().map(from_json).transpose()?,
        is_error: r.try_get::<i64, _>("is_error")? != 0,
        truncated: r.try_get::<i64, _>("truncated")? != 0,
        failure: r.try_get("failure")?,
        created_at: r.try_get("created_at")?,
        finished_at: r.try_get("finished_at")?,
    })
}

const COLUMNS: &str = "id, run_id, thread_id, message_id, call_id, name, origin, arguments, summary, risk, \
                       needs_approval, preview, status, output, is_error, truncated, failure, created_at, finished_at";

/// A page's and a model turn's calls: those of the messages given (a JSON array of ids), each
/// message's found by `tool_calls_by_message`.
const OF_MESSAGES: &str = "WHERE message_id IN (SELECT value FROM json_each(?)) ORDER BY created_at, position";

/// The driver reads this at every step and every decision: the run's latest message found by
/// `messages_by_run`, its calls by `tool_calls_by_message`, not by a scan.
fn calls_of_runs_last_message_sql() -> String {
    turn_calls_sql("")
}

/// The calls of a run's latest message (the run's id bound), `before` their columns.
fn turn_calls_sql(before: &str) -> String {
    format!(
        "SELECT {before}{COLUMNS} FROM tool_calls WHERE message_id = \
         (SELECT id FROM messages WHERE run_id = ? ORDER BY position DESC LIMIT 1) ORDER BY position"
    )
}

impl Store {
    /// A new call's row, in `batch` (which the caller runs as, or in, a transaction); returns the call
    /// as `tool_call` will read it once that commits.
    pub fn insert_tool_call(batch: &mut WriteBatch, c: NewToolCall) -> Result<ToolCallRecord> {
        let created_at = now();
        let settled = c.status.is_settled().then(|| created_at.clone());
        batch
            .push(INSERT_TOOL_CALL)
            .bind(&c.id)
            .bind(&c.run_id)
            .bind(&c.thread_id)
            .bind(&c.message_id)
            .bind(c.position as i64)
            .bind(&c.call_id)
            .bind(&c.name)
            .bind(json(&c.origin)?)
            .bind(json(&c.arguments)?)
            .bind(&c.summary)
            .bind(c.risk)
            .bind(c.needs_approval as i64)
            .bind(c.preview.as_ref().map(json).transpose()?)
            .bind(c.status)
            .bind(c.output.as_ref().map(json).transpose()?)
            .bind(c.output.is_some() as i64)
            .bind(&created_at)
            .bind(&settled);
        Ok(ToolCallRecord {
            id: c.id,
            run_id: c.run_id,
            thread_id: c.thread_id,
            message_id: c.message_id,
            call_id: c.call_id,
            name: c.name,
            origin: c.origin,
            arguments: c.arguments,
            summary: c.summary,
            risk: c.risk,
            needs_approval: c.needs_approval,
            preview: c.preview,
            status: c.status,
            is_error: c.output.is_some(),
            output: c.output,
            truncated: false,
            failure: None,
            created_at,
            finished_at: settled,
        })
    }

    pub async fn tool_call(&self, id: &ToolCallId) -> Result<ToolCallRecord> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!("SELECT {COLUMNS} FROM tool_calls WHERE id = ?")))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| Error::not_found("tool call", id))?;
        call_from_row(&row)
    }

    /// The calls one assistant message asked for, in the order it asked.
    pub async fn tool_calls_of_message(&self, message_id: &MessageId) -> Result<Vec<ToolCallRecord>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM tool_calls WHERE message_id = ? ORDER BY position"
        )))
        .bind(message_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(call_from_row).collect()
    }

    /// The calls the run's latest message asked for, in the order it asked; none when that message
    /// asked for none (a person's message, an answer). What the driver settles, in one read.
    pub async fn calls_of_runs_last_message(&self, run_id: &RunId) -> Result<Vec<ToolCallRecord>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(calls_of_runs_last_message_sql()))
            .bind(run_id)
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(call_from_row).collect()
    }

    pub async fn tool_calls_of_thread(&self, thread_id: &ThreadId) -> Result<Vec<ToolCallRecord>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM tool_calls WHERE thread_id = ? ORDER BY created_at, position"
        )))
        .bind(thread_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(call_from_row).collect()
    }

    /// The calls of the messages `message_ids` (of one thread), in the order `tool_calls_of_thread` gives.
    pub async fn tool_calls_of_messages(&self, message_ids: &[&MessageId]) -> Result<Vec<ToolCallRecord>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!("SELECT {COLUMNS} FROM tool_calls {OF_MESSAGES}")))
            .bind(json(&message_ids)?)
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(call_from_row).collect()
    }

    /// Claims an approved call for execution. Only one caller ever gets `true` for a call. A call a
    /// thread rule cleared (`rule_id`) is claimed only while that rule exists, in the same statement:
    /// a rule revoked before the call starts clears nothing (see `Lifecycle::reask_revoked_rule`).
    pub async fn mark_tool_call_started(&self, id: &ToolCallId, rule_id: Option<&RuleId>) -> Result<bool> {
        let r = sqlx::query(
            "UPDATE tool_calls SET status = 'running', started_at = ?1 WHERE id = ?2 AND status = 'approved' \
             AND (?3 IS NULL OR EXISTS (SELECT 1 FROM thread_rules WHERE id = ?3))",
        )
        .bind(now())
        .bind(id)
        .bind(rule_id)
        .execute(&self.writer)
        .await?;
        Ok(r.rows_affected() == 1)
    }

    /// Settles a call that is in status `from`, with the typed `failure` the UI acts on (if any);
    /// returns the settled record, or `None` if the call was not in `from`.
    #[allow(clippy::too_many_arguments)]
    pub async fn settle_tool_call(
        &self,
        id: &ToolCallId,
        from: ToolCallStatus,
        to: ToolCallStatus,
        output: &[ToolContent],
        is_error: bool,
        truncated: bool,
        failure: Option<ToolFailure>,
    ) -> Result<Option<ToolCallRecord>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE tool_calls SET status = ?, output = ?, is_error = ?, truncated = ?, failure = ?, finished_at = ? \
             WHERE id = ? AND status = ? RETURNING {COLUMNS}"
        )))
        .bind(to)
        .bind(json(&output)?)
        .bind(is_error as i64)
        .bind(truncated as i64)
        .bind(failure)
        .bind(now())
        .bind(id)
        .bind(from)
        .fetch_optional(&self.writer)
        .await?;
        row.as_ref().map(call_from_row).transpose()
    }

    /// In a decision's batch: a pending call is claimed to run (`running`, with the arguments it will
    /// run with: see `approval::handoff`) or settled as denied / timed out with the text the model will
    /// see. The batch returns the call's row as changed ([`Store::returned_call`]), none if it was not
    /// pending.
    pub fn resolve_pending_call(
        batch: &mut WriteBatch,
        id: &ToolCallId,
        to: ToolCallStatus,
        arguments: Option<&Value>,
        summary: Option<&str>,
        output: Option<&[ToolContent]>,
    ) -> Result<()> {
        let settled = output.is_some().then(now);
        let started = (to == ToolCallStatus::Running).then(now);
        batch
            .push(RESOLVE_PENDING_CALL.as_str())
            .bind(to)
            .bind(arguments.map(json).transpose()?)
            .bind(summary)
            .bind(output.map(|o| json(&o)).transpose()?)
            .bind(output.is_some() as i64)
            .bind(settled)
            .bind(started)
            .bind(id);
        Ok(())
    }

    /// In `batch`: the calls of `run_id`'s latest message, in order, each row marked `returned_as` =
    /// `tag` so that [`Store::turn_calls_among`] finds them among the batch's other rows.
    pub(super) fn push_turn_calls(batch: &mut WriteBatch, run_id: &RunId, tag: &str) {
        batch.push(&turn_calls_sql(&format!("'{tag}' AS returned_as, "))).bind(run_id);
    }

    /// The rows `push_turn_calls` marked `tag`, as calls.
    pub(super) fn turn_calls_among(rows: &[SqliteRow], tag: &str) -> Result<Vec<ToolCallRecord>> {
        rows.iter().filter(|r| super::batch::returned_as(r) == Some(tag)).map(call_from_row).collect()
    }

    /// A call's row as an `UPDATE … RETURNING` of a batch gave it.
    pub fn returned_call(row: &SqliteRow) -> Result<ToolCallRecord> {
        call_from_row(row)
    }
}

const INSERT_TOOL_CALL: &str =
    "INSERT INTO tool_calls (id, run_id, thread_id, message_id, position, call_id, name, origin, arguments, \
       summary, risk, needs_approval, preview, status, output, is_error, created_at, finished_at) \
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

static RESOLVE_PENDING_CALL: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "UPDATE tool_calls SET status = ?, arguments = COALESCE(?, arguments), summary = COALESCE(?, summary), output = ?, \
           is_error = ?, finished_at = ?, started_at = COALESCE(?, started_at) \
         WHERE id = ? AND status = 'pending' RETURNING {COLUMNS}"
    )
});

impl Store {
    /// Within a transaction: a call that did not run goes back from `from` to waiting for a person,
    /// with the new card's summary, risk and preview (claimed to run, but its target changed; or
    /// approved by a rule revoked since).
    pub async fn reopen_call(
        tx: &mut Transaction<'static, Sqlite>,
        id: &ToolCallId,
        from: ToolCallStatus,
        summary: &str,
        risk: Risk,
        preview: Option<&Preview>,
    ) -> Result<bool> {
        let r = sqlx::query(
            "UPDATE tool_calls SET status = 'pending', summary = ?, risk = ?, preview = ?, started_at = NULL \
             WHERE id = ? AND status = ?",
        )
        .bind(summary)
        .bind(risk)
        .bind(preview.map(json).transpose()?)
        .bind(id)
        .bind(from)
        .execute(&mut **tx)
        .await?;
        Ok(r.rows_affected() == 1)
    }

    /// Settles as cancelled, in one statement, the run's calls marked running by an approval whose
    /// driver never started them (`handed`), and with `unstarted` every call that has not started
    /// (pending or approved). Returns the settled records.
    pub async fn cancel_calls(
        &self,
        run_id: &RunId,
        handed: &[ToolCallId],
        unstarted: bool,
        output: &[ToolContent],
    ) -> Result<Vec<ToolCallRecord>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE tool_calls SET status = 'cancelled', output = ?, is_error = 1, finished_at = ? \
             WHERE run_id = ? AND ((? AND status IN ('pending', 'approved')) \
               OR (status = 'running' AND id IN (SELECT value FROM json_each(?)))) RETURNING {COLUMNS}"
        )))
        .bind(json(&output)?)
        .bind(now())
        .bind(run_id)
        .bind(unstarted)
        .bind(json(&handed)?)
        .fetch_all(&self.writer)
        .await?;
        rows.iter().map(call_from_row).collect()
    }

    /// Runs with calls that are cleared to run or were running: they must be driven again.
    pub async fn runs_with_open_calls(&self) -> Result<Vec<RunId>> {
        Ok(sqlx::query_scalar("SELECT DISTINCT run_id FROM tool_calls WHERE status IN ('approved', 'running')")
            .fetch_all(&self.pool)
            .await?)
    }
}

/// A call that waited for its MCP server, decided again now that the server is back (see
/// `Store::replan_call`).
pub struct Replanned<'a> {
    pub status: ToolCallStatus,
    pub summary: &'a str,
    pub risk: Risk,
    pub needs_approval: bool,
    pub origin: &'a ToolOrigin,
    pub preview: Option<&'a Preview>,
    /// Set for a call settled at once (it never runs); the model is told this.
    pub output: Option<&'a [ToolContent]>,
    /// The check it waits on now, if its server is down again.
    pub check_id: Option<&'a ConnectionCheckId>,
}

/// Calls that wait for a person to Connect their MCP server or Continue anyway.
impl Store {
    /// Within a transaction: the pending call waits on the connection check `check_id`.
    pub async fn attach_call_to_check(
        tx: &mut Transaction<'static, Sqlite>,
        call_id: &str,
        check_id: &ConnectionCheckId,
    ) -> Result<()> {
        sqlx::query("UPDATE tool_calls SET connection_check_id = ? WHERE id = ?")
            .bind(check_id)
            .bind(call_id)
            .execute(&mut **tx)
            .await?;
        Ok(())
    }

    /// The run's calls still waiting on a connection check, with that check's status (by call id).
    pub async fn calls_awaiting_checks(
        &self,
        run_id: &RunId,
    ) -> Result<std::collections::HashMap<ToolCallId, warden_types::connection::CheckStatus>> {
        let rows = sqlx::query(
            "SELECT t.id, c.status FROM tool_calls t JOIN connection_checks c ON c.id = t.connection_check_id \
             WHERE t.run_id = ? AND t.status = 'pending'",
        )
        .bind(run_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(|r| Ok((r.try_get("id")?, r.try_get("status")?))).collect()
    }

    /// Within a "Continue anyway": the calls waiting on the check are settled with `output` (they
    /// never run). Returns the settled records.
    pub async fn settle_calls_of_check(
        tx: &mut Transaction<'static, Sqlite>,
        check_id: &ConnectionCheckId,
        output: &[ToolContent],
    ) -> Result<Vec<ToolCallRecord>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE tool_calls SET status = 'done', output = ?, is_error = 1, finished_at = ? \
             WHERE connection_check_id = ? AND status = 'pending' RETURNING {COLUMNS}"
        )))
        .bind(json(&output)?)
        .bind(now())
        .bind(check_id)
        .fetch_all(&mut **tx)
        .await?;
        rows.iter().map(call_from_row).collect()
    }

    /// Within a transaction: a call that waited for its server is decided again (cleared to run,
    /// waiting for approval, settled at once, or waiting on a new check). `None` if it was not pending.
    pub async fn replan_call(
        tx: &mut Transaction<'static, Sqlite>,
        id: &ToolCallId,
        r: &Replanned<'_>,
    ) -> Result<Option<ToolCallRecord>> {
        let settled = r.output.is_some().then(now);
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE tool_calls SET status = ?, summary = ?, risk = ?, needs_approval = ?, origin = ?, preview = ?, \
               output = ?, is_error = ?, finished_at = ?, connection_check_id = ? \
             WHERE id = ? AND status = 'pending' RETURNING {COLUMNS}"
        )))
        .bind(r.status)
        .bind(r.summary)
        .bind(r.risk)
        .bind(r.needs_approval as i64)
        .bind(json(r.origin)?)
        .bind(r.preview.map(json).transpose()?)
        .bind(r.output.map(|o| json(&o)).transpose()?)
        .bind(r.output.is_some() as i64)
        .bind(settled)
        .bind(r.check_id)
        .bind(id)
        .fetch_optional(&mut **tx)
        .await?;
        row.as_ref().map(call_from_row).transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{Block, Role};
    use crate::store::test_db;
    use warden_types::id::ApprovalId;

    /// The calls of given messages are found by index, not by a scan of every call.
    #[tokio::test]
    async fn the_calls_of_given_messages_are_found_by_index() {
        let (_dir, store) = test_db::store().await;
        let explained =
            sqlx::query(sqlx::AssertSqlSafe(format!("EXPLAIN QUERY PLAN SELECT id FROM tool_calls {OF_MESSAGES}")));
        let plan = test_db::plan(&store, explained.bind("[]")).await;
        test_db::assert_found_by(&plan, "USING INDEX tool_calls_by_message", "tool_calls");
    }

    /// On a real SQLite file with the migrations applied: the calls of a run's latest message are
    /// found by index (SQLite's own plan says so), and only that message's, of that run.
    #[tokio::test]
    async fn the_calls_of_a_runs_latest_message_are_found_by_index() {
        let (_dir, store) = test_db::store().await;
        let explained =
            sqlx::query(sqlx::AssertSqlSafe(format!("EXPLAIN QUERY PLAN {}", calls_of_runs_last_message_sql())));
        let plan = test_db::plan(&store, explained.bind("any")).await;
        assert_eq!(
            plan,
            [
                "SEARCH tool_calls USING INDEX tool_calls_by_message (message_id=?)",
                "SCALAR SUBQUERY 1",
                "SEARCH messages USING INDEX messages_by_run (run_id=?)"
            ],
            "the plan: {plan:?}"
        );

        let thread = store.create_thread(Some("calls")).await.unwrap();
        let run = store.start_run(&thread.id, 5, Some("go"), None, None, None, None).await.unwrap().run.id;
        assert!(store.calls_of_runs_last_message(&run).await.unwrap().is_empty(), "a person's message asks for none");

        let mut tx = store.write_tx().await.unwrap();
        let mut ids = Vec::new();
        for (position, name) in ["read_file", "shell"].into_iter().enumerate() {
            let id = ToolCallId::new();
            let block = Block::ToolCall {
                id: id.clone(),
                call_id: format!("c{position}"),
                name: name.into(),
                arguments: Value::Null,
            };
            let mut batch = WriteBatch::new();
            let message = Store::insert_message(&mut batch, &thread.id, Some(&run), Role::Assistant, &[block]).unwrap();
            let call = NewToolCall {
                id: id.clone(),
                run_id: run.clone(),
                thread_id: thread.id.clone(),
                message_id: message.id,
                position: 0,
                call_id: format!("c{position}"),
                name: name.into(),
                origin: ToolOrigin::BuiltIn,
                arguments: Value::Null,
                summary: name.into(),
                risk: Risk::Low,
                needs_approval: false,
                preview: None,
                status: ToolCallStatus::Pending,
                output: None,
            };
            Store::insert_tool_call(&mut batch, call).unwrap();
            batch.run_in(&mut tx).await.unwrap();
            ids.push(id);
        }
        tx.commit().await.unwrap();
        let calls = store.calls_of_runs_last_message(&run).await.unwrap();
        assert_eq!(
            calls.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(),
            [ids[1].as_str()],
            "the latest message's only"
        );
    }

    /// What storing a call and its approval returns is what reading them back gives: a model turn
    /// announces the returned values instead of reading the rows again.
    #[tokio::test]
    async fn a_stored_call_and_its_approval_are_returned_as_they_read_back() {
        use crate::store::NewApproval;
        use warden_types::approval::{ApprovalStatus, DecidedBy, Decision};

        let (_dir, store) = test_db::store().await;
        let thread = store.create_thread(Some("returned")).await.unwrap();
        let run = store.start_run(&thread.id, 5, Some("go"), None, None, None, None).await.unwrap().run.id;
        let mut batch = WriteBatch::new();
        let block = Block::Text { text: "calls".into() };
        let message = Store::insert_message(&mut batch, &thread.id, Some(&run), Role::Assistant, &[block]).unwrap();
        let new_call = |id: &ToolCallId, status, output: Option<Vec<ToolContent>>| NewToolCall {
            id: id.into(),
            run_id: run.clone(),
            thread_id: thread.id.clone(),
            message_id: message.id.clone(),
            position: 0,
            call_id: format!("provider-{id}"),
            name: "shell".into(),
            origin: ToolOrigin::Mcp { server: "files".into() },
            arguments: serde_json::json!({"command": "echo ok", "n": 1.5, "list": [true, null]}),
            summary: "Run `echo ok`".into(),
            risk: Risk::Medium,
            needs_approval: true,
            preview: Some(Preview::Command { command: "echo ok".into() }),
            status,
            output,
        };
        let (asked_id, ruled_id, skipped_id) = (ToolCallId::new(), ToolCallId::new(), ToolCallId::new());
        let asked = Store::insert_tool_call(&mut batch, new_call(&asked_id, ToolCallStatus::Pending, None)).unwrap();
        let ruled = Store::insert_tool_call(&mut batch, new_call(&ruled_id, ToolCallStatus::Approved, None)).unwrap();
        let invalid = Some(vec![ToolContent::Text { text: "Invalid arguments".into() }]);
        let skipped =
            Store::insert_tool_call(&mut batch, new_call(&skipped_id, ToolCallStatus::Invalid, invalid)).unwrap();
        let by_rule = Decision { status: ApprovalStatus::Approved, by: DecidedBy::Rule { rule_id: "rule-1".into() } };
        let mut approvals = Vec::new();
        for (call, status, decision, expires_at) in [
            (&asked, ApprovalStatus::Pending, None, Some(warden_db::timestamp::now())),
            (&ruled, ApprovalStatus::Approved, Some(&by_rule), None),
        ] {
            let id = ApprovalId::new();
            let stored = Store::insert_approval(
                &mut batch,
                &NewApproval {
                    id: &id,
                    tool_call_id: &call.id,
                    run_id: &call.run_id,
                    thread_id: &call.thread_id,
                    tool: &call.name,
                    origin: &call.origin,
                    summary: &call.summary,
                    risk: call.risk,
                    arguments: &call.arguments,
                    status,
                    decision,
                    expires_at,
                    preview: call.preview.as_ref(),
                    target_state: Some("state-1"),
                    route: None,
                },
            )
            .unwrap();
            approvals.push(stored);
        }
        store.commit(batch).await.unwrap();

        for call in [&asked, &ruled, &skipped] {
            assert_eq!(&store.tool_call(&call.id).await.unwrap(), call);
        }
        assert!(skipped.is_error && skipped.finished_at.is_some() && asked.finished_at.is_none());
        for approval in &approvals {
            assert_eq!(&store.approval(&approval.id).await.unwrap(), approval);
        }
        assert!(approvals[1].decided_at.is_some() && approvals[0].decided_at.is_none());
    }
}
