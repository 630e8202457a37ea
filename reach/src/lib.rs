//! Reaching the people who decide, away from the app.
//!
//! - [`links`]: single-use decision links. Each is bound to one request, one person and one intended action
//!   (approve or deny), expires, and is kept only as the SHA-256 of its secret. Opening one shows a confirm
//!   page and decides nothing (mail scanners open links); the POST from that page burns it first, then
//!   decides as that person.
//! - [`deliveries`]: the log of what was sent about a request, to whom, by which channel, and what became of
//!   it: delivered (the channel's answer), failed, opened (a link it carried was opened).
//!
//! The channels themselves are `warden-notify`'s; who is asked when (routing, escalation) is decided by the
//! server's dispatcher with this crate's stores.

pub mod deliveries;
pub mod escalation;
pub mod links;

use sqlx::migrate::Migrator;
use warden_db::Database;
use warden_types::ErrorKind;

pub use deliveries::{Deliveries, NewNotification};
pub use links::{Burn, DecisionLink, DecisionLinks, LinkState, NewLink};

/// Where this crate's migrations are recorded, apart from the other crates'.
pub const MIGRATIONS_TABLE: &str = "_warden_reach_migrations";

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("database error: {0}")]
    Sqlx(#[from] sqlx::Error),
    #[error("migration error: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("the operating system gave no random bytes: {0}")]
    Random(getrandom::Error),
    #[error("a stored row could not be read: {0}")]
    Stored(String),
}

impl Error {
    /// What kind of failure this is for a caller (and so its HTTP status).
    pub fn kind(&self) -> ErrorKind {
        ErrorKind::Internal
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// This crate's tables, on the database every part of Warden shares. Cheap to clone.
#[derive(Clone)]
pub struct Reach {
    pub links: DecisionLinks,
    pub deliveries: Deliveries,
}

impl Reach {
    /// Applies this crate's migrations to `database` and keeps it.
    pub async fn open(database: &Database) -> Result<Self> {
        migrator().run(database.writer()).await?;
        Ok(Self { links: DecisionLinks::new(database), deliveries: Deliveries::new(database) })
    }
}

fn migrator() -> Migrator {
    let mut migrator = sqlx::migrate!("./migrations");
    migrator.dangerous_set_table_name(MIGRATIONS_TABLE);
    migrator
}
