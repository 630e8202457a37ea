//! The engine's error type: domain failures a caller can act on, and infrastructure failures
//! that the edge logs and reports as "internal".

use crate::llm::ProviderError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{what} `{id}` not found")]
    NotFound { what: &'static str, id: String },
    #[error("approval `{0}` is already decided")]
    AlreadyDecided(String),
    #[error("invalid input: {0}")]
    Invalid(String),
    #[error("invalid arguments: {0}")]
    InvalidArguments(String),
    #[error("the thread already has a run in progress")]
    RunInProgress,
    #[error("no model is configured: set OPENAI_BASE_URL (and OPENAI_API_KEY, WARDEN_MODEL)")]
    NoModel,
    #[error(transparent)]
    Provider(#[from] ProviderError),
    #[error("database error: {0}")]
    Sqlx(#[from] sqlx::Error),
    #[error("migration error: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    #[error("i/o error: {0}")]
    Io(#[from] std::io::Error),
}

impl Error {
    pub fn not_found(what: &'static str, id: impl Into<String>) -> Self {
        Error::NotFound { what, id: id.into() }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
