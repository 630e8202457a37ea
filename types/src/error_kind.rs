//! The kinds of failure every crate's error sorts itself into, and the one table from kind to HTTP status.

/// The kinds of failure a caller can tell apart. Each crate's error says its kind (`kind()`); the
/// HTTP status comes from the kind alone, in [`ErrorKind::status`], for the JSON API and the server
/// functions alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The thing named does not exist.
    NotFound,
    /// The request clashes with the current state (already decided, a run in progress).
    Conflict,
    /// The request itself is wrong; the message says how.
    Invalid,
    /// The person asking may not do this (their role, or who they are).
    Forbidden,
    /// Warden is not set up to do this yet (no model configured).
    Unavailable,
    /// Something Warden called failed: the model provider, an MCP server.
    Upstream,
    /// A failure inside Warden; its details belong in the log, never in an answer.
    Internal,
}

impl ErrorKind {
    /// The one table from error kinds to HTTP statuses.
    pub fn status(self) -> http::StatusCode {
        use http::StatusCode as S;
        match self {
            ErrorKind::NotFound => S::NOT_FOUND,
            ErrorKind::Conflict => S::CONFLICT,
            ErrorKind::Invalid => S::UNPROCESSABLE_ENTITY,
            ErrorKind::Forbidden => S::FORBIDDEN,
            ErrorKind::Unavailable => S::SERVICE_UNAVAILABLE,
            ErrorKind::Upstream => S::BAD_GATEWAY,
            ErrorKind::Internal => S::INTERNAL_SERVER_ERROR,
        }
    }
}
