//! The one error type of warden-mcp's public API, with a variant per thing that can go wrong
//! when managing MCP servers (tool-call failures are the engine's `ToolError` instead).

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
    ReadFile {
        path: String,
        source: std::io::Error,
    },
    /// A masked value (`••••…`) that is not the masked form of a value stored in its place.
    #[error("`{0}` is masked (••••) but matches no stored value; enter the full value")]
    RedactedWithoutStoredValue(String),
    /// A masked value sent with a changed command, arguments, environment or URL: the stored
    /// secret is not handed to a different program or host.
    #[error("re-enter the secret ({secret}): the {changed} changed, and a stored secret is only reused for the same server")]
    SecretNeedsReentry { secret: String, changed: String },
    #[error("{0}")]
    Connect(String),
    #[error("no answer from the server within {0} s")]
    ConnectTimeout(u64),
    #[error("the stored configuration of `{name}` cannot be read: {reason}")]
    CorruptRecord { name: String, reason: String },
    #[error(transparent)]
    Sqlx(#[from] sqlx::Error),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
