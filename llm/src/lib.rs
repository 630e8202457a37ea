//! Model providers: the provider-neutral `Provider` trait the agent loop talks to, the events a
//! streamed turn yields, and the remote implementations (OpenAI-compatible, Anthropic, Gemini; one per
//! file, their wire types stay in them) with what they share: HTTP, SSE, retries, tool calls read
//! out of a model's text. The built-in model implements the same trait in `warden-local`.

use async_trait::async_trait;
use futures::stream::BoxStream;
use tokio_util::sync::CancellationToken;

use warden_types::message::Message;
use warden_types::tool::ToolSpec;

pub mod anthropic;
mod anthropic_wire;
mod api_config;
mod call_arguments;
mod errors;
pub mod gemini;
mod gemini_schema;
mod gemini_wire;
mod http;
pub mod openai;
mod openai_wire;
pub mod redirects;
mod retrying;
mod sse_limit;
mod sse_turn;
mod text_tool_calls;
pub mod tls;
mod tool_call_accumulator;

pub use anthropic::{Anthropic, AnthropicConfig};
pub use api_config::{ApiConfig, DEFAULT_MAX_EVENT_BYTES};
pub use errors::ProviderError;
pub use gemini::{Gemini, GeminiConfig};
pub use http::http_url;
pub use openai::{OpenAiCompatible, OpenAiConfig};
pub use openai_wire::tool_text;
pub use retrying::{with_retries, RetryPolicy, Retrying};
pub use text_tool_calls::{with_text_tool_calls, TextToolCalls};
pub use tool_call_accumulator::{AssembledCall, IncompleteToolCall, ToolCallAccumulator};

#[async_trait]
pub trait Provider: Send + Sync {
    /// The kind of provider, e.g. "openai-compatible".
    fn name(&self) -> &str;
    fn model(&self) -> &str;
    /// Starts one streamed model turn.
    async fn stream_turn(&self, req: TurnRequest, cancel: CancellationToken) -> Result<TurnStream, ProviderError>;
    /// One short non-streamed completion (thread titles).
    async fn complete(&self, messages: Vec<Message>) -> Result<String, ProviderError>;
    /// Whether this provider, given tools under `TextToolCalls`, keeps the JSON call blocks its model
    /// writes valid by constrained decoding. `TextToolCalls` then still describes the tools in the
    /// prompt and reads the calls out of the text, but passes the tools on for the grammar.
    fn constrains_text_calls(&self) -> bool {
        false
    }
    /// The models the API offers (Settings' connection test); empty where it has no such list.
    async fn list_models(&self) -> Result<Vec<String>, ProviderError> {
        Ok(Vec::new())
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct TurnRequest {
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSpec>,
}

/// The events of one model turn. It ends after `Finished`, or with an error.
pub type TurnStream = BoxStream<'static, Result<StreamEvent, ProviderError>>;

#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    TextDelta(String),
    /// A piece of tool call `index`; the first piece usually carries the id and name.
    ToolCallDelta {
        index: u32,
        call_id: Option<String>,
        name: Option<String>,
        arguments: String,
    },
    /// Always the last event of a turn that ended normally.
    Finished {
        reason: FinishReason,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FinishReason {
    Stop,
    ToolCalls,
    /// The model hit its output token limit.
    Length,
    Other(String),
}

impl FinishReason {
    pub fn from_wire(reason: &str) -> Self {
        match reason {
            "stop" => Self::Stop,
            "tool_calls" | "function_call" => Self::ToolCalls,
            "length" => Self::Length,
            other => Self::Other(other.to_string()),
        }
    }
}
