//! Google's Gemini API as a provider, natively: `models/{model}:streamGenerateContent?alt=sse` for
//! turns and `:generateContent` for titles, the key in the `x-goog-api-key` header (never in the URL,
//! which ends up in logs and error texts). Every wait is bounded: connect, silence between chunks, and
//! whole non-streamed requests; a cancelled token ends a turn. Gemini sends no end marker: the turn
//! ends with the chunk that carries a finish reason, and a stream that closes before one is an error.

use async_trait::async_trait;
use eventsource_stream::Event;
use tokio_util::sync::CancellationToken;

use super::gemini_wire::{self, ChunkReader, GenerateRequest};
use super::http::{Endpoint, KeyHeader};
use super::sse_turn::{self, Decoded, TurnDecoder};
use super::{Provider, ProviderError, TurnRequest, TurnStream};
use warden_types::message::Message;

/// Google's public endpoint for the Gemini API.
pub const DEFAULT_BASE_URL: &str = warden_types::provider::ProviderKind::Gemini.default_base_url();

/// Gemini's address is scheme and host, e.g. `https://generativelanguage.googleapis.com` (empty means that
/// one); a path ending in a version (`/v1beta`, `/v1`) is used as it is, otherwise `/v1beta` is added. The
/// model may carry a leading `models/`.
pub type GeminiConfig = super::api_config::ApiConfig;

#[derive(Debug, Clone)]
pub struct Gemini {
    config: GeminiConfig,
    /// `…:streamGenerateContent?alt=sse`, with the client and the key.
    endpoint: Endpoint,
    /// `…:generateContent`.
    generate_url: reqwest::Url,
}

impl Gemini {
    pub fn new(config: GeminiConfig) -> Result<Self, ProviderError> {
        let model = config.model.trim().trim_start_matches("models/");
        if model.is_empty() {
            return Err(ProviderError::NotConfigured);
        }
        let stream_url = method_url(&config.base_url, model, "streamGenerateContent")?;
        let generate_url = method_url(&config.base_url, model, "generateContent")?;
        let endpoint = Endpoint::new(
            &format!("{stream_url}?alt=sse"),
            config.connect_timeout,
            config.api_key.clone(),
            KeyHeader::Named("x-goog-api-key"),
            gemini_wire::error_message,
        )?
        .with_error_status(gemini_wire::error_status);
        Ok(Self { config, endpoint, generate_url })
    }

    pub fn config(&self) -> &GeminiConfig {
        &self.config
    }

    fn post(&self, url: reqwest::Url, body: &GenerateRequest<'_>) -> reqwest::RequestBuilder {
        self.endpoint.post(url).json(body)
    }
}

/// `{base}/v1beta/models/{model}:{method}`; the model is one path segment, escaped as one.
fn method_url(base_url: &str, model: &str, method: &str) -> Result<reqwest::Url, ProviderError> {
    let invalid = || ProviderError::Connect("the model server address is not a valid http(s) URL".to_string());
    let base = match base_url.trim().trim_end_matches('/') {
        "" => DEFAULT_BASE_URL,
        given => given,
    };
    let mut url = super::http::http_url(base).ok_or_else(invalid)?;
    let versioned = url
        .path_segments()
        .and_then(|mut s| s.next_back())
        .is_some_and(|last| matches!(last, "v1" | "v1beta" | "v1alpha"));
    url.set_query(None);
    url.path_segments_mut()
        .map_err(|_| invalid())?
        .pop_if_empty()
        .extend((!versioned).then_some("v1beta"))
        .push("models")
        .push(&format!("{model}:{method}"));
    Ok(url)
}

#[async_trait]
impl Provider for Gemini {
    fn name(&self) -> &str {
        "gemini"
    }

    fn model(&self) -> &str {
        &self.config.model
    }

    async fn stream_turn(&self, req: TurnRequest, cancel: CancellationToken) -> Result<TurnStream, ProviderError> {
        let (system_instruction, contents) = gemini_wire::wire_contents(&req.messages);
        let body = GenerateRequest { contents, system_instruction, tools: gemini_wire::wire_tools(&req.tools) };
        let idle = self.config.idle_timeout;
        let request = self.post(self.endpoint.url.clone(), &body);
        let response = self.endpoint.start_stream(request, idle, &cancel).await?;
        let decoder = ChunkDecoder { reader: ChunkReader::default() };
        Ok(sse_turn::stream(response, decoder, &self.endpoint, idle, self.config.max_event_bytes, cancel))
    }

