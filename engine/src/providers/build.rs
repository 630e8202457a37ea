//! Makes a provider client from an entry's kind, address, key and model: the one place that knows
//! which type speaks which API, with the settings every remote provider shares.

use std::sync::Arc;
use std::time::Duration;

use warden_types::provider::ProviderKind;

use crate::config::Config;
use warden_llm::{
    with_retries, with_text_tool_calls, Anthropic, ApiConfig, Gemini, OpenAiCompatible, Provider, ProviderError,
    RetryPolicy,
};

/// Timeouts and bounds every remote provider gets.
#[derive(Debug, Clone, Copy)]
pub struct BuildSettings {
    pub connect_timeout: Duration,
    pub idle_timeout: Duration,
    pub request_timeout: Duration,
    pub max_event_bytes: usize,
    pub retry: RetryPolicy,
}

impl BuildSettings {
    pub fn from_config(config: &Config) -> Self {
        Self {
            connect_timeout: Duration::from_secs(10),
            idle_timeout: config.model_idle_timeout,
            request_timeout: Duration::from_secs(60),
            // Room for one event carrying a whole (escaped) turn; the turn cap itself is the driver's.
            max_event_bytes: config.max_turn_bytes.saturating_mul(2).saturating_add(64 * 1024),
            retry: RetryPolicy { max_retries: config.model_retries as usize, ..RetryPolicy::default() },
        }
    }
}

/// A client for `model` at `base_url`. The built-in model is not built here (it is loaded once).
pub fn build(
    kind: ProviderKind,
    base_url: &str,
    api_key: Option<String>,
    model: &str,
    text_tool_calls: bool,
    settings: BuildSettings,
) -> Result<Arc<dyn Provider>, ProviderError> {
    let config = ApiConfig {
        connect_timeout: settings.connect_timeout,
        idle_timeout: settings.idle_timeout,
        request_timeout: settings.request_timeout,
        max_event_bytes: settings.max_event_bytes,
        ..ApiConfig::new(base_url, model, api_key)
    };
    let provider: Arc<dyn Provider> = match kind {
        ProviderKind::OpenaiCompatible => Arc::new(OpenAiCompatible::new(config)?),
        ProviderKind::Anthropic => Arc::new(Anthropic::new(config)?),
        ProviderKind::Gemini => Arc::new(Gemini::new(config)?),
        ProviderKind::Local => return Err(ProviderError::NotConfigured),
    };
    // Overload, rate limits and dropped connections before a turn starts are tried again.
    let provider = with_retries(provider, settings.retry);
    Ok(if text_tool_calls { with_text_tool_calls(provider) } else { provider })
}
