//! The OpenAI-compatible provider: Chat Completions over HTTP with SSE streaming, for OpenAI itself and
//! the many servers that copy its API (vLLM, llama.cpp, Ollama, LM Studio...). Every wait is bounded:
//! connect, silence between chunks, and whole non-streamed requests; a cancelled token ends a turn.

use std::collections::VecDeque;
use std::fmt;
use std::pin::Pin;
use std::time::Duration;

use async_trait::async_trait;
use eventsource_stream::{Event, EventStreamError, Eventsource};
use futures::stream::{BoxStream, StreamExt};
use tokio::time::{Instant, Sleep};
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

use super::openai_wire::{self, ChatRequest};
use super::sse_limit::{EventSizeGuard, EventTooLong};
use super::{FinishReason, Provider, ProviderError, StreamEvent, TurnRequest, TurnStream};
use crate::message::Message;

#[derive(Clone)]
pub struct OpenAiConfig {
    /// Up to and including the version segment, e.g. `https://api.openai.com/v1`.
    pub base_url: String,
    pub api_key: Option<String>,
    pub model: String,
    pub connect_timeout: Duration,
    /// The longest silence allowed while waiting for the answer to start or between chunks.
    pub idle_timeout: Duration,
    /// The whole of a non-streamed request.
    pub request_timeout: Duration,
    /// Longest single server-sent event (a line without end is one); a longer one fails the turn.
    pub max_event_bytes: usize,
}

/// 4 MiB: far above any real chunk (a few hundred bytes), far below trouble.
pub const DEFAULT_MAX_EVENT_BYTES: usize = 4 * 1024 * 1024;

impl OpenAiConfig {
    /// A config with the usual timeouts (connect 10 s, idle 120 s, request 60 s).
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
impl fmt::Debug for OpenAiConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiConfig")
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

#[derive(Debug, Clone)]
pub struct OpenAiCompatible {
    config: OpenAiConfig,
    endpoint: reqwest::Url,
    client: reqwest::Client,
}

impl OpenAiCompatible {
    pub fn new(config: OpenAiConfig) -> Result<Self, ProviderError> {
        if config.base_url.trim().is_empty() || config.model.trim().is_empty() {
            return Err(ProviderError::NotConfigured);
        }
        let invalid = || ProviderError::Connect("the model server address is not a valid http(s) URL".to_string());
        let endpoint =
            reqwest::Url::parse(&format!("{}/chat/completions", config.base_url.trim().trim_end_matches('/')))
                .map_err(|_| invalid())?;
        if !matches!(endpoint.scheme(), "http" | "https") {
            return Err(invalid());
        }
        crate::tls::install_crypto_provider();
        let client = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .build()
            .map_err(|e| ProviderError::Connect(format!("cannot set up the HTTP client ({})", innermost(&e))))?;
        Ok(Self { config, endpoint, client })
    }

    pub fn config(&self) -> &OpenAiConfig {
        &self.config
    }

    fn api_key(&self) -> Option<&str> {
        self.config.api_key.as_deref().map(str::trim).filter(|k| !k.is_empty())
    }

    fn post(&self, body: &ChatRequest<'_>) -> reqwest::RequestBuilder {
        let request = self.client.post(self.endpoint.clone()).json(body);
        match self.api_key() {
            Some(key) => request.bearer_auth(key),
            None => request,
        }
    }

    /// Sends the request and turns a non-success status into `Http` with the body's message.
    async fn send(&self, request: reqwest::RequestBuilder) -> Result<reqwest::Response, ProviderError> {
        let response = request.send().await.map_err(|e| self.transport_error(&e))?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let body = read_capped(response, MAX_ERROR_BODY).await.unwrap_or_default();
        let message = openai_wire::error_message(&body)
            .unwrap_or_else(|| status.canonical_reason().unwrap_or("no details given").to_string());
        Err(ProviderError::Http { status: status.as_u16(), message: self.redact(message) })
    }

