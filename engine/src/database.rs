//! The SQLite file every part of Warden shares, as a handle. The engine runs its own migrations
//! on it; other crates (warden-mcp) own their tables and run their own migrations on the same file
//! through this handle, never through the engine's store.

use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::SqlitePool;

use crate::error::Result;

/// One open SQLite database (WAL, foreign keys on). Cheap to clone; clones share the pool.
#[derive(Clone, Debug)]
pub struct Database {
    pool: SqlitePool,
}

impl Database {
    /// Opens (creating if needed, with its folder) the database at `database_url`. Runs no migrations.
    pub async fn open(database_url: &str) -> Result<Self> {
        let options = SqliteConnectOptions::from_str(database_url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(Duration::from_secs(10))
            .foreign_keys(true);
        if let Some(parent) = std::path::Path::new(options.get_filename()).parent() {
            if !parent.as_os_str().is_empty() {
                tokio::fs::create_dir_all(parent).await?;
            }
        }
        // No ping before each use: it is a round trip to the connection's worker thread, which doubled
        // the cost of every statement, and a connection to a local file has no far end to lose.
        let pool = SqlitePoolOptions::new().max_connections(8).test_before_acquire(false).connect_with(options).await?;
        Ok(Self { pool })
    }

    /// The connection pool, for a crate that owns its own tables in this file (with its own
    /// migrator and migrations table: see `warden_mcp::McpStore::open`).
    pub fn pool(&self) -> &SqlitePool {
        &self.pool
    }
}
