//! Approval rows. Deciding is one conditional UPDATE (`WHERE status = 'pending'`), so of any
//! number of concurrent decisions exactly one wins and the rest see "already decided".

use serde_json::Value;
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, Sqlite, Transaction};
use warden_types::id::{ApprovalId, RunId, ThreadId, ToolCallId};

use warden_db::timestamp::now;

use super::{from_json, json, Store, WriteBatch};
use crate::error::{Error, Result};
use warden_types::approval::{Approval, ApprovalStatus, DecidedByKind, Decision};
use warden_types::cursor::AuditCursor;
use warden_types::policy::ApprovalRoute;
use warden_types::tool::{Preview, Risk, ToolOrigin};

pub struct NewApproval<'a> {
    pub id: &'a ApprovalId,
    pub tool_call_id: &'a ToolCallId,
    pub run_id: &'a RunId,
    pub thread_id: &'a ThreadId,
    /// The call's tool, origin, summary and risk as its row holds them once the transaction commits
    /// (an approval reads them from there): the approval is returned with them, not read back.
    pub tool: &'a str,
    pub origin: &'a ToolOrigin,
    pub summary: &'a str,
    pub risk: Risk,
    pub arguments: &'a Value,
    pub status: ApprovalStatus,
    pub decision: Option<&'a Decision>,
    pub expires_at: Option<String>,
    /// What the card shows besides the arguments.
    pub preview: Option<&'a Preview>,
    /// The target's state when the preview was made; the call runs only while it holds.
    pub target_state: Option<&'a str>,
    /// Who decides it (`None` for an approval a rule gave).
    pub route: Option<&'a ApprovalRoute>,
}

fn approval_from_row(r: &SqliteRow) -> Result<Approval> {
    let preview: Option<String> = r.try_get("preview")?;
    let decision: Option<String> = r.try_get("decision")?;
    let route: Option<String> = r.try_get("route")?;
    let votes: Option<String> = r.try_get("votes")?;
    Ok(Approval {
        id: r.try_get("id")?,
        run_id: r.try_get("run_id")?,
        thread_id: r.try_get("thread_id")?,
        tool_call_id: r.try_get("tool_call_id")?,
        tool: r.try_get("name")?,
        origin: from_json(&r.try_get::<String, _>("origin")?)?,
        arguments: from_json(&r.try_get::<String, _>("arguments")?)?,
        summary: r.try_get("summary")?,
        risk: r.try_get("risk")?,
        preview: preview.as_deref().map(from_json).transpose()?,
        status: r.try_get("status")?,
        created_at: r.try_get("created_at")?,
        decided_at: r.try_get("decided_at")?,
        expires_at: r.try_get("expires_at")?,
        decision: decision.as_deref().map(from_json).transpose()?,
        route: route.as_deref().map(from_json).transpose()?,
        votes: votes.as_deref().map(from_json).transpose()?.unwrap_or_default(),
    })
}

/// The columns `approval_from_row` reads, and where they come from.
macro_rules! approval_columns {
    () => {
        "a.id, a.run_id, a.thread_id, a.tool_call_id, t.name, t.origin, a.arguments, t.summary, t.risk, a.preview, \
         a.status, a.created_at, a.decided_at, a.expires_at, a.decision, a.route, \
         (SELECT json_group_array(json_object('person', json(v.person), 'verdict', v.verdict, 'at', v.at)) \
          FROM (SELECT person, verdict, at FROM approval_votes v WHERE v.approval_id = a.id ORDER BY v.seq) v) \
          AS votes"
    };
}
macro_rules! approval_from {
    () => {
        " FROM approvals a JOIN tool_calls t ON t.id = a.tool_call_id"
    };
}
const SELECT: &str = concat!("SELECT ", approval_columns!(), approval_from!());
/// A page of approvals of any status, newest first (by index: `approvals_by_creation`).
const NEWEST_FIRST: &str = "ORDER BY a.created_at DESC, a.id DESC LIMIT ?";
/// The approvals of given calls (a JSON array of ids), each call's found by `approvals_by_call`.
const OF_CALLS: &str = "WHERE a.tool_call_id IN (SELECT value FROM json_each(?)) ORDER BY a.created_at, a.id";
/// The same, with the target state the approval is bound to.
const SELECT_WITH_TARGET_STATE: &str = concat!("SELECT ", approval_columns!(), ", a.target_state", approval_from!());

