//! The HTTP client every HTTP channel sends with: a timeout on the whole request, redirects followed only
//! within the channel's own origin (a 307 or 308, which keep the body; never to another host), and an answer's
//! body read only up to [`BODY_BYTES`].

use std::time::Duration;

use reqwest::redirect::Policy;
use reqwest::{RequestBuilder, StatusCode};

use super::SendError;

/// At most this much of an answer's body is read (and shown as its excerpt).
pub const BODY_BYTES: usize = 4096;
/// At most this many redirects within one origin.
const MAX_REDIRECTS: usize = 3;
/// At most this many characters of a refusal's body are shown.
const EXCERPT_CHARS: usize = 300;

#[derive(Clone)]
pub struct Client {
    client: reqwest::Client,
}

/// What an HTTP channel answered, successfully.
pub struct Answer {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub body: String,
}

/// Follows a 307 or 308 only to the origin of the first request.
fn same_origin_only() -> Policy {
    Policy::custom(|attempt| {
        let keeps_body = matches!(attempt.status(), StatusCode::TEMPORARY_REDIRECT | StatusCode::PERMANENT_REDIRECT);
        let same_origin = attempt.previous().first().is_some_and(|first| first.origin() == attempt.url().origin());
        if keeps_body && same_origin && attempt.previous().len() <= MAX_REDIRECTS {
            attempt.follow()
        } else {
            attempt.stop()
        }
    })
}

impl Client {
    pub fn new(timeout: Duration) -> Result<Self, String> {
        // reqwest is built without a TLS provider of its own: the process's is ring (idempotent).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout)
            .redirect(same_origin_only())
            .user_agent(concat!("Warden/", env!("CARGO_PKG_VERSION"), " (notifications)"))
            .build()
            .map_err(|e| format!("the HTTP client could not be built: {e}"))?;
        Ok(Self { client })
    }

    pub fn post(&self, url: &str) -> RequestBuilder {
        self.client.post(url)
    }

    /// Sends `request`; a 2xx is an [`Answer`], anything else `Refused` with an excerpt of its body.
    pub async fn send(&self, request: RequestBuilder) -> Result<Answer, SendError> {
        let response = request.send().await.map_err(unreachable)?;
        answer(response).await
    }
}

async fn answer(mut response: reqwest::Response) -> Result<Answer, SendError> {
    let status = response.status();
    let headers = response.headers().clone();
    let mut body = Vec::new();
    while body.len() < BODY_BYTES {
        match response.chunk().await {
            Ok(Some(chunk)) => body.extend_from_slice(&chunk),
            Ok(None) => break,
            Err(e) => return Err(unreachable(e)),
        }
    }
    body.truncate(BODY_BYTES);
    let body = String::from_utf8_lossy(&body).into_owned();
    if status.is_success() {
        return Ok(Answer { status, headers, body });
    }
    let body = if status.is_redirection() {
        let to = headers.get(reqwest::header::LOCATION).and_then(|v| v.to_str().ok()).unwrap_or("?");
        format!("a redirect to {to}, which Warden does not follow to another address: configure that address instead")
    } else {
        excerpt(&body)
    };
    Err(SendError::Refused { status: status.as_u16(), body })
}

/// The start of a body, on one line.
pub fn excerpt(body: &str) -> String {
    let flat: String = body.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= EXCERPT_CHARS {
        return flat;
    }
    let cut: String = flat.chars().take(EXCERPT_CHARS).collect();
    format!("{cut}…")
}

/// A request that got no answer, in words.
fn unreachable(e: reqwest::Error) -> SendError {
    let what = if e.is_timeout() {
        "no answer in time".to_string()
    } else if e.is_connect() {
        "could not connect".to_string()
    } else {
        "the request failed".to_string()
    };
    let host = e.url().map(|u| format!(" to {}", u.origin().ascii_serialization())).unwrap_or_default();
    let mut cause = String::new();
    let mut source = std::error::Error::source(&e);
    while let Some(inner) = source {
        cause = inner.to_string();
        source = inner.source();
    }
    let cause = if cause.is_empty() { String::new() } else { format!(" ({cause})") };
    SendError::Unreachable(format!("{what}{host}{cause}"))
}

/// "HTTP 200 OK".
pub fn status_line(status: StatusCode) -> String {
    format!("HTTP {} {}", status.as_u16(), status.canonical_reason().unwrap_or("")).trim_end().to_string()
}
