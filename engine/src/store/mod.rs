//! The SQLite store: one pool, schema by sqlx migrations, and one module per table group.
//! Every step of a run is written here before it takes effect; memory holds only handles.

mod approvals;
mod events;
mod messages;
mod rules;
mod runs;
mod threads;
mod tool_calls;

use std::str::FromStr;
use std::time::{Duration, SystemTime};

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::SqlitePool;

use crate::error::{Error, Result};

pub use approvals::NewApproval;
pub use events::StoredEvent;
pub use tool_calls::NewToolCall;

#[derive(Clone)]
pub struct Store {
    pool: SqlitePool,
}

impl Store {
    /// Opens (creating if needed) the database and applies pending migrations.
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
        let pool = SqlitePoolOptions::new().max_connections(8).connect_with(options).await?;
        sqlx::migrate!("./migrations").run(&pool).await?;
        Ok(Self { pool })
    }

    pub fn pool(&self) -> &SqlitePool {
        &self.pool
    }
}

/// RFC 3339 UTC with milliseconds: sorts as text.
pub fn now() -> String {
    humantime::format_rfc3339_millis(SystemTime::now()).to_string()
}

pub fn at(t: SystemTime) -> String {
    humantime::format_rfc3339_millis(t).to_string()
}

pub fn parse_time(s: &str) -> Option<SystemTime> {
    humantime::parse_rfc3339(s).ok()
}

/// Time-ordered unique ids (UUID v7).
pub fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

fn json<T: serde::Serialize>(v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(|e| Error::Corrupt(e.to_string()))
}

fn from_json<T: serde::de::DeserializeOwned>(s: &str) -> Result<T> {
    serde_json::from_str(s).map_err(|e| Error::Corrupt(e.to_string()))
}
