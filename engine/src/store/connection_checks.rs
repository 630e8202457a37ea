//! Connection check rows, and the servers a thread goes on without. Deciding is one conditional
//! UPDATE (`WHERE status = 'pending'`), so of two concurrent decisions exactly one wins.

use std::time::SystemTime;
use warden_types::id::{ConnectionCheckId, RunId, ThreadId};

use sqlx::sqlite::SqliteRow;
use sqlx::{Row, Sqlite, Transaction};

use warden_db::timestamp::{at, now};

use super::{json, Store};
use crate::error::{Error, Result};
use sqlx::FromRow;
use warden_types::connection::{CheckReason, CheckStatus, ConnectionCheck, ServerDown, ThreadCheck};

pub struct NewCheck<'a> {
    pub id: &'a ConnectionCheckId,
    pub run_id: &'a RunId,
    pub thread_id: &'a ThreadId,
    pub server: &'a str,
    pub reason: &'a CheckReason,
    pub down: ServerDown,
}

/// What waits in one thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingInThread {
    pub thread_id: ThreadId,
    pub approvals: u32,
    pub checks: u32,
}

const COLUMNS: &str = "id, run_id, thread_id, server, reason, down, status, error, created_at, decided_at";

impl Store {
    pub async fn insert_connection_check(tx: &mut Transaction<'static, Sqlite>, c: &NewCheck<'_>) -> Result<()> {
        sqlx::query(
            "INSERT INTO connection_checks (id, run_id, thread_id, server, reason, down, status, created_at) \
             VALUES (?, ?, ?, ?, ?, ?, 'pending', ?)",
        )
        .bind(c.id)
        .bind(c.run_id)
        .bind(c.thread_id)
        .bind(c.server)
        .bind(json(c.reason)?)
        .bind(c.down)
        .bind(now())
        .execute(&mut **tx)
        .await?;
        Ok(())
    }