impl Store {
    /// A new approval's row, in `batch` (which the caller runs as, or in, a transaction); returns the
    /// approval as `approval` will read it once that commits.
    pub fn insert_approval(batch: &mut WriteBatch, a: &NewApproval<'_>) -> Result<Approval> {
        let created_at = now();
        let decided = a.decision.is_some().then(|| created_at.clone());
        batch
            .push(
                "INSERT INTO approvals (id, tool_call_id, run_id, thread_id, arguments, status, decision, created_at, \
               decided_at, expires_at, preview, target_state, route) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            )
            .bind(a.id)
            .bind(a.tool_call_id)
            .bind(a.run_id)
            .bind(a.thread_id)
            .bind(json(a.arguments)?)
            .bind(a.status)
            .bind(a.decision.map(json).transpose()?)
            .bind(&created_at)
            .bind(&decided)
            .bind(&a.expires_at)
            .bind(a.preview.map(json).transpose()?)
            .bind(a.target_state)
            .bind(a.route.map(json).transpose()?);
        Ok(Approval {
            id: a.id.clone(),
            run_id: a.run_id.clone(),
            thread_id: a.thread_id.clone(),
            tool_call_id: a.tool_call_id.clone(),
            tool: a.tool.to_string(),
            origin: a.origin.clone(),
            arguments: a.arguments.clone(),
            summary: a.summary.to_string(),
            risk: a.risk,
            preview: a.preview.cloned(),
            status: a.status,
            created_at,
            decided_at: decided,
            expires_at: a.expires_at.clone(),
            decision: a.decision.cloned(),
            route: a.route.cloned(),
            votes: Vec::new(),
        })
    }

    pub async fn approval(&self, id: &ApprovalId) -> Result<Approval> {
        Ok(self.approval_with_target_state(id).await?.0)
    }

    /// The approval and the state of its target when its card was shown (`None` for a tool without one):
    /// what a decision hands to the driver with the call it approved (`approval::handoff`).
    pub async fn approval_with_target_state(&self, id: &ApprovalId) -> Result<(Approval, Option<String>)> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!("{SELECT_WITH_TARGET_STATE} WHERE a.id = ?")))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| Error::not_found("approval", id))?;
        Ok((approval_from_row(&row)?, row.try_get("target_state")?))
    }

    /// The call's latest approval (a call has several only when its target changed).
    pub async fn approval_of_call(&self, tool_call_id: &ToolCallId) -> Result<Option<Approval>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "{SELECT} WHERE a.tool_call_id = ? ORDER BY a.created_at DESC, a.id DESC LIMIT 1"
        )))
        .bind(tool_call_id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(approval_from_row).transpose()
    }

    pub async fn approvals(&self, status: Option<ApprovalStatus>, limit: u32) -> Result<Vec<Approval>> {
        let rows = match status {
            Some(s) => {
                sqlx::query(sqlx::AssertSqlSafe(format!(
                    "{SELECT} WHERE a.status = ? ORDER BY a.created_at DESC, a.id DESC LIMIT ?"
                )))
                .bind(s)
                .bind(limit as i64)
                .fetch_all(&self.pool)
                .await?
            }
            None => {
                sqlx::query(sqlx::AssertSqlSafe(format!("{SELECT} {NEWEST_FIRST}")))
                    .bind(limit as i64)
                    .fetch_all(&self.pool)
                    .await?
            }
        };
        rows.iter().map(approval_from_row).collect()
    }

    /// How many approvals have `status` (all of them, not a page).
    pub async fn count_approvals(&self, status: ApprovalStatus) -> Result<u64> {
        let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM approvals WHERE status = ?")
            .bind(status)
            .fetch_one(&self.pool)
            .await?;
        Ok(u64::try_from(count).unwrap_or(0))
    }

    /// Decided approvals for the audit log, newest decision first (not those of imported threads,
    /// which were decided elsewhere): those decided before `before`
    /// (`decided_at`, `id`), with `status` and decided by `by` when given.
    pub async fn decided_approvals(
        &self,
        status: Option<ApprovalStatus>,
        by: Option<DecidedByKind>,
        before: Option<&AuditCursor>,
        limit: u32,
    ) -> Result<Vec<Approval>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "{SELECT} WHERE a.status != 'pending' AND a.decided_at IS NOT NULL \
             AND a.thread_id NOT IN (SELECT id FROM threads WHERE imported_at IS NOT NULL) \
             AND (?1 IS NULL OR a.status = ?1) \
             AND (?2 IS NULL OR json_extract(a.decision, '$.by') = ?2) \
             AND (?3 IS NULL OR a.decided_at < ?3 OR (a.decided_at = ?3 AND a.id < ?4)) \
             ORDER BY a.decided_at DESC, a.id DESC LIMIT ?5"
        )))
        .bind(status)
        .bind(by.map(<&'static str>::from))
        .bind(before.map(AuditCursor::at))
        .bind(before.map(AuditCursor::id))
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(approval_from_row).collect()
    }

    pub async fn approvals_of_thread(&self, thread_id: &ThreadId) -> Result<Vec<Approval>> {
        let rows =
            sqlx::query(sqlx::AssertSqlSafe(format!("{SELECT} WHERE a.thread_id = ? ORDER BY a.created_at, a.id")))
                .bind(thread_id)
                .fetch_all(&self.pool)
                .await?;
        rows.iter().map(approval_from_row).collect()
    }

    /// The approvals of the calls `call_ids`, oldest first (as `approvals_of_thread`).
    pub async fn approvals_of_calls(&self, call_ids: &[&ToolCallId]) -> Result<Vec<Approval>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!("{SELECT} {OF_CALLS}")))
            .bind(json(&call_ids)?)
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(approval_from_row).collect()
    }

    /// Pending approvals that carry a deadline: (id, expires_at).
    pub async fn expiring_approvals(&self) -> Result<Vec<(ApprovalId, String)>> {
        Ok(sqlx::query_as("SELECT id, expires_at FROM approvals WHERE expires_at IS NOT NULL AND status = 'pending'")
            .fetch_all(&self.pool)
            .await?)
    }

    /// In `batch`: the decision, if the approval is still pending, then a row `decided` (1: it was;
    /// 0: someone decided first, and the caller drops its transaction). Returns when it was decided.
    pub fn record_decision(batch: &mut WriteBatch, id: &ApprovalId, decision: &Decision) -> Result<String> {
        Self::push_settle(batch, id, ApprovalStatus::Pending, decision)
    }

    /// Whether the decision `record_decision` put in a batch applied, from the rows the batch
    /// returned (its `decided` row is the first).
    pub fn decision_applied(rows: &[SqliteRow]) -> Result<bool> {
        let decided = rows.first().map(|r| r.try_get::<i64, _>("decided")).transpose()?;
        Ok(decided == Some(1))
    }

    /// Moves the approval from `from` to the decision's status and returns when; `None` if it was not
    /// in `from`.
    async fn settle_approval(
        tx: &mut Transaction<'static, Sqlite>,
        id: &ApprovalId,
        from: ApprovalStatus,
        decision: &Decision,
    ) -> Result<Option<String>> {
        let mut batch = WriteBatch::new();
        let at = Self::push_settle(&mut batch, id, from, decision)?;
        let rows = batch.run_in(tx).await?;
        Ok(Self::decision_applied(&rows)?.then_some(at))
    }

    fn push_settle(
        batch: &mut WriteBatch,
        id: &ApprovalId,
        from: ApprovalStatus,
        decision: &Decision,
    ) -> Result<String> {
        let at = now();
        batch
            .push("UPDATE approvals SET status = ?, decision = ?, decided_at = ? WHERE id = ? AND status = ?")
            .bind(decision.status)
            .bind(json(decision)?)
            .bind(at.clone())
            .bind(id)
            .bind(from);
        batch.push("SELECT changes() AS decided");
        Ok(at)
    }
}