    /// `GET {base}/v1beta/models`: the models that can generate content, without the `models/` prefix.
    async fn list_models(&self) -> Result<Vec<String>, ProviderError> {
        let mut url = self.generate_url.clone();
        url.path_segments_mut().map_err(|_| ProviderError::NotConfigured)?.pop();
        url.set_query(Some("pageSize=1000"));
        let request = self.endpoint.get(url);
        let text = self.endpoint.request_text(request, self.config.request_timeout).await?;
        gemini_wire::model_names(&text)
    }

    async fn complete(&self, messages: Vec<Message>) -> Result<String, ProviderError> {
        let (system_instruction, contents) = gemini_wire::wire_contents(&messages);
        let body = GenerateRequest { contents, system_instruction, tools: Vec::new() };
        let request = self.post(self.generate_url.clone(), &body);
        let text = self.endpoint.request_text(request, self.config.request_timeout).await?;
        gemini_wire::completion_text(&text).map_err(|e| self.endpoint.redact_error(e))
    }
}

/// Reads `GenerateContentResponse` chunks. The chunk with a finish reason ends the turn.
struct ChunkDecoder {
    reader: ChunkReader,
}

impl TurnDecoder for ChunkDecoder {
    fn read(&mut self, event: &Event) -> Result<Decoded, ProviderError> {
        let data = event.data.trim();
        if data.is_empty() {
            return Ok(Decoded::default());
        }
        let chunk = self.reader.read(data)?;
        let end = chunk.finish.is_some();
        Ok(Decoded { events: chunk.events, finish: chunk.finish, end })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_name_the_model_and_method_under_v1beta() {
        let url = method_url("", "gemini-2.5-flash", "generateContent").unwrap();
        assert_eq!(
            url.as_str(),
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
        );
        let url = method_url("http://127.0.0.1:9/", "m", "streamGenerateContent").unwrap();
        assert_eq!(url.as_str(), "http://127.0.0.1:9/v1beta/models/m:streamGenerateContent");
        let url = method_url("https://proxy.example/google/v1", "m", "generateContent").unwrap();
        assert_eq!(url.as_str(), "https://proxy.example/google/v1/models/m:generateContent");
    }

    #[test]
    fn a_model_name_cannot_leave_its_path_segment() {
        let url = method_url("", "../x?key=1#f", "generateContent").unwrap();
        assert_eq!(url.path(), "/v1beta/models/..%2Fx%3Fkey=1%23f:generateContent");
        assert_eq!(url.query(), None);
    }

    #[test]
    fn the_key_stays_out_of_debug_output_and_the_url() {
        let gemini =
            Gemini::new(GeminiConfig::new(DEFAULT_BASE_URL, "models/gemini-2.5-flash", Some("sekrit-key".into())))
                .unwrap();
        let shown = format!("{gemini:?}");
        assert!(!shown.contains("sekrit-key"), "{shown}");
        assert_eq!(gemini.model(), "models/gemini-2.5-flash");
        assert!(!gemini.endpoint.url.as_str().contains("sekrit"));
        assert_eq!(gemini.endpoint.url.query(), Some("alt=sse"));
        assert!(gemini.endpoint.url.path().ends_with("/models/gemini-2.5-flash:streamGenerateContent"));
    }

    #[test]
    fn without_a_model_it_is_not_configured_and_a_bad_address_is_refused() {
        assert_eq!(
            Gemini::new(GeminiConfig::new(DEFAULT_BASE_URL, " ", None)).unwrap_err(),
            ProviderError::NotConfigured
        );
        let config = GeminiConfig { base_url: "ftp://x".into(), ..GeminiConfig::new(DEFAULT_BASE_URL, "m", None) };
        assert!(matches!(Gemini::new(config), Err(ProviderError::Connect(_))));
    }
}
