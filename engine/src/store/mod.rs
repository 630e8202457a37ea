//! The SQLite store: a pool of readers and one writer (see `Database`), schema by sqlx migrations,
//! and one module per table group.
//! Every step of a run is written here before it takes effect; memory holds only handles.

mod approvals;
mod batch;
mod connection_checks;
mod events;
mod found_tools;
mod import;
mod messages;
mod providers;
mod result_summaries;
mod rules;
mod runs;
pub(crate) mod search;
pub(crate) mod sharing;
mod threads;
mod tool_calls;
mod votes;

use sqlx::SqlitePool;

use crate::error::{Error, Result};
use warden_db::Database;

pub use approvals::NewApproval;
pub use batch::WriteBatch;
pub use connection_checks::{NewCheck, PendingInThread};
pub use events::StoredEvent;
pub use providers::StoredProvider;
pub use result_summaries::StoredSummary;
pub use runs::StartedRun;
pub use sharing::ThreadFacts;
pub use tool_calls::{NewToolCall, Replanned};

#[derive(Clone)]
pub struct Store {
    /// Reads only.
    pool: SqlitePool,
    /// Every write: statements and `write_tx`.
    writer: SqlitePool,
    database: Database,
}

impl Store {
    /// Opens (creating if needed) the database and applies the engine's pending migrations.
    pub async fn open(database_url: &str) -> Result<Self> {
        Self::on(Database::open(database_url).await?).await
    }

    /// Applies the engine's pending migrations to `database` and keeps it.
    pub async fn on(database: Database) -> Result<Self> {
        migrator().run(database.writer()).await?;
        Ok(Self { pool: database.pool().clone(), writer: database.writer().clone(), database })
    }

    pub fn pool(&self) -> &SqlitePool {
        &self.pool
    }

    /// A transaction that writes, on the writer connection (waiting its turn behind other writers):
    /// it takes SQLite's write lock at its start (`BEGIN IMMEDIATE`). A deferred one that read first
    /// could not upgrade once another writer had committed (SQLITE_BUSY_SNAPSHOT, which no busy
    /// timeout retries). Inside it, write only through the transaction: the writer is taken.
    pub async fn write_tx(&self) -> Result<sqlx::Transaction<'static, sqlx::Sqlite>> {
        Ok(self.writer.begin_with("BEGIN IMMEDIATE").await?)
    }

    /// The shared database handle (for crates that own their own tables in the same file).
    pub fn database(&self) -> &Database {
        &self.database
    }
}

/// The engine's migrations (`engine/migrations`). `ignore_missing`: databases made before
/// warden-mcp owned its table record `20261122000300_mcp_servers` here; that migration now lives in
/// `mcp/migrations` (with its own migrations table), so an applied version the engine no longer
/// has is expected, not an error.
pub(crate) fn migrator() -> sqlx::migrate::Migrator {
    let mut migrator = sqlx::migrate!("./migrations");
    migrator.set_ignore_missing(true);
    migrator
}

fn json<T: serde::Serialize>(v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(|e| Error::Corrupt(e.to_string()))
}

fn from_json<T: serde::de::DeserializeOwned>(s: &str) -> Result<T> {
    serde_json::from_str(s).map_err(|e| Error::Corrupt(e.to_string()))
}

/// A write that had to change a row: `NotFound` (`what` `id`) when it matched none.
fn found(done: sqlx::sqlite::SqliteQueryResult, what: &'static str, id: impl Into<String>) -> Result<()> {
    if done.rows_affected() == 0 {
        return Err(Error::not_found(what, id));
    }
    Ok(())
}

/// A store on a fresh SQLite file with every migration applied, and SQLite's plan for a query on it.
#[cfg(test)]
pub(crate) mod test_db {
    use sqlx::sqlite::{SqliteArguments, SqliteRow};
    use sqlx::{Row, Sqlite};

    use super::Store;

    pub async fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store =
            Store::open(&format!("sqlite://{}?mode=rwc", dir.path().join("warden.db").display())).await.unwrap();
        (dir, store)
    }

    /// SQLite's plan for `explained` (an `EXPLAIN QUERY PLAN` query with its arguments), a step each.
    pub async fn plan(store: &Store, explained: sqlx::query::Query<'_, Sqlite, SqliteArguments>) -> Vec<String> {
        let rows: Vec<SqliteRow> = explained.fetch_all(store.pool()).await.unwrap();
        rows.iter().map(|r| r.get::<String, _>("detail")).collect()
    }

    /// Asserts that `plan` finds its rows by `by` (an index's name or a key's condition) and scans
    /// no table called `table`.
    pub fn assert_found_by(plan: &[String], by: &str, table: &str) {
        assert!(plan.iter().any(|step| step.contains(by)), "not by {by}: {plan:?}");
        assert!(!plan.iter().any(|step| step.starts_with(&format!("SCAN {table}"))), "a scan of {table}: {plan:?}");
    }
}
