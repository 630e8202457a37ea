//! Executors Warden dials: a WebSocket address (with an optional bearer token Warden sends), switched
//! on or off, and how the connection is doing. Each executor asks as an outside client of its own
//! (its requests, policy and audit are that client's); only the direction of the socket differs.
//! The token is a secret of the executor's: it goes out on the upgrade and nowhere else (not in
//! these records' JSON, not in Debug output).

use serde::{Deserialize, Serialize};
use warden_types::id::{ClientId, ExecutorId};

use crate::policy::ClientPolicy;

/// Longest executor address, in bytes.
pub const MAX_URL_BYTES: usize = 2048;
/// Longest bearer token, in bytes.
pub const MAX_BEARER_BYTES: usize = 4096;

/// A configured executor, as the API and the settings page show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Executor {
    pub id: ExecutorId,
    /// The outside client whose requests this executor's are.
    pub client_id: ClientId,
    pub name: String,
    /// `ws://` or `wss://`.
    pub url: String,
    /// Whether Warden sends `Authorization: Bearer <token>` when it dials (the token is not shown).
    pub has_bearer_token: bool,
    pub enabled: bool,
    pub created_at: String,
    pub state: DialState,
}

/// A new executor to dial.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewExecutor {
    pub name: String,
    pub url: String,
    #[serde(default)]
    pub bearer_token: Option<String>,
    #[serde(default = "enabled_by_default")]
    pub enabled: bool,
    /// The policy of the executor's client (auto-approve, timeouts).
    #[serde(default)]
    pub policy: ClientPolicy,
}

fn enabled_by_default() -> bool {
    true
}

impl std::fmt::Debug for NewExecutor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewExecutor")
            .field("name", &self.name)
            .field("url", &self.url)
            .field("bearer_token", &self.bearer_token.as_ref().map(|_| "<redacted>"))
            .field("enabled", &self.enabled)
            .field("policy", &self.policy)
            .finish()
    }
}

/// Where the connection to an executor is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, strum::Display)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum DialStatus {
    /// Switched off: not dialled.
    Disabled,
    /// Dialling now.
    Connecting,
    /// The socket is open; requests are taken and decisions sent on it.
    Connected,
    /// The last attempt failed or the socket was lost; the next attempt is at `retry_at`.
    Retrying,
    /// Not dialled again: its client was revoked.
    Stopped,
}

/// How the connection to an executor is doing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DialState {
    pub status: DialStatus,
    /// Attempts since the last time the socket was open.
    pub failed_attempts: u32,
    /// Why the last attempt failed or the socket was lost.
    pub last_error: Option<String>,
    /// When the socket opened (while `connected`).
    pub connected_at: Option<String>,
    /// When the next attempt is (while `retrying`).
    pub retry_at: Option<String>,
}

impl DialState {
    pub fn of(status: DialStatus) -> Self {
        Self { status, failed_attempts: 0, last_error: None, connected_at: None, retry_at: None }
    }
}

/// Checks an executor's address: `ws://` or `wss://` with a host, at most [`MAX_URL_BYTES`], and no
/// user-info (`user:secret@`): the address is shown back by the API, so a secret goes in `bearer_token`.
pub fn check_url(url: &str) -> Result<(), String> {
    let rest = url.strip_prefix("ws://").or_else(|| url.strip_prefix("wss://"));
    let authority = rest.map(|r| r.split(['/', '?', '#']).next().unwrap_or_default()).unwrap_or_default();
    if authority.contains('@') {
        return Err("an executor's `url` has no user name or password (`user:secret@`): \
                    put a secret in `bearer_token`, which is never shown back"
            .to_owned());
    }
    if url.len() > MAX_URL_BYTES || authority.is_empty() || url.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(format!(
            "an executor's `url` is a ws:// or wss:// address with a host, at most {MAX_URL_BYTES} bytes"
        ));
    }
    Ok(())
}

/// Checks a bearer token: visible ASCII, at most [`MAX_BEARER_BYTES`] (it goes in a header).
pub fn check_bearer(token: &str) -> Result<(), String> {
    if token.is_empty() || token.len() > MAX_BEARER_BYTES || !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(format!("`bearer_token` is 1 to {MAX_BEARER_BYTES} visible ASCII characters"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_executor_address_is_a_websocket_address_with_a_host() {
        for ok in ["ws://127.0.0.1:4002", "wss://runner.example/approvals", "ws://[::1]:9/x?y=1"] {
            assert!(check_url(ok).is_ok(), "{ok}");
        }
        for bad in ["http://127.0.0.1:4002", "ws://", "ws:///path", "127.0.0.1:4002", "ws://a b", "ws://x\n"] {
            assert!(check_url(bad).is_err(), "{bad}");
        }
        assert!(check_url(&format!("ws://h/{}", "x".repeat(MAX_URL_BYTES))).is_err());
    }

    #[test]
    fn an_executor_address_carries_no_user_info() {
        for bad in ["ws://user:s3cret@host", "wss://s3cret@runner.example/approvals", "ws://@h", "ws://a:b@[::1]:9/x"] {
            let err = check_url(bad).unwrap_err();
            assert!(err.contains("bearer_token"), "{bad}: {err}");
            assert!(!err.contains("s3cret"), "the refusal does not echo the secret");
        }
        // An `@` after the host (in the path or query) is not user-info.
        assert!(check_url("ws://h/approvals?by=a@b").is_ok());
    }

    #[test]
    fn a_bearer_token_is_visible_ascii_and_never_in_debug_output() {
        assert!(check_bearer("abc.DEF-123_~").is_ok());
        for bad in ["", "a b", "é", "a\r\nX-Evil: 1"] {
            assert!(check_bearer(bad).is_err(), "{bad:?}");
        }
        let new: NewExecutor =
            serde_json::from_str(r#"{"name": "runner", "url": "ws://h", "bearer_token": "s3cret"}"#).unwrap();
        assert!(new.enabled, "enabled unless said otherwise");
        assert!(!format!("{new:?}").contains("s3cret"));
    }
}
