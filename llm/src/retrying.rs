//! A provider decorator that tries a turn again when the model server fails it before it started:
//! overload (429, 503, Anthropic's 529), server faults, timeouts, refused connections. Waits grow
//! exponentially with jitter (the `backon` crate's policy) and end at once when the turn is stopped.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use backon::{ExponentialBuilder, Retryable};
use futures::stream::{self, StreamExt};
use tokio_util::sync::CancellationToken;

use super::{Provider, ProviderError, TurnRequest, TurnStream};
use warden_types::message::Message;

/// How often and how patiently to try again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts after the first one.
    pub max_retries: usize,
    /// The wait before the first retry; each further wait doubles, up to `max_delay`. Jitter adds up
    /// to as much again, so clients that failed together do not come back together.
    pub first_delay: Duration,
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    /// Three retries after 0.5, 1 and 2 s (plus jitter), never more than 8 s apart.
    fn default() -> Self {
        Self { max_retries: 3, first_delay: Duration::from_millis(500), max_delay: Duration::from_secs(8) }
    }
}

impl RetryPolicy {
    fn backoff(&self) -> ExponentialBuilder {
        ExponentialBuilder::default()
            .with_min_delay(self.first_delay)
            .with_max_delay(self.max_delay)
            .with_max_times(self.max_retries)
            .with_jitter()
    }
}

/// Wraps a provider so that failures before the first event are retried (see the module doc).
///
/// Only a turn that has not begun is retried: once an event has reached the caller, the turn
/// belongs to the agent loop, which shows the error and lets the person try again. A server's
/// `Retry-After` header is not honoured yet (`ProviderError` does not carry it); the backoff is
/// used instead.
pub struct Retrying<P: ?Sized> {
    policy: RetryPolicy,
    inner: Arc<P>,
}

impl<P: Provider + ?Sized> Retrying<P> {
    pub fn new(inner: Arc<P>, policy: RetryPolicy) -> Self {
        Self { policy, inner }
    }

    pub fn policy(&self) -> RetryPolicy {
        self.policy
    }

    /// One attempt: start the turn and wait for its first event, so a stream that fails before
    /// saying anything (an error chunk right after a 200, a connection dropped at once) is retried
    /// like a failed request.
    async fn attempt(&self, req: TurnRequest, cancel: CancellationToken) -> Result<TurnStream, ProviderError> {
        let mut events = self.inner.stream_turn(req, cancel).await?;
        match events.next().await {
            Some(Err(e)) => Err(e),
            Some(Ok(first)) => Ok(stream::once(async { Ok(first) }).chain(events).boxed()),
            None => Ok(stream::empty().boxed()),
        }
    }
}

/// Wraps a shared provider in [`Retrying`].
pub fn with_retries(provider: Arc<dyn Provider>, policy: RetryPolicy) -> Arc<dyn Provider> {
    Arc::new(Retrying::new(provider, policy))
}

fn log_retry(what: &'static str) -> impl FnMut(&ProviderError, Duration) {
    move |error, wait| tracing::warn!(%error, ?wait, "model {what} failed; trying again")
}

#[async_trait]
impl<P: Provider + ?Sized> Provider for Retrying<P> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn model(&self) -> &str {
        self.inner.model()
    }

    async fn stream_turn(&self, req: TurnRequest, cancel: CancellationToken) -> Result<TurnStream, ProviderError> {
        let tries = || self.attempt(req.clone(), cancel.clone());
        let retried = tries
            .retry(self.policy.backoff())
            .sleep(tokio::time::sleep)
            .when(ProviderError::is_retryable)
            .notify(log_retry("turn"));
        // Stopping wins over both an attempt in flight (dropping it closes its request) and a wait.
        tokio::select! {
            biased;
            _ = cancel.cancelled() => Err(ProviderError::Cancelled),
            outcome = retried => outcome,
        }
    }

    async fn complete(&self, messages: Vec<Message>) -> Result<String, ProviderError> {
        let tries = || self.inner.complete(messages.clone());
        tries
            .retry(self.policy.backoff())
            .sleep(tokio::time::sleep)
            .when(ProviderError::is_retryable)
            .notify(log_retry("completion"))
            .await
    }

    /// Not retried: a connection test should say at once what is wrong.
    async fn list_models(&self) -> Result<Vec<String>, ProviderError> {
        self.inner.list_models().await
    }
}

#[cfg(test)]
mod tests {
    use backon::BackoffBuilder;

    use super::*;

    #[test]
    fn the_default_waits_about_half_a_second_then_doubling_three_times_with_jitter_on_top() {
        let waits: Vec<Duration> = RetryPolicy::default().backoff().build().collect();
        assert_eq!(waits.len(), 3);
        for (wait, base_ms) in waits.iter().zip([500, 1000, 2000]) {
            let base = Duration::from_millis(base_ms);
            assert!(*wait >= base && *wait < base * 2, "{wait:?} for a base of {base:?}");
        }
    }

    #[test]
    fn waits_stop_growing_at_the_cap() {
        let policy =
            RetryPolicy { max_retries: 8, first_delay: Duration::from_secs(1), max_delay: Duration::from_secs(8) };
        let last = policy.backoff().build().last().unwrap();
        assert!(last >= Duration::from_secs(8) && last < Duration::from_secs(16), "{last:?}");
    }
}