    fn transport_error(&self, e: &reqwest::Error) -> ProviderError {
        let host = self.endpoint.host_str().unwrap_or("?");
        let port = self.endpoint.port_or_known_default().map(|p| format!(":{p}")).unwrap_or_default();
        if e.is_timeout() {
            ProviderError::Timeout(format!("connecting to {host}{port} took too long"))
        } else {
            ProviderError::Connect(format!("{host}{port}: {}", innermost(e)))
        }
    }

    /// Servers sometimes echo what they were sent; a key must not reach the screen.
    fn redact(&self, text: String) -> String {
        match self.api_key() {
            Some(key) if text.contains(key) => text.replace(key, "[redacted]"),
            _ => text,
        }
    }
}

/// An error body is read this far (its message is near the start).
const MAX_ERROR_BODY: usize = 64 * 1024;
/// A non-streamed completion (a thread title) is read this far.
const MAX_COMPLETION_BODY: usize = 1024 * 1024;

/// Reads a response body as text, failing once it passes `max` bytes instead of holding it all.
async fn read_capped(mut response: reqwest::Response, max: usize) -> Result<String, ProviderError> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| ProviderError::Stream(innermost(&e)))? {
        if body.len() + chunk.len() > max {
            return Err(ProviderError::Stream(format!("the answer was longer than {max} bytes")));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(String::from_utf8_lossy(&body).into_owned())
}

/// The most specific cause in an error chain, e.g. "Connection refused (os error 111)".
fn innermost(e: &(dyn std::error::Error + 'static)) -> String {
    let mut current = e;
    while let Some(source) = current.source() {
        current = source;
    }
    current.to_string()
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
        let request = self.post(&body).header(reqwest::header::ACCEPT, "text/event-stream");
        let idle = self.config.idle_timeout;
        let response = tokio::select! {
            _ = cancel.cancelled() => return Err(ProviderError::Cancelled),
            answered = tokio::time::timeout(idle, self.send(request)) => {
                answered.map_err(|_| ProviderError::timeout("no answer", idle))??
            }
        };
        let mut guard = EventSizeGuard::new(self.config.max_event_bytes);
        let body = response.bytes_stream().map(move |chunk| match chunk {
            Ok(bytes) => guard.check(&bytes).map(|()| bytes).map_err(Transport::TooLong),
            Err(e) => Err(Transport::Http(e)),
        });
        let events = body.eventsource().boxed();
        let state = TurnState {
            events: Some(events),
            pending: VecDeque::new(),
            finished: false,
            saw_tool_calls: false,
            idle,
            last_heard: Instant::now(),
            idle_timer: Box::pin(tokio::time::sleep(idle)),
            cancelled: Box::pin(cancel.clone().cancelled_owned()),
            cancel,
        };
        Ok(futures::stream::unfold(state, TurnState::next).boxed())
    }

    async fn complete(&self, messages: Vec<Message>) -> Result<String, ProviderError> {
        let body = ChatRequest {
            model: &self.config.model,
            messages: openai_wire::wire_messages(&messages),
            stream: false,
            tools: Vec::new(),
        };
        let limit = self.config.request_timeout;
        let answer = async {
            let response = self.send(self.post(&body)).await?;
            let text = read_capped(response, MAX_COMPLETION_BODY).await?;
            openai_wire::completion_text(&text)
        };
        tokio::time::timeout(limit, answer).await.map_err(|_| ProviderError::timeout("no complete answer", limit))?
    }
}

/// What can break the body of a streamed turn below the SSE parser.
#[derive(Debug)]
enum Transport {
    Http(reqwest::Error),
    TooLong(EventTooLong),
}

type SseEvents = BoxStream<'static, Result<Event, EventStreamError<Transport>>>;

/// Reading one streamed turn: SSE events in, `StreamEvent`s out, until finished, failed or cancelled.
struct TurnState {
    /// `None` once the response is done with (and dropped, which closes the request).
    events: Option<SseEvents>,
    pending: VecDeque<StreamEvent>,
    /// Whether `Finished` has been queued; what comes after it (usage, `[DONE]`) is only drained.
    finished: bool,
    saw_tool_calls: bool,
    idle: Duration,
    /// When the last event came. The idle timer is not reset per event (a timer registration per
    /// token costs more than the token); when it fires early it is moved to `last_heard + idle`.
    last_heard: Instant,
    idle_timer: Pin<Box<Sleep>>,
    /// Made once and polled for every event, so waiting on it costs no new registration each time.
    cancelled: Pin<Box<WaitForCancellationFutureOwned>>,
    cancel: CancellationToken,
}

/// What waiting for the next SSE event came to.
enum Waited {
    Event(Option<Result<Event, EventStreamError<Transport>>>),
    Silent,
    Cancelled,
}

impl TurnState {
    async fn next(mut self) -> Option<(Result<StreamEvent, ProviderError>, Self)> {
        loop {
            if self.cancel.is_cancelled() && self.events.is_some() && !self.finished {
                return self.fail(ProviderError::Cancelled);
            }
            if let Some(event) = self.pending.pop_front() {
                return Some((Ok(event), self));
            }
            let events = self.events.as_mut()?;
            let waited = tokio::select! {
                biased;
                _ = &mut self.cancelled => Waited::Cancelled,
                next = events.next() => Waited::Event(next),
                _ = &mut self.idle_timer => Waited::Silent,
            };
            let outcome = match waited {
                Waited::Cancelled => {
                    if self.finished {
                        self.events = None;
                        continue;
                    }
                    return self.fail(ProviderError::Cancelled);
                }
                Waited::Silent => {
                    let due = self.last_heard + self.idle;
                    if Instant::now() < due {
                        self.idle_timer.as_mut().reset(due);
                        continue;
                    }
                    Err(ProviderError::timeout("nothing received", self.idle))
                }
                Waited::Event(next) => {
                    self.last_heard = Instant::now();
                    match next {
                        None => {
                            Err(ProviderError::Stream("the connection closed before the reply was complete".into()))
                        }
                        Some(Err(e)) => Err(ProviderError::Stream(describe_sse_error(&e))),
                        Some(Ok(event)) => self.read(&event.data),
                    }
                }
            };
            if let Err(error) = outcome {
                if self.finished {
                    // The turn is complete; trouble while draining the tail does not matter.
                    self.events = None;
                    continue;
                }
                return self.fail(error);
            }
        }
    }

    fn read(&mut self, data: &str) -> Result<(), ProviderError> {
        let data = data.trim();
        if data == "[DONE]" {
            self.events = None;
            if !self.finished {
                // Some servers end with [DONE] alone; what was sent decides the reason.
                let reason = if self.saw_tool_calls { FinishReason::ToolCalls } else { FinishReason::Stop };
                self.finish(reason);
            }
            return Ok(());
        }
        if data.is_empty() || self.finished {
            return Ok(());
        }
        let chunk = openai_wire::parse_chunk(data)?;
        self.saw_tool_calls |= chunk.events.iter().any(|e| matches!(e, StreamEvent::ToolCallDelta { .. }));
        self.pending.extend(chunk.events);
        if let Some(reason) = chunk.finish {
            self.finish(reason);
        }
        Ok(())
    }

    fn finish(&mut self, reason: FinishReason) {
        self.finished = true;
        self.pending.push_back(StreamEvent::Finished { reason });
    }

    /// Yields the error and ends the stream, dropping the HTTP response.
    fn fail(mut self, error: ProviderError) -> Option<(Result<StreamEvent, ProviderError>, Self)> {
        self.events = None;
        self.pending.clear();
        Some((Err(error), self))
    }
}

fn describe_sse_error(e: &EventStreamError<Transport>) -> String {
    match e {
        EventStreamError::Transport(Transport::Http(e)) => format!("the connection broke ({})", innermost(e)),
        EventStreamError::Transport(Transport::TooLong(e)) => format!("{e}; the stream was cut"),
        EventStreamError::Utf8(e) => format!("the stream is not valid UTF-8 ({e})"),
        EventStreamError::Parser(e) => format!("the stream is not valid server-sent events ({e})"),
    }
}
