//! The store's and the settings' errors (sending has its own, `SendError`).

use warden_types::ErrorKind;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("database error: {0}")]
    Sqlx(#[from] sqlx::Error),
    #[error("migration error: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("no channel {0}")]
    NotFound(String),
    /// A channel's or the SMTP server's settings are not usable; the message says which and why.
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("the operating system gave no random bytes: {0}")]
    Random(getrandom::Error),
    #[error("a stored channel could not be read: {0}")]
    Stored(String),
    #[error("the VAPID key could not be made or read: {0}")]
    Vapid(String),
}

impl Error {
    /// What kind of failure this is for a caller (and so its HTTP status).
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::NotFound(_) => ErrorKind::NotFound,
            Error::Invalid(_) => ErrorKind::Invalid,
            Error::Forbidden(_) => ErrorKind::Forbidden,
            Error::Sqlx(_) | Error::Migrate(_) | Error::Random(_) | Error::Stored(_) | Error::Vapid(_) => {
                ErrorKind::Internal
            }
        }
    }

    /// The public code of the JSON API's error body.
    pub fn code(&self) -> &'static str {
        match self.kind() {
            ErrorKind::NotFound => "not_found",
            ErrorKind::Invalid => "invalid_request",
            ErrorKind::Forbidden => "role_not_allowed",
            _ => "internal",
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
