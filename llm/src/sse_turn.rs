//! One streamed model turn read from server-sent events, for any provider: each provider supplies a
//! `TurnDecoder` that reads its own event payloads; this file owns the rest. Every wait is bounded (the
//! idle timeout between events), a cancelled token ends the turn before the next event, one event is
//! capped in size before it is parsed, and a connection that closes before the turn finished is an error.

use std::collections::VecDeque;
use std::pin::Pin;
use std::time::Duration;

use eventsource_stream::{Event, EventStreamError, Eventsource};
use futures::stream::{BoxStream, StreamExt};
use tokio::time::{Instant, Sleep};
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

use super::http::{innermost, redact_error, Endpoint};
use super::sse_limit::{EventSizeGuard, EventTooLong};
use super::{FinishReason, ProviderError, StreamEvent, TurnStream};

/// What one SSE event meant, as a provider's decoder reads it.
#[derive(Debug, Default)]
pub(super) struct Decoded {
    pub events: Vec<StreamEvent>,
    /// The turn finished for this reason (yielded after `events`).
    pub finish: Option<FinishReason>,
    /// Nothing more will come: the response is dropped.
    pub end: bool,
}

/// Reads a provider's event payloads. After the turn finished, `read` is still called for what trails
/// it (usage, a final marker); its events and errors are then ignored and only `end` counts.
pub(super) trait TurnDecoder: Send + 'static {
    fn read(&mut self, event: &Event) -> Result<Decoded, ProviderError>;

    /// The reason to finish with when the server ends the stream cleanly (`end`) without having said
    /// one; `None` makes such an end an error.
    fn finish_on_end(&self) -> Option<FinishReason> {
        None
    }
}

/// Turns a streaming response into the turn's events. Any error the stream ends with has the endpoint's
/// key taken out of it, whatever the server put in its words.
pub(super) fn stream(
    response: reqwest::Response,
    decoder: impl TurnDecoder,
    endpoint: &Endpoint,
    idle: Duration,
    max_event_bytes: usize,
    cancel: CancellationToken,
) -> TurnStream {
    let mut guard = EventSizeGuard::new(max_event_bytes);
    let body = response.bytes_stream().map(move |chunk| match chunk {
        Ok(bytes) => guard.check(&bytes).map(|()| bytes).map_err(Transport::TooLong),
        Err(e) => Err(Transport::Http(e)),
    });
    let state = TurnState {
        events: Some(body.eventsource().boxed()),
        decoder,
        secret: endpoint.secret().map(str::to_string),
        pending: VecDeque::new(),
        finished: false,
        idle,
        last_heard: Instant::now(),
        idle_timer: Box::pin(tokio::time::sleep(idle)),
        cancelled: Box::pin(cancel.clone().cancelled_owned()),
        cancel,
    };
    futures::stream::unfold(state, TurnState::next).boxed()
}

/// What can break the body of a streamed turn below the SSE parser.
#[derive(Debug)]
enum Transport {
    Http(reqwest::Error),
    TooLong(EventTooLong),
}

type SseEvents = BoxStream<'static, Result<Event, EventStreamError<Transport>>>;

/// Reading one streamed turn: SSE events in, `StreamEvent`s out, until finished, failed or cancelled.
struct TurnState<D> {
    /// `None` once the response is done with (and dropped, which closes the request).
    events: Option<SseEvents>,
    decoder: D,
    /// The key, to take out of any error.
    secret: Option<String>,
    pending: VecDeque<StreamEvent>,
    /// Whether `Finished` has been queued; what comes after it is only drained.
    finished: bool,
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

impl<D: TurnDecoder> TurnState<D> {
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
                    Err(ProviderError::silent(self.idle))
                }
                Waited::Event(next) => {
                    self.last_heard = Instant::now();
                    match next {
                        None => {
                            Err(ProviderError::Stream("the connection closed before the reply was complete".into()))
                        }
                        Some(Err(e)) => Err(ProviderError::Stream(describe_sse_error(&e))),
                        Some(Ok(event)) => self.read(&event),
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

    fn read(&mut self, event: &Event) -> Result<(), ProviderError> {
        let decoded = self.decoder.read(event);
        if self.finished {
            if decoded.is_ok_and(|d| d.end) {
                self.events = None;
            }
            return Ok(());
        }
        let decoded = decoded?;
        self.pending.extend(decoded.events);
        if let Some(reason) = decoded.finish {
            self.finish(reason);
        }
        if decoded.end {
            self.events = None;
            if !self.finished {
                let reason = self
                    .decoder
                    .finish_on_end()
                    .ok_or_else(|| ProviderError::Stream("the stream ended before the reply was complete".into()))?;
                self.finish(reason);
            }
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
        let error = redact_error(self.secret.as_deref(), error);
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
