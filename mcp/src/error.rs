//! The one error type of warden-mcp's public API, with a variant per thing that can go wrong
//! when managing MCP servers (tool-call failures are the engine's `ToolError` instead).

use warden_types::ErrorKind;

/// What can go wrong when configuring, storing or connecting MCP servers.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("no MCP server is named `{0}`")]
    NotFound(String),
    #[error("invalid MCP server configuration: {0}")]
    InvalidConfig(String),
    #[error("invalid mcpServers JSON: {0}")]
    InvalidJson(String),
    #[error("could not read {path}: {source}")]
    ReadFile { path: String, source: std::io::Error },
    /// A masked value (`••••…`) that is not the masked form of a value stored in its place.
    #[error("`{0}` is masked (••••) but matches no stored value; enter the full value")]
    RedactedWithoutStoredValue(String),
    /// A masked value sent with a changed command, arguments, environment or URL: the stored
    /// secret is not handed to a different program or host.
    #[error(
        "re-enter the secret ({secret}): the {changed} changed, and a stored secret is only reused for the same server"
    )]
    SecretNeedsReentry { secret: String, changed: String },
    #[error("{0}")]
    Connect(String),
    #[error("no answer from the server within {0} s")]
    ConnectTimeout(u64),
    #[error("the stored configuration of `{name}` cannot be read: {reason}")]
    CorruptRecord { name: String, reason: String },
    #[error(transparent)]
    Sqlx(#[from] sqlx::Error),
    #[error("migration error: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// What kind of failure this is for a caller (its HTTP status comes from the kind).
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::NotFound(_) => ErrorKind::NotFound,
            Error::InvalidConfig(_)
            | Error::InvalidJson(_)
            | Error::ReadFile { .. }
            | Error::RedactedWithoutStoredValue(_)
            | Error::SecretNeedsReentry { .. } => ErrorKind::Invalid,
            Error::Connect(_) | Error::ConnectTimeout(_) => ErrorKind::Upstream,
            Error::CorruptRecord { .. } | Error::Sqlx(_) | Error::Migrate(_) => ErrorKind::Internal,
        }
    }

    /// The stable machine-readable code the public API sends with this error (docs/API.md).
    pub fn code(&self) -> &'static str {
        match self.kind() {
            ErrorKind::NotFound => "not_found",
            ErrorKind::Invalid => "invalid_request",
            ErrorKind::Forbidden => "forbidden",
            ErrorKind::Upstream => "connect_failed",
            ErrorKind::Conflict => "conflict",
            ErrorKind::Unavailable => "unavailable",
            ErrorKind::Internal => "internal",
        }
    }
}
