//! The engine's error type: domain failures a caller can act on, and infrastructure failures
//! that the edge logs and reports as "internal".

use warden_llm::ProviderError;
use warden_types::ErrorKind;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{what} `{id}` not found")]
    NotFound { what: &'static str, id: String },
    #[error("approval `{0}` is already decided")]
    AlreadyDecided(String),
    #[error("connection check `{0}` is already decided")]
    CheckDecided(String),
    #[error("invalid input: {0}")]
    Invalid(String),
    /// The person may not decide this approval (not routed to them, their own request, their role).
    #[error("{0}")]
    Refused(#[from] warden_policies::Refusal),
    #[error("you have already approved this as it is shown; it waits for the other approvers")]
    AlreadyVoted,
    /// An approver edited the card after it was read: what was approved is no longer what it shows.
    #[error("the arguments were edited by another approver; look at the card again")]
    ShownChanged,
    #[error(transparent)]
    Policies(#[from] warden_policies::Error),
    #[error("invalid arguments: {0}")]
    InvalidArguments(String),
    #[error("only the person who started this thread may change it; it is shared with you to read")]
    NotThreadOwner,
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

    /// What kind of failure this is for a caller (and so its HTTP status: [`ErrorKind::status`]).
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::NotFound { .. } => ErrorKind::NotFound,
            Error::AlreadyDecided(_)
            | Error::CheckDecided(_)
            | Error::RunInProgress
            | Error::AlreadyVoted
            | Error::ShownChanged => ErrorKind::Conflict,
            Error::Refused(_) => ErrorKind::Forbidden,
            Error::Policies(e) => e.kind(),
            Error::Invalid(_) | Error::InvalidArguments(_) => ErrorKind::Invalid,
            Error::NotThreadOwner => ErrorKind::Forbidden,
            Error::NoModel => ErrorKind::Unavailable,
            Error::Provider(_) => ErrorKind::Upstream,
            Error::Sqlx(_) | Error::Migrate(_) | Error::Corrupt(_) | Error::Io(_) => ErrorKind::Internal,
        }
    }

    /// The stable machine-readable code the public API sends with this error (docs/API.md).
    pub fn code(&self) -> &'static str {
        match self {
            Error::NotFound { .. } => "not_found",
            Error::AlreadyDecided(_) | Error::CheckDecided(_) => "already_decided",
            Error::RunInProgress => "run_in_progress",
            Error::Refused(warden_policies::Refusal::OwnRequest) => "own_request",
            Error::Refused(warden_policies::Refusal::NotAnApprover) => "not_routed_to_you",
            Error::Refused(warden_policies::Refusal::RoleDecidesNothing) => "role_not_allowed",
            Error::AlreadyVoted => "already_voted",
            Error::ShownChanged => "arguments_changed",
            Error::Policies(warden_policies::Error::NotFound(_)) => "not_found",
            Error::Policies(warden_policies::Error::Invalid(_)) => "invalid_request",
            Error::Policies(_) => "internal",
            Error::Invalid(_) => "invalid_request",
            Error::InvalidArguments(_) => "invalid_arguments",
            Error::NotThreadOwner => "not_thread_owner",
            Error::NoModel => "no_model",
            Error::Provider(_) => "model_error",
            Error::Sqlx(_) | Error::Migrate(_) | Error::Corrupt(_) | Error::Io(_) => "internal",
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
