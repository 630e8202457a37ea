//! What stops a benchmark: the server or the scripted model could not be started, a request failed,
//! or an answer was not what the bench needs to go on. `main` prints it and exits non-zero.

use serde_json::Value;

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("I/O: {0}")]
    Io(#[from] std::io::Error),
    #[error("HTTP: {0}")]
    Http(#[from] reqwest::Error),
    #[error("JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("a header value: {0}")]
    Header(#[from] reqwest::header::InvalidHeaderValue),
    #[error("cannot start {bin}: {error} (build it first)")]
    Start { bin: String, error: std::io::Error },
    /// An answer without what the bench reads from it.
    #[error("{what}: not in {answer}")]
    Missing { what: &'static str, answer: String },
    /// An answer the bench cannot go on after (a failed status, a failed run, a stream that ended).
    #[error("{0}")]
    Unexpected(String),
}

pub type Result<T, E = BenchError> = std::result::Result<T, E>;

/// The string at `pointer` (`/approval/id`) in `answer`.
pub fn text_at(answer: &Value, pointer: &'static str) -> Result<String> {
    answer
        .pointer(pointer)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| BenchError::Missing { what: pointer, answer: answer.to_string() })
}

/// Goes on only if `ok`; otherwise stops with `why`.
pub fn ensure(ok: bool, why: impl FnOnce() -> String) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(BenchError::Unexpected(why()))
    }
}
