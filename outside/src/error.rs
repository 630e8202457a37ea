//! The one error type of warden-outside's API, with a variant per thing a caller can act on, and
//! its translation into an error frame for a client.

use warden_types::ErrorKind;

use crate::protocol::{ErrorCode, FrameError};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{what} `{id}` not found")]
    NotFound { what: &'static str, id: String },
    #[error("outside request `{0}` is already decided")]
    AlreadyDecided(String),
    #[error("invalid input: {0}")]
    Invalid(String),
    /// The person asking may not do this (their role, or it is not theirs).
    #[error("{0}")]
    Forbidden(String),
    /// The person may not decide this request (their role, not routed to them, or they asked for it).
    #[error("{0}")]
    Refused(#[from] warden_policies::Refusal),
    #[error("you have already approved this as it is shown; it waits for the other approvers")]
    AlreadyVoted,
    /// An approver edited the code after the person read it: what they approved is no longer what it shows.
    #[error("the code was edited by another approver; look at the request again")]
    ShownChanged,
    /// No client has this token, or its client was revoked. Says nothing about which.
    #[error("the client token is not valid (unknown or revoked)")]
    Unauthorized,
    /// The client sent this id before with a different request: answering it with the first
    /// request's decision would approve something nobody saw.
    #[error("request id `{0}` was already used for a different request; use a new id")]
    IdReused(String),
    #[error("`follows` names `{0}`, which is no security evaluation of this client")]
    UnknownRequest(String),
    #[error("a frame was refused: {0}")]
    Frame(#[from] FrameError),
    /// The client has this many requests waiting for a person already (`quota::Limits::max_pending`).
    #[error(
        "this client has {0} requests waiting for a person already, as many as it may; wait for decisions \
         before sending more"
    )]
    TooManyPending(u64),
    /// The client sent its minute's requests (`quota::Limits::per_minute`).
    #[error("this client sent more than {per_minute} requests a minute; try again in {} s", .retry_after.as_secs())]
    RateLimited { per_minute: u32, retry_after: std::time::Duration },
    /// The client holds as many sockets, long-polls or MCP sessions open as it may.
    #[error("this client has {max} {what} open already, as many as it may; close one first")]
    TooManyOpen { what: &'static str, max: usize },
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    #[error("{0}")]
    Internal(String),
    #[error(transparent)]
    Sqlx(#[from] sqlx::Error),
    #[error("migration error: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn not_found(what: &'static str, id: impl Into<String>) -> Self {
        Error::NotFound { what, id: id.into() }
    }

    /// Whether this is a per-client bound (HTTP 429), and how long until trying again helps, if
    /// waiting is what helps.
    pub fn limited(&self) -> Option<Option<std::time::Duration>> {
        match self {
            Error::RateLimited { retry_after, .. } => Some(Some(*retry_after)),
            Error::TooManyPending(_) | Error::TooManyOpen { .. } => Some(None),
            Error::Frame(e) if matches!(e.code, ErrorCode::RateLimited | ErrorCode::TooManyPending) => Some(None),
            _ => None,
        }
    }

    /// What kind of failure this is for a caller. `Unauthorized` has no kind of its own here: the
    /// server answers it with 401 before asking.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::NotFound { .. } => ErrorKind::NotFound,
            Error::Forbidden(_) | Error::Refused(_) => ErrorKind::Forbidden,
            Error::AlreadyDecided(_) | Error::IdReused(_) | Error::AlreadyVoted | Error::ShownChanged => {
                ErrorKind::Conflict
            }
            Error::Invalid(_) | Error::UnknownRequest(_) | Error::Unauthorized => ErrorKind::Invalid,
            // Mapped to 429 by the server before the kind is asked.
            Error::TooManyPending(_) | Error::RateLimited { .. } | Error::TooManyOpen { .. } => ErrorKind::Conflict,
            Error::Frame(e) if e.code == ErrorCode::Internal => ErrorKind::Internal,
            Error::Frame(_) => ErrorKind::Invalid,
            Error::Corrupt(_) | Error::Internal(_) | Error::Sqlx(_) | Error::Migrate(_) => ErrorKind::Internal,
        }
    }

    /// The stable machine-readable code the API sends with this error (docs/API.md).
    pub fn code(&self) -> &'static str {
        match self {
            Error::NotFound { .. } => "not_found",
            Error::AlreadyDecided(_) => "already_decided",
            Error::Invalid(_) => "invalid_request",
            Error::Forbidden(_) => "forbidden",
            Error::Refused(warden_policies::Refusal::OwnRequest) => "own_request",
            Error::Refused(warden_policies::Refusal::NotAnApprover) => "not_routed_to_you",
            Error::Refused(warden_policies::Refusal::RoleDecidesNothing) => "role_not_allowed",
            Error::AlreadyVoted => "already_voted",
            Error::ShownChanged => "code_changed",
            Error::Unauthorized => "unauthorized",
            Error::IdReused(_) => "id_reused",
            Error::UnknownRequest(_) => "unknown_request",
            Error::TooManyPending(_) => "too_many_pending",
            Error::RateLimited { .. } => "rate_limited",
            Error::TooManyOpen { .. } => "too_many_connections",
            Error::Frame(e) => match e.code {
                ErrorCode::Malformed => "malformed",
                ErrorCode::TooLarge => "too_large",
                ErrorCode::Invalid => "invalid_request",
                ErrorCode::IdReused => "id_reused",
                ErrorCode::UnknownRequest => "unknown_request",
                ErrorCode::Unauthorized => "unauthorized",
                ErrorCode::TooManyPending => "too_many_pending",
                ErrorCode::RateLimited => "rate_limited",
                ErrorCode::Internal => "internal",
            },
            Error::Corrupt(_) | Error::Internal(_) | Error::Sqlx(_) | Error::Migrate(_) => "internal",
        }
    }

    /// The error frame a client gets for this error about its request `id`. An internal failure
    /// is logged under an error id and the frame names only that id.
    pub fn into_frame_error(self, id: Option<String>) -> FrameError {
        let (code, message) = match self {
            Error::Frame(e) => return e,
            Error::IdReused(_) => (ErrorCode::IdReused, self.to_string()),
            Error::UnknownRequest(_) => (ErrorCode::UnknownRequest, self.to_string()),
            Error::Unauthorized => (ErrorCode::Unauthorized, self.to_string()),
            Error::TooManyPending(_) => (ErrorCode::TooManyPending, self.to_string()),
            Error::RateLimited { .. } => (ErrorCode::RateLimited, self.to_string()),
            Error::TooManyOpen { .. } => (ErrorCode::Invalid, self.to_string()),
            Error::Invalid(_)
            | Error::Forbidden(_)
            | Error::Refused(_)
            | Error::AlreadyVoted
            | Error::ShownChanged
            | Error::NotFound { .. }
            | Error::AlreadyDecided(_) => (ErrorCode::Invalid, self.to_string()),
            Error::Corrupt(_) | Error::Internal(_) | Error::Sqlx(_) | Error::Migrate(_) => {
                let error_id = warden_db::new_id();
                tracing::error!(error_id = %error_id, error = %self, "outside request failed");
                (ErrorCode::Internal, format!("internal error (id {error_id}); the details are in the server log"))
            }
        };
        FrameError::new(id, code, message)
    }
}
