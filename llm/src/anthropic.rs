//! The Anthropic provider: the Messages API (`POST /v1/messages`) with SSE streaming. The key goes in
//! `x-api-key`, the API version in `anthropic-version`. Every wait is bounded: connect, silence between
//! events, and whole non-streamed requests; a cancelled token ends a turn.

use async_trait::async_trait;
use eventsource_stream::Event;
use tokio_util::sync::CancellationToken;

use super::anthropic_wire::{self, EventDecoder, MessagesRequest};
use super::http::{Endpoint, KeyHeader};
use super::sse_turn::{self, Decoded, TurnDecoder};
use super::{Provider, ProviderError, TurnRequest, TurnStream};
use warden_types::message::Message;

/// Where the API is.
pub const DEFAULT_BASE_URL: &str = warden_types::provider::ProviderKind::Anthropic.default_base_url();
/// The API version this provider speaks (sent as `anthropic-version`).
pub const API_VERSION: &str = "2023-06-01";
/// The answer's length limit when none is configured (the API requires one).
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

/// Anthropic's address is without the version segment, e.g. `https://api.anthropic.com`; a trailing `/v1`
/// is tolerated. Requests go to `{base_url}/v1/messages`.
pub type AnthropicConfig = super::api_config::ApiConfig;

#[derive(Debug, Clone)]
pub struct Anthropic {
    config: AnthropicConfig,
    endpoint: Endpoint,
}

impl Anthropic {
    pub fn new(config: AnthropicConfig) -> Result<Self, ProviderError> {
        if config.base_url.trim().is_empty() || config.model.trim().is_empty() {
            return Err(ProviderError::NotConfigured);
        }
        let url = messages_url(&config.base_url);
        let key = config.api_key.clone();
        let endpoint = Endpoint::new(
            &url,
            config.connect_timeout,
            key,
            KeyHeader::Named("x-api-key"),
            anthropic_wire::error_message,
        )?;
        Ok(Self { config, endpoint })
    }

    pub fn config(&self) -> &AnthropicConfig {
        &self.config
    }

    fn body<'a>(
        &'a self,
        messages: &[Message],
        tools: &'a [warden_types::tool::ToolSpec],
        stream: bool,
    ) -> MessagesRequest<'a> {
        // The API refuses `tool_use`/`tool_result` blocks in a request that defines no tools (a thread with
        // its tools switched off, a title): earlier calls and results then go as text.
        let has_tool_blocks =
            messages.iter().flat_map(|m| &m.content).any(|b| !matches!(b, warden_types::message::Block::Text { .. }));
        let as_text;
        let messages = if tools.is_empty() && has_tool_blocks {
            as_text = super::text_tool_calls::history_as_text(messages);
            &as_text[..]
        } else {
            messages
        };
        MessagesRequest {
            model: &self.config.model,
            max_tokens: DEFAULT_MAX_TOKENS,
            system: anthropic_wire::system_text(messages),
            messages: anthropic_wire::wire_messages(messages),
            tools: anthropic_wire::wire_tools(tools),
            stream,
        }
    }

    fn post(&self, body: &MessagesRequest<'_>) -> reqwest::RequestBuilder {
        self.endpoint.post(self.endpoint.url.clone()).header("anthropic-version", API_VERSION).json(body)
    }
}

/// `{base}/v1/messages`, with the base's trailing `/` or `/v1` not doubled.
fn messages_url(base_url: &str) -> String {
    let base = base_url.trim().trim_end_matches('/');
    let base = base.strip_suffix("/v1").unwrap_or(base);
    format!("{base}/v1/messages")
}

#[async_trait]
impl Provider for Anthropic {
    fn name(&self) -> &str {
        "anthropic"
    }

    fn model(&self) -> &str {
        &self.config.model
    }

    async fn stream_turn(&self, req: TurnRequest, cancel: CancellationToken) -> Result<TurnStream, ProviderError> {
        let body = self.body(&req.messages, &req.tools, true);
        let idle = self.config.idle_timeout;
        let response = self.endpoint.start_stream(self.post(&body), idle, &cancel).await?;
        Ok(sse_turn::stream(response, Decoder::default(), &self.endpoint, idle, self.config.max_event_bytes, cancel))
    }

    async fn complete(&self, messages: Vec<Message>) -> Result<String, ProviderError> {
        let body = self.body(&messages, &[], false);
        let text = self.endpoint.request_text(self.post(&body), self.config.request_timeout).await?;
        anthropic_wire::completion_text(&text).map_err(|e| self.endpoint.redact_error(e))
    }

    /// `GET {base}/v1/models` (first page, up to 1,000), which has the OpenAI list's shape.
    async fn list_models(&self) -> Result<Vec<String>, ProviderError> {
        let mut url = self.endpoint.url.clone();
        url.set_path(&url.path().replacen("/v1/messages", "/v1/models", 1));
        url.set_query(Some("limit=1000"));
        let request = self.endpoint.get(url).header("anthropic-version", API_VERSION);
        let text = self.endpoint.request_text(request, self.config.request_timeout).await?;
        super::openai_wire::model_ids(&text)
    }
}

/// Reads Messages stream events: `message_delta` with a stop reason finishes the turn, `message_stop`
/// ends the stream (without a stop reason before it, that is an error).
#[derive(Default)]
struct Decoder(EventDecoder);

impl TurnDecoder for Decoder {
    fn read(&mut self, event: &Event) -> Result<Decoded, ProviderError> {
        self.0.read(&event.event, &event.data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_messages_url_is_under_v1_whatever_the_base_ends_with() {
        assert_eq!(messages_url("https://api.anthropic.com"), "https://api.anthropic.com/v1/messages");
        assert_eq!(messages_url("https://api.anthropic.com/"), "https://api.anthropic.com/v1/messages");
        assert_eq!(messages_url("http://127.0.0.1:9/v1/"), "http://127.0.0.1:9/v1/messages");
        assert_eq!(messages_url("http://proxy/anthropic"), "http://proxy/anthropic/v1/messages");
    }

    #[test]
    fn debug_output_hides_the_key() {
        let config = AnthropicConfig::new(DEFAULT_BASE_URL, "claude-x", Some("sk-ant-secret".into()));
        let provider = Anthropic::new(config.clone()).unwrap();
        for shown in [format!("{config:?}"), format!("{provider:?}")] {
            assert!(!shown.contains("sk-ant-secret"), "{shown}");
        }
    }

    #[test]
    fn a_key_that_cannot_be_a_header_is_refused_without_showing_it() {
        let err =
            Anthropic::new(AnthropicConfig::new(DEFAULT_BASE_URL, "claude-x", Some("bad\nkey".into()))).unwrap_err();
        assert!(matches!(&err, ProviderError::Connect(m) if m.contains("header")), "{err:?}");
        assert!(!err.to_string().contains("bad"), "{err}");
    }
}