impl Store {
    /// The approval that cleared the call to run, and the target state it is bound to, if any.
    pub async fn clearance_of_call(&self, tool_call_id: &ToolCallId) -> Result<Option<(Approval, Option<String>)>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "{SELECT_WITH_TARGET_STATE} WHERE a.tool_call_id = ? ORDER BY a.created_at DESC, a.id DESC LIMIT 1"
        )))
        .bind(tool_call_id)
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else { return Ok(None) };
        let approval = approval_from_row(&row)?;
        if approval.status != ApprovalStatus::Approved {
            return Ok(None);
        }
        Ok(Some((approval, row.try_get("target_state")?)))
    }

    /// Within a transaction: an approved approval whose target changed is settled as superseded.
    pub async fn supersede_approval(
        tx: &mut Transaction<'static, Sqlite>,
        id: &ApprovalId,
        decision: &Decision,
    ) -> Result<bool> {
        Ok(Self::settle_approval(tx, id, ApprovalStatus::Approved, decision).await?.is_some())
    }

    pub async fn approvals_of_run_pending(&self, run_id: &RunId) -> Result<Vec<Approval>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!("{SELECT} WHERE a.run_id = ? AND a.status = 'pending'")))
            .bind(run_id)
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(approval_from_row).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::test_db;

    /// On a real SQLite file with the migrations applied: a page of approvals of any status is read
    /// in index order (SQLite's own plan says so: no sort of every approval).
    #[tokio::test]
    async fn a_page_of_the_newest_approvals_is_read_by_index() {
        let (_dir, store) = test_db::store().await;
        let explained = sqlx::query(sqlx::AssertSqlSafe(format!("EXPLAIN QUERY PLAN {SELECT} {NEWEST_FIRST}")));
        let plan = test_db::plan(&store, explained.bind(10)).await;
        assert!(plan.iter().any(|step| step.contains("USING INDEX approvals_by_creation")), "the plan: {plan:?}");
        assert!(!plan.iter().any(|step| step.contains("TEMP B-TREE")), "the plan: {plan:?}");
        assert!(store.approvals(None, 10).await.unwrap().is_empty());
    }

    /// The approvals of given calls (a model turn's) are found by index, not by a scan of every approval.
    #[tokio::test]
    async fn the_approvals_of_given_calls_are_found_by_index() {
        let (_dir, store) = test_db::store().await;
        let explained = sqlx::query(sqlx::AssertSqlSafe(format!("EXPLAIN QUERY PLAN {SELECT} {OF_CALLS}")));
        let plan = test_db::plan(&store, explained.bind("[]")).await;
        test_db::assert_found_by(&plan, "USING INDEX approvals_by_call", "a");
    }
}
