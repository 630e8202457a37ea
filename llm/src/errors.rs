//! What can go wrong talking to a model server. The Display texts are shown to the user as they are,
//! so they say what happened in plain words and never carry secrets.

use std::time::Duration;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProviderError {
    #[error("No model is configured yet: set the model server address and model name in Settings.")]
    NotConfigured,
    /// `message` comes from the server's JSON error body when it has one.
    #[error("The model server answered {}: {message}", status_line(*.status))]
    Http { status: u16, message: String },
    #[error("The model server did not answer in time ({0}).")]
    Timeout(String),
    /// The server took the request and then said nothing for the idle timeout: before its answer
    /// began, or in the middle of it. Not tried again: a model that went silent once mostly does again,
    /// and each try cost the whole wait (four tries of 120 s made a person wait 8 minutes to read this).
    #[error(
        "The model sent nothing for {0}, so Warden stopped waiting. The model server may be overloaded or \
         stuck: try again, or choose another model."
    )]
    Silent(String),
    #[error("Could not reach the model server: {0}")]
    Connect(String),
    #[error("The model's reply broke off or was malformed: {0}")]
    Stream(String),
    #[error("The model turn was stopped.")]
    Cancelled,
    /// The built-in model failed (its file, its thread, llama.cpp).
    #[error("The built-in model failed: {0}")]
    Local(String),
    /// The conversation no longer fits the built-in model's context.
    #[error(
        "This thread is too long for the built-in model: {used} tokens of its {limit}, with room for an \
             answer. Start a new thread, or configure a provider with a larger model."
    )]
    ContextFull { used: usize, limit: u32 },
}

impl ProviderError {
    /// Whether trying the same request again may succeed (network trouble, overload, server faults).
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::Timeout(_) | Self::Connect(_) | Self::Stream(_) => true,
            Self::Http { status, .. } => matches!(status, 408 | 409 | 429) || *status >= 500,
            Self::Silent(_) | Self::NotConfigured | Self::Cancelled | Self::Local(_) | Self::ContextFull { .. } => {
                false
            }
        }
    }

    /// Nothing came from the model server for `idle`.
    pub(crate) fn silent(idle: Duration) -> Self {
        Self::Silent(human_duration(idle))
    }

    pub(crate) fn timeout(what: &str, after: Duration) -> Self {
        Self::Timeout(format!("{what} after {}", human_duration(after)))
    }
}

fn status_line(status: u16) -> String {
    let reason = reqwest::StatusCode::from_u16(status).ok().and_then(|s| s.canonical_reason());
    match reason {
        Some(reason) => format!("{status} {reason}"),
        None => status.to_string(),
    }
}

fn human_duration(d: Duration) -> String {
    if d.as_millis() < 1000 {
        format!("{} ms", d.as_millis())
    } else {
        format!("{} s", d.as_secs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_errors_read_as_status_and_server_message() {
        let e = ProviderError::Http { status: 401, message: "Incorrect API key".into() };
        assert_eq!(e.to_string(), "The model server answered 401 Unauthorized: Incorrect API key");
    }

    #[test]
    fn overload_and_server_faults_are_retryable_but_auth_failures_are_not() {
        assert!(ProviderError::Http { status: 503, message: String::new() }.is_retryable());
        assert!(ProviderError::Http { status: 429, message: String::new() }.is_retryable());
        assert!(!ProviderError::Http { status: 401, message: String::new() }.is_retryable());
        assert!(!ProviderError::Cancelled.is_retryable());
        assert!(!ProviderError::silent(Duration::from_secs(120)).is_retryable());
        assert!(ProviderError::silent(Duration::from_secs(120))
            .to_string()
            .starts_with("The model sent nothing for 120 s"));
    }
}
