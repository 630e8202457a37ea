//! The executors Warden dials, in SQLite (`outside_executors`, created by warden-outside's
//! migrations, which `OutsideHub::open` runs). The bearer token is read only to dial.

use sqlx::SqlitePool;
use warden_db::Database;
use warden_types::id::{ClientId, ExecutorId};

use crate::error::Result;

/// One stored executor, with its client's name and whether that client was revoked.
#[derive(Clone, sqlx::FromRow)]
pub struct ExecutorRow {
    pub id: ExecutorId,
    pub client_id: ClientId,
    pub name: String,
    pub url: String,
    pub bearer_token: Option<String>,
    pub enabled: bool,
    pub created_at: String,
    pub revoked: bool,
}

impl std::fmt::Debug for ExecutorRow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExecutorRow")
            .field("id", &self.id)
            .field("client_id", &self.client_id)
            .field("url", &self.url)
            .field("bearer_token", &self.bearer_token.as_ref().map(|_| "<redacted>"))
            .field("enabled", &self.enabled)
            .finish_non_exhaustive()
    }
}

/// The columns `ExecutorRow` is read from (SQL text must be static: `concat!` it).
macro_rules! select_executor {
    () => {
        "SELECT e.id, e.client_id, c.name, e.url, e.bearer_token, e.enabled, e.created_at, \
         c.revoked_at IS NOT NULL AS revoked \
         FROM outside_executors e JOIN outside_clients c ON c.id = e.client_id"
    };
}

#[derive(Debug, Clone)]
pub struct ExecutorStore {
    /// Reads.
    pool: SqlitePool,
    /// Writes: the database's one writer connection (see `Database`).
    writer: SqlitePool,
}

impl ExecutorStore {
    /// The executors' table in `database`, whose migrations the hub has run.
    pub fn new(database: &Database) -> Self {
        Self { pool: database.pool().clone(), writer: database.writer().clone() }
    }

    pub async fn insert(&self, row: &ExecutorRow) -> Result<()> {
        sqlx::query(
            "INSERT INTO outside_executors (id, client_id, url, bearer_token, enabled, created_at) \
             VALUES (?, ?, ?, ?, ?, ?)",
        )
        .bind(&row.id)
        .bind(&row.client_id)
        .bind(&row.url)
        .bind(row.bearer_token.as_deref())
        .bind(row.enabled)
        .bind(&row.created_at)
        .execute(&self.writer)
        .await?;
        Ok(())
    }

    /// Every executor, oldest first.
    pub async fn list(&self) -> Result<Vec<ExecutorRow>> {
        Ok(sqlx::query_as(concat!(select_executor!(), " ORDER BY e.created_at, e.id")).fetch_all(&self.pool).await?)
    }

    pub async fn get(&self, id: &ExecutorId) -> Result<Option<ExecutorRow>> {
        Ok(sqlx::query_as(concat!(select_executor!(), " WHERE e.id = ?")).bind(id).fetch_optional(&self.pool).await?)
    }

    /// Returns whether the executor exists.
    pub async fn set_enabled(&self, id: &ExecutorId, enabled: bool) -> Result<bool> {
        let done = sqlx::query("UPDATE outside_executors SET enabled = ? WHERE id = ?")
            .bind(enabled)
            .bind(id)
            .execute(&self.writer)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Returns whether the executor existed.
    pub async fn delete(&self, id: &ExecutorId) -> Result<bool> {
        let done = sqlx::query("DELETE FROM outside_executors WHERE id = ?").bind(id).execute(&self.writer).await?;
        Ok(done.rows_affected() > 0)
    }
}
