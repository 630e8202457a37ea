//! What every remote provider is configured with: where the API is, its key, the model, and the bounds on
//! every wait and on one streamed event. One type for the three APIs (`OpenAiConfig`, `AnthropicConfig`
//! and `GeminiConfig` name it), with a `Debug` that never shows the key.

use std::fmt;
use std::time::Duration;

/// 4 MiB: far above any real chunk (a few hundred bytes), far below trouble.
pub const DEFAULT_MAX_EVENT_BYTES: usize = 4 * 1024 * 1024;

#[derive(Clone)]
pub struct ApiConfig {
    /// The API's address, as each provider documents it (OpenAI-compatible: up to and including the
    /// version segment; Anthropic and Gemini: scheme and host).
    pub base_url: String,
    pub api_key: Option<String>,
    pub model: String,
    pub connect_timeout: Duration,
    /// The longest silence allowed while waiting for the answer to start or between events.
    pub idle_timeout: Duration,
    /// The whole of a non-streamed request.
    pub request_timeout: Duration,
    /// Longest single server-sent event (a line without end is one); a longer one fails the turn.
    pub max_event_bytes: usize,
}

impl ApiConfig {
    /// A config with the usual limits (connect 10 s, idle 120 s, request 60 s, events up to 4 MiB).
    pub fn new(base_url: impl Into<String>, model: impl Into<String>, api_key: Option<String>) -> Self {
        Self {
            base_url: base_url.into(),
            api_key,
            model: model.into(),
            connect_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(120),
            request_timeout: Duration::from_secs(60),
            max_event_bytes: DEFAULT_MAX_EVENT_BYTES,
        }
    }
}

// The key must never end up in logs.
impl fmt::Debug for ApiConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApiConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("model", &self.model)
            .field("connect_timeout", &self.connect_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("request_timeout", &self.request_timeout)
            .field("max_event_bytes", &self.max_event_bytes)
            .finish()
    }
}