    pub async fn connection_check(&self, id: &ConnectionCheckId) -> Result<ConnectionCheck> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!("SELECT {COLUMNS} FROM connection_checks WHERE id = ?")))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| Error::not_found("connection check", id))?;
        Ok(ConnectionCheck::from_row(&row)?)
    }

    pub async fn connection_checks_of_thread(&self, thread_id: &ThreadId) -> Result<Vec<ConnectionCheck>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM connection_checks WHERE thread_id = ? ORDER BY created_at, id"
        )))
        .bind(thread_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(ConnectionCheck::from_row).collect::<Result<_, _>>()?)
    }

    pub async fn connection_checks_of_run(&self, run_id: &RunId) -> Result<Vec<ConnectionCheck>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM connection_checks WHERE run_id = ? ORDER BY created_at, id"
        )))
        .bind(run_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(ConnectionCheck::from_row).collect::<Result<_, _>>()?)
    }

    /// The checks with `status` (any if `None`), newest first, at most `limit`, each with its
    /// thread's title (the inbox's list).
    pub async fn listed_connection_checks(&self, status: Option<CheckStatus>, limit: u32) -> Result<Vec<ThreadCheck>> {
        let columns = COLUMNS.split(", ").map(|c| format!("c.{c}")).collect::<Vec<_>>().join(", ");
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {columns}, t.title AS thread_title FROM connection_checks c JOIN threads t ON t.id = c.thread_id \
             WHERE (? IS NULL OR c.status = ?) ORDER BY c.created_at DESC, c.id LIMIT ?"
        )))
        .bind(status)
        .bind(status)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| Ok(ThreadCheck { check: ConnectionCheck::from_row(r)?, thread_title: r.try_get("thread_title")? }))
            .collect()
    }

    /// Per thread with any: how many approvals and how many connection checks wait, in one read
    /// (the inbox's counts and the sidebar rows' badges).
    pub async fn pending_by_thread(&self) -> Result<Vec<PendingInThread>> {
        let rows = sqlx::query(
            "SELECT thread_id, SUM(kind = 0) AS approvals, SUM(kind = 1) AS checks FROM ( \
               SELECT thread_id, 0 AS kind FROM approvals WHERE status = 'pending' \
               UNION ALL SELECT thread_id, 1 AS kind FROM connection_checks WHERE status = 'pending' \
             ) GROUP BY thread_id ORDER BY thread_id",
        )
        .fetch_all(&self.pool)
        .await?;
        let count = |r: &SqliteRow, column: &str| -> Result<u32> {
            Ok(u32::try_from(r.try_get::<i64, _>(column)?).unwrap_or(u32::MAX))
        };
        rows.iter()
            .map(|r| {
                Ok(PendingInThread {
                    thread_id: r.try_get("thread_id")?,
                    approvals: count(r, "approvals")?,
                    checks: count(r, "checks")?,
                })
            })
            .collect()
    }

    /// Whether a check of the run waits for the person.
    pub async fn run_has_pending_check(&self, run_id: &RunId) -> Result<bool> {
        Ok(sqlx::query_scalar::<_, i64>(
            "SELECT EXISTS (SELECT 1 FROM connection_checks WHERE run_id = ? AND status = 'pending')",
        )
        .bind(run_id)
        .fetch_one(&self.pool)
        .await?
            != 0)
    }

    /// Within a transaction: the pending check of the run for `server`, if there is one.
    pub async fn pending_check_for(
        tx: &mut Transaction<'static, Sqlite>,
        run_id: &RunId,
        server: &str,
    ) -> Result<Option<ConnectionCheckId>> {
        Ok(sqlx::query_scalar(
            "SELECT id FROM connection_checks WHERE run_id = ? AND server = ? AND status = 'pending'",
        )
        .bind(run_id)
        .bind(server)
        .fetch_optional(&mut **tx)
        .await?)
    }

    /// Records why a Connect did not connect; the check stays pending. `None` if it is not pending.
    pub async fn record_check_error(&self, id: &ConnectionCheckId, error: &str) -> Result<Option<ConnectionCheck>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE connection_checks SET error = ? WHERE id = ? AND status = 'pending' RETURNING {COLUMNS}"
        )))
        .bind(error)
        .bind(id)
        .fetch_optional(&self.writer)
        .await?;
        Ok(row.as_ref().map(ConnectionCheck::from_row).transpose()?)
    }

    /// Within a decision's transaction: a pending check becomes `to`. `None` if it was not pending.
    pub async fn decide_check(
        tx: &mut Transaction<'static, Sqlite>,
        id: &ConnectionCheckId,
        to: CheckStatus,
    ) -> Result<Option<ConnectionCheck>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE connection_checks SET status = ?, decided_at = ? WHERE id = ? AND status = 'pending' \
             RETURNING {COLUMNS}"
        )))
        .bind(to)
        .bind(now())
        .bind(id)
        .fetch_optional(&mut **tx)
        .await?;
        Ok(row.as_ref().map(ConnectionCheck::from_row).transpose()?)
    }

    /// Cancels the run's pending checks (the run stopped or failed); returns them as cancelled.
    pub async fn cancel_checks_of_run(&self, run_id: &RunId) -> Result<Vec<ConnectionCheck>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE connection_checks SET status = 'cancelled', decided_at = ? \
             WHERE run_id = ? AND status = 'pending' RETURNING {COLUMNS}"
        )))
        .bind(now())
        .bind(run_id)
        .fetch_all(&self.writer)
        .await?;
        Ok(rows.iter().map(ConnectionCheck::from_row).collect::<Result<_, _>>()?)
    }

    /// Within a transaction: the thread goes on without `server` until `until` (a later "Continue
    /// anyway" moves the time on).
    pub async fn leave_server_out(
        tx: &mut Transaction<'static, Sqlite>,
        thread_id: &ThreadId,
        server: &str,
        until: SystemTime,
    ) -> Result<()> {
        sqlx::query(
            "INSERT INTO servers_left_out (thread_id, server, until) VALUES (?, ?, ?) \
             ON CONFLICT (thread_id, server) DO UPDATE SET until = excluded.until",
        )
        .bind(thread_id)
        .bind(server)
        .bind(at(until))
        .execute(&mut **tx)
        .await?;
        Ok(())
    }

    /// The servers the thread goes on without at `when`.
    pub async fn servers_left_out(&self, thread_id: &ThreadId, when: SystemTime) -> Result<Vec<String>> {
        Ok(sqlx::query_scalar("SELECT server FROM servers_left_out WHERE thread_id = ? AND until > ? ORDER BY server")
            .bind(thread_id)
            .bind(at(when))
            .fetch_all(&self.pool)
            .await?)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn a_server_is_left_out_until_its_time_and_asked_about_again_after() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open(&format!("sqlite://{}", dir.path().join("warden.db").display())).await.expect("store");
        let thread = store.create_thread(None).await.expect("thread");
        let other = store.create_thread(None).await.expect("another thread");
        let decided = SystemTime::UNIX_EPOCH + Duration::from_secs(1_900_000_000);
        let hour = Duration::from_secs(warden_types::connection::CONTINUE_WITHOUT_SECS);
        let mut tx = store.write_tx().await.expect("tx");
        Store::leave_server_out(&mut tx, &thread.id, "fx", decided + hour).await.expect("left out");
        tx.commit().await.expect("commit");

        let left_out = |when| {
            let (store, id) = (store.clone(), thread.id.clone());
            async move { store.servers_left_out(&id, when).await.expect("query") }
        };
        assert_eq!(left_out(decided).await, ["fx"]);
        assert_eq!(left_out(decided + hour - Duration::from_millis(1)).await, ["fx"], "within the hour");
        assert!(left_out(decided + hour).await.is_empty(), "the hour is over");
        assert!(store.servers_left_out(&other.id, decided).await.expect("query").is_empty(), "per thread");

        // Another "Continue anyway" later moves the hour on.
        let later = decided + hour * 2;
        let mut tx = store.write_tx().await.expect("tx");
        Store::leave_server_out(&mut tx, &thread.id, "fx", later + hour).await.expect("left out again");
        tx.commit().await.expect("commit");
        assert_eq!(left_out(later + hour / 2).await, ["fx"]);
    }
}
