//! The HTTP side every remote provider shares: one client with a connect timeout, a POST that turns a
//! non-success status into `ProviderError::Http` with the server's own message, transport errors named by
//! host and port, bounded body reads, and the key kept off the screen.

use std::time::Duration;

use reqwest::header::{HeaderName, HeaderValue, AUTHORIZATION};

use super::ProviderError;

/// How an API takes its key.
#[derive(Debug, Clone, Copy)]
pub(super) enum KeyHeader {
    /// `Authorization: Bearer <key>` (OpenAI-compatible).
    Bearer,
    /// The key alone in a header of its own (`x-api-key`, `x-goog-api-key`).
    Named(&'static str),
}

/// An error body is read this far (its message is near the start).
pub(super) const MAX_ERROR_BODY: usize = 64 * 1024;
/// A non-streamed completion (a thread title) is read this far.
pub(super) const MAX_COMPLETION_BODY: usize = 1024 * 1024;

/// One provider endpoint: where requests go, the client, and the secret to redact from what it says.
#[derive(Clone)]
pub(super) struct Endpoint {
    pub url: reqwest::Url,
    client: reqwest::Client,
    secret: Option<String>,
    /// The header that carries the key, made once and marked sensitive.
    key_header: Option<(HeaderName, HeaderValue)>,
    /// Finds the human message in an error body (each API nests it differently).
    error_message: fn(&str) -> Option<String>,
    /// The status an error stands for, from the HTTP status and the body: some APIs say more in the
    /// body than in the status (Gemini answers a wrong key with 400 and `API_KEY_INVALID`).
    error_status: fn(u16, &str) -> u16,
}

// The key must never end up in logs.
impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("url", &self.url.as_str())
            .field("secret", &self.secret.as_ref().map(|_| "[redacted]"))
            .finish_non_exhaustive()
    }
}

impl Endpoint {
    /// `url` must be http(s). `secret` (the API key) goes in every request as `key_header` says and
    /// is redacted from any error text.
    pub fn new(
        url: &str,
        connect_timeout: Duration,
        secret: Option<String>,
        key_header: KeyHeader,
        error_message: fn(&str) -> Option<String>,
    ) -> Result<Self, ProviderError> {
        let invalid = || ProviderError::Connect("the model server address is not a valid http(s) URL".to_string());
        let url = http_url(url).ok_or_else(invalid)?;
        crate::tls::install_crypto_provider();
        let client = reqwest::Client::builder()
            .connect_timeout(connect_timeout)
            .redirect(crate::redirects::same_origin_only())
            .build()
            .map_err(|e| ProviderError::Connect(format!("cannot set up the HTTP client ({})", innermost(&e))))?;
        let secret = secret.map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
        let key_header = secret.as_deref().map(|key| header_for(key_header, key)).transpose()?;
        Ok(Self { url, client, secret, key_header, error_message, error_status: |status, _| status })
    }

    /// A POST to `url` carrying the key.
    pub fn post(&self, url: reqwest::Url) -> reqwest::RequestBuilder {
        self.with_key(self.client.post(url))
    }

    /// A GET of `url` carrying the key.
    pub fn get(&self, url: reqwest::Url) -> reqwest::RequestBuilder {
        self.with_key(self.client.get(url))
    }

    fn with_key(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.key_header {
            Some((name, value)) => request.header(name.clone(), value.clone()),
            None => request,
        }
    }

    /// Reads the status an error stands for from its body (see `error_status`).
    pub fn with_error_status(self, error_status: fn(u16, &str) -> u16) -> Self {
        Self { error_status, ..self }
    }

    /// The secret, trimmed; `None` when there is none.
    pub fn secret(&self) -> Option<&str> {
        self.secret.as_deref()
    }

