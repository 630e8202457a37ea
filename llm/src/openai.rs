//! The OpenAI-compatible provider: Chat Completions over HTTP with SSE streaming, for OpenAI itself and
//! the many servers that copy its API (vLLM, llama.cpp, Ollama, LM Studio...). Every wait is bounded:
//! connect, silence between chunks, and whole non-streamed requests; a cancelled token ends a turn.

use async_trait::async_trait;
use eventsource_stream::Event;
use tokio_util::sync::CancellationToken;

use super::http::{Endpoint, KeyHeader};
use super::openai_wire::{self, ChatRequest};
use super::sse_turn::{self, Decoded, TurnDecoder};
use super::{FinishReason, Provider, ProviderError, StreamEvent, TurnRequest, TurnStream};
use warden_types::message::Message;

pub use super::api_config::DEFAULT_MAX_EVENT_BYTES;

/// An OpenAI-compatible server's address goes up to and including its version segment, e.g.
/// `https://api.openai.com/v1`.
pub type OpenAiConfig = super::api_config::ApiConfig;

#[derive(Debug, Clone)]
pub struct OpenAiCompatible {
    config: OpenAiConfig,
    endpoint: Endpoint,
}

impl OpenAiCompatible {
    pub fn new(config: OpenAiConfig) -> Result<Self, ProviderError> {
        if config.base_url.trim().is_empty() || config.model.trim().is_empty() {
            return Err(ProviderError::NotConfigured);
        }
        let url = format!("{}/chat/completions", config.base_url.trim().trim_end_matches('/'));
        let key = config.api_key.clone();
        let endpoint = Endpoint::new(&url, config.connect_timeout, key, KeyHeader::Bearer, openai_wire::error_message)?;
        Ok(Self { config, endpoint })
    }

    pub fn config(&self) -> &OpenAiConfig {
        &self.config
    }

    fn post(&self, body: &ChatRequest<'_>) -> reqwest::RequestBuilder {
        self.endpoint.post(self.endpoint.url.clone()).json(body)
    }
}

#[async_trait]
impl Provider for OpenAiCompatible {
    fn name(&self) -> &str {
        "openai-compatible"
    }

    fn model(&self) -> &str {
        &self.config.model
    }

    async fn stream_turn(&self, req: TurnRequest, cancel: CancellationToken) -> Result<TurnStream, ProviderError> {
        let body = ChatRequest {
            model: &self.config.model,
            messages: openai_wire::wire_messages(&req.messages),
            stream: true,
            tools: openai_wire::wire_tools(&req.tools),
        };
        let idle = self.config.idle_timeout;
        let response = self.endpoint.start_stream(self.post(&body), idle, &cancel).await?;
        Ok(sse_turn::stream(
            response,
            ChunkDecoder::default(),
            &self.endpoint,
            idle,
            self.config.max_event_bytes,
            cancel,
        ))
    }

    async fn complete(&self, messages: Vec<Message>) -> Result<String, ProviderError> {
        let body = ChatRequest {
            model: &self.config.model,
            messages: openai_wire::wire_messages(&messages),
            stream: false,
            tools: Vec::new(),
        };
        let text = self.endpoint.request_text(self.post(&body), self.config.request_timeout).await?;
        openai_wire::completion_text(&text).map_err(|e| self.endpoint.redact_error(e))
    }

    /// `GET {base_url}/models`.
    async fn list_models(&self) -> Result<Vec<String>, ProviderError> {
        let mut url = self.endpoint.url.clone();
        url.set_path(&url.path().replacen("/chat/completions", "/models", 1));
        let request = self.endpoint.get(url);
        let text = self.endpoint.request_text(request, self.config.request_timeout).await?;
        openai_wire::model_ids(&text)
    }
}

/// Reads Chat Completions chunks; `[DONE]` ends the stream.
#[derive(Default)]
struct ChunkDecoder {
    saw_tool_calls: bool,
}

impl TurnDecoder for ChunkDecoder {
    fn read(&mut self, event: &Event) -> Result<Decoded, ProviderError> {
        let data = event.data.trim();
        if data == "[DONE]" {
            return Ok(Decoded { end: true, ..Decoded::default() });
        }
        if data.is_empty() {
            return Ok(Decoded::default());
        }
        let chunk = openai_wire::parse_chunk(data)?;
        self.saw_tool_calls |= chunk.events.iter().any(|e| matches!(e, StreamEvent::ToolCallDelta { .. }));
        Ok(Decoded { events: chunk.events, finish: chunk.finish, end: false })
    }

    /// Some servers end with `[DONE]` alone; what was sent decides the reason.
    fn finish_on_end(&self) -> Option<FinishReason> {
        Some(if self.saw_tool_calls { FinishReason::ToolCalls } else { FinishReason::Stop })
    }
}
