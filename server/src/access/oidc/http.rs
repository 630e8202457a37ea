//! The provider's requests (discovery, its keys, the token exchange) made with Warden's reqwest: no
//! redirects followed (a provider's endpoints are where its discovery document says), a timeout on each, and
//! an answer cut off past 1 MiB.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use openidconnect::{AsyncHttpClient, HttpRequest, HttpResponse};

/// A provider's answer larger than this is refused.
const MAX_ANSWER_BYTES: usize = 1024 * 1024;
const TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error("the identity provider could not be reached: {0}")]
    Request(#[from] reqwest::Error),
    #[error("the identity provider's answer is larger than 1 MiB")]
    TooLarge,
    #[error("the identity provider's answer could not be read: {0}")]
    Answer(#[from] openidconnect::http::Error),
}

#[derive(Clone)]
pub struct Http(reqwest::Client);

impl Http {
    pub fn new() -> Result<Self, reqwest::Error> {
        // rustls with ring, as every client of Warden's (the server may not have made one yet).
        warden_llm::tls::install_crypto_provider();
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(TIMEOUT)
            .connect_timeout(TIMEOUT)
            .build()?;
        Ok(Self(client))
    }
}

impl<'c> AsyncHttpClient<'c> for Http {
    type Error = HttpError;
    type Future = Pin<Box<dyn Future<Output = Result<HttpResponse, HttpError>> + Send + 'c>>;

    fn call(&'c self, request: HttpRequest) -> Self::Future {
        Box::pin(async move {
            let (parts, body) = request.into_parts();
            let mut response =
                self.0.request(parts.method, parts.uri.to_string()).headers(parts.headers).body(body).send().await?;
            let mut answer = openidconnect::http::Response::builder().status(response.status());
            for (name, value) in response.headers() {
                answer = answer.header(name, value);
            }
            let mut body = Vec::new();
            while let Some(chunk) = response.chunk().await? {
                if body.len() + chunk.len() > MAX_ANSWER_BYTES {
                    return Err(HttpError::TooLarge);
                }
                body.extend_from_slice(&chunk);
            }
            Ok(answer.body(body)?)
        })
    }
}