    /// Sends the request and turns a non-success status into `Http` with the body's message.
    pub async fn send(&self, request: reqwest::RequestBuilder) -> Result<reqwest::Response, ProviderError> {
        let response = request.send().await.map_err(|e| self.transport_error(&e))?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        if status.is_redirection() {
            // A redirect to another origin, which the client did not follow (`redirects`).
            let to = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|location| response.url().join(location).ok())
                .map(|url| crate::redirects::origin_of(&url));
            let message = crate::redirects::refused_text(to.as_deref());
            return Err(ProviderError::Http { status: status.as_u16(), message: self.redact(message) });
        }
        let body = read_capped(response, MAX_ERROR_BODY).await.unwrap_or_default();
        let message = (self.error_message)(&body)
            .unwrap_or_else(|| status.canonical_reason().unwrap_or("no details given").to_string());
        let status = (self.error_status)(status.as_u16(), &body);
        Err(ProviderError::Http { status, message: self.redact(message) })
    }

    /// Starts a streamed request: the answer must begin within `idle` (else it is `Silent`), and
    /// `cancel` ends the wait.
    pub async fn start_stream(
        &self,
        request: reqwest::RequestBuilder,
        idle: Duration,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> Result<reqwest::Response, ProviderError> {
        let request = request.header(reqwest::header::ACCEPT, "text/event-stream");
        tokio::select! {
            _ = cancel.cancelled() => Err(ProviderError::Cancelled),
            answered = tokio::time::timeout(idle, self.send(request)) => {
                answered.map_err(|_| ProviderError::silent(idle))?
            }
        }
    }

    /// A whole non-streamed request within `limit`, its body read as text up to `MAX_COMPLETION_BODY`.
    pub async fn request_text(
        &self,
        request: reqwest::RequestBuilder,
        limit: Duration,
    ) -> Result<String, ProviderError> {
        let answer = async {
            let response = self.send(request).await?;
            read_capped(response, MAX_COMPLETION_BODY).await
        };
        tokio::time::timeout(limit, answer).await.map_err(|_| ProviderError::timeout("no complete answer", limit))?
    }

    fn transport_error(&self, e: &reqwest::Error) -> ProviderError {
        let host = self.url.host_str().unwrap_or("?");
        let port = self.url.port_or_known_default().map(|p| format!(":{p}")).unwrap_or_default();
        if e.is_timeout() {
            ProviderError::Timeout(format!("connecting to {host}{port} took too long"))
        } else {
            ProviderError::Connect(format!("{host}{port}: {}", innermost(e)))
        }
    }

    /// Servers sometimes echo what they were sent; a key must not reach the screen.
    pub fn redact(&self, text: String) -> String {
        redact(self.secret(), text)
    }

    /// An error with the key taken out of the server's words (streamed errors, unreadable answers).
    pub fn redact_error(&self, error: ProviderError) -> ProviderError {
        redact_error(self.secret(), error)
    }
}

fn redact(secret: Option<&str>, text: String) -> String {
    match secret {
        Some(key) if text.contains(key) => text.replace(key, "[redacted]"),
        _ => text,
    }
}

/// `error` with `secret` taken out of the message a server gave it.
pub(super) fn redact_error(secret: Option<&str>, error: ProviderError) -> ProviderError {
    match error {
        ProviderError::Http { status, message } => ProviderError::Http { status, message: redact(secret, message) },
        ProviderError::Stream(message) => ProviderError::Stream(redact(secret, message)),
        other => other,
    }
}

/// Reads a response body as text, failing once it passes `max` bytes instead of holding it all.
pub(super) async fn read_capped(mut response: reqwest::Response, max: usize) -> Result<String, ProviderError> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| ProviderError::Stream(innermost(&e)))? {
        if body.len() + chunk.len() > max {
            return Err(ProviderError::Stream(format!("the answer was longer than {max} bytes")));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(String::from_utf8_lossy(&body).into_owned())
}

/// `text` as a URL if it is one with the http or https scheme.
pub fn http_url(text: &str) -> Option<reqwest::Url> {
    reqwest::Url::parse(text).ok().filter(|url| matches!(url.scheme(), "http" | "https"))
}

/// The key's header, sensitive (left out of debug output and never compressed by HTTP/2).
fn header_for(kind: KeyHeader, key: &str) -> Result<(HeaderName, HeaderValue), ProviderError> {
    let (name, text) = match kind {
        KeyHeader::Bearer => (AUTHORIZATION, format!("Bearer {key}")),
        KeyHeader::Named(name) => (HeaderName::from_static(name), key.to_string()),
    };
    let mut value = HeaderValue::from_str(&text)
        .map_err(|_| ProviderError::Connect("the API key has characters an HTTP header cannot carry".to_string()))?;
    value.set_sensitive(true);
    Ok((name, value))
}

/// The most specific cause in an error chain, e.g. "Connection refused (os error 111)".
pub(super) fn innermost(e: &(dyn std::error::Error + 'static)) -> String {
    let mut current = e;
    while let Some(source) = current.source() {
        current = source;
    }
    current.to_string()
}
