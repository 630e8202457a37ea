//! A model server that redirects elsewhere: each provider's request carries the key in a header of its
//! own (`Authorization`, `x-api-key`, `x-goog-api-key`), and a redirect to another origin is not followed,
//! so the key never reaches the second server (real servers on two ports), and the person reads where
//! the redirect pointed. A redirect within the same origin is still followed.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use warden_llm::{
    Anthropic, AnthropicConfig, ApiConfig, Gemini, GeminiConfig, OpenAiCompatible, OpenAiConfig, Provider,
    ProviderError,
};
use warden_testkit::{HeaderRecorder, Redirector};
use warden_types::message::{Message, Role};

const KEY: &str = "sk-redirect-secret-0123456789";

fn config(mut config: ApiConfig, base_url: String) -> ApiConfig {
    config.base_url = base_url;
    config.connect_timeout = Duration::from_secs(5);
    config.idle_timeout = Duration::from_secs(5);
    config.request_timeout = Duration::from_secs(5);
    config
}

/// The three providers, each pointed at `base_url` with the key.
fn providers(base_url: &str) -> Vec<(&'static str, Arc<dyn Provider>)> {
    let key = Some(KEY.to_string());
    let openai = config(OpenAiConfig::new("http://unused", "m", key.clone()), base_url.to_string());
    let anthropic = config(AnthropicConfig::new("http://unused", "m", key.clone()), base_url.to_string());
    let gemini = config(GeminiConfig::new("http://unused", "m", key), base_url.to_string());
    vec![
        ("openai", Arc::new(OpenAiCompatible::new(openai).unwrap())),
        ("anthropic", Arc::new(Anthropic::new(anthropic).unwrap())),
        ("gemini", Arc::new(Gemini::new(gemini).unwrap())),
    ]
}

fn carries_the_key(headers: &reqwest::header::HeaderMap) -> bool {
    headers.values().any(|v| v.to_str().is_ok_and(|v| v.contains(KEY)))
}

#[tokio::test]
async fn a_redirect_to_another_host_is_not_followed_and_the_key_never_reaches_it() {
    let elsewhere = HeaderRecorder::start().await.unwrap();
    let redirector = Redirector::start(&elsewhere.url("/v1/collect")).await.unwrap();
    for (api, provider) in providers(&redirector.url("")) {
        let turn = warden_llm::TurnRequest { messages: vec![Message::text(Role::User, "hi")], tools: vec![] };
        let outcomes = [
            provider.stream_turn(turn, CancellationToken::new()).await.err(),
            provider.complete(vec![Message::text(Role::User, "name this")]).await.err(),
            provider.list_models().await.err(),
        ];
        for error in outcomes {
            let Some(ProviderError::Http { status: 307, message }) = &error else {
                panic!("{api}: expected the redirect as an error, got {error:?}")
            };
            assert!(message.contains(&elsewhere.url("")) && message.contains("does not follow"), "{api}: {message}");
            assert!(!message.contains(KEY));
        }
    }
    assert!(redirector.hits() >= 9, "every request reached the first server");
    let reached = elsewhere.requests();
    assert!(reached.is_empty(), "nothing followed the redirect: {reached:?}");
    assert!(!reached.iter().any(carries_the_key));
}

#[tokio::test]
async fn a_redirect_to_another_port_of_the_same_host_is_not_followed_either() {
    let elsewhere = HeaderRecorder::start().await.unwrap();
    // The same host name as the configured address, only the port differs.
    let redirector = Redirector::start(&elsewhere.url("/")).await.unwrap();
    let (_, provider) = providers(&redirector.url("")).remove(1);
    let error = provider.list_models().await.unwrap_err();
    assert!(matches!(error, ProviderError::Http { status: 307, .. }), "{error:?}");
    assert!(error.to_string().contains("another address"), "{error}");
    assert!(elsewhere.requests().is_empty());
}

#[tokio::test]
async fn a_redirect_within_the_configured_origin_is_followed_with_the_key() {
    // `/moved-here/…` answers 307 to `/…` on the same server.
    let recorder = HeaderRecorder::start().await.unwrap();
    let (_, provider) = providers(&recorder.url(warden_testkit::redirect::SAME_ORIGIN_PREFIX)).remove(1);
    let models = provider.list_models().await;
    assert!(!matches!(models, Err(ProviderError::Http { status: 307, .. })), "{models:?}");
    let seen = recorder.requests();
    assert_eq!(seen.len(), 1, "the redirected request arrived");
    assert!(carries_the_key(&seen[0]), "{seen:?}");
}
