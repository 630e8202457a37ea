//! Approval policies: rules that route a request for approval to the people who can judge it. A policy
//! matches on where the request comes from (a chat, an outside client, a coding agent), the tool (exactly or
//! by glob), its MCP server, its risk and who asked; the first that matches, in the owner's order, names
//! the approvers (people and roles), how many distinct approvers must approve (one deny denies), whether the
//! requester may be one of them, and how long the request waits. No policy matching: any owner or approver
//! decides alone, as before policies.
//!
//! `matching` and `tally` are pure (no I/O, and with default features off the crate builds for the
//! browser); `store` (feature `store`) keeps the policies in their table. The engine routes its chats'
//! approvals through this crate; outside requests can use the same functions.

mod checks;
mod glob;
pub mod matching;
#[cfg(feature = "store")]
mod store;
pub mod tally;

pub use checks::{check, Checked};
pub use matching::{first_match, route_for, Request};
#[cfg(feature = "store")]
pub use store::Policies;
pub use tally::{may_decide, route_of, shown_to, Refusal, Tally};

#[cfg(feature = "store")]
pub use store_error::{Error, Result, MIGRATIONS_TABLE};

#[cfg(feature = "store")]
mod store_error {
    use warden_types::ErrorKind;

    /// Where this crate's migrations are recorded, apart from the other crates'.
    pub const MIGRATIONS_TABLE: &str = "_warden_policies_migrations";

    #[derive(Debug, thiserror::Error)]
    pub enum Error {
        #[error("database error: {0}")]
        Sqlx(#[from] sqlx::Error),
        #[error("migration error: {0}")]
        Migrate(#[from] sqlx::migrate::MigrateError),
        #[error("a stored policy could not be read: {0}")]
        Json(#[from] serde_json::Error),
        #[error("no policy {0}")]
        NotFound(String),
        #[error("{0}")]
        Invalid(String),
    }

    impl Error {
        /// What kind of failure this is for a caller (and so its HTTP status).
        pub fn kind(&self) -> ErrorKind {
            match self {
                Error::NotFound(_) => ErrorKind::NotFound,
                Error::Invalid(_) => ErrorKind::Invalid,
                Error::Sqlx(_) | Error::Migrate(_) | Error::Json(_) => ErrorKind::Internal,
            }
        }
    }

    pub type Result<T, E = Error> = std::result::Result<T, E>;
}

#[cfg(feature = "store")]
fn migrator() -> sqlx::migrate::Migrator {
    let mut migrator = sqlx::migrate!("./migrations");
    migrator.dangerous_set_table_name(MIGRATIONS_TABLE);
    migrator
}
