//! A run's events as Server-Sent Events: `id:` the sequence number, `event:` the type, `data:`
//! the JSON. The stream ends with the run, or when the server shuts down.

use std::convert::Infallible;

use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, KeepAliveStream, Sse};
use futures::stream::BoxStream;
use futures::StreamExt;
use warden_engine::RunEventRecord;

use super::error::ApiError;

/// The events an SSE answer sends (a run's, or the inbox's feed); boxed so a handler can name them.
pub type Events = BoxStream<'static, Result<Event, Infallible>>;
/// An SSE answer: the events, with keep-alive comments while none comes.
pub type EventStream = Sse<KeepAliveStream<Events>>;

pub fn event_stream(events: Events) -> EventStream {
    Sse::new(events).keep_alive(KeepAlive::default())
}

/// Reads `Last-Event-ID`: absent or empty means from the start. Anything but a decimal id the
/// store can hold (at most 2^63 - 1) is a 400: a huge value must not wrap into "replay everything".
pub fn last_event_id(headers: &HeaderMap) -> Result<u64, ApiError> {
    let Some(value) = headers.get("last-event-id") else { return Ok(0) };
    let text = value.to_str().map(str::trim).unwrap_or("\u{0}");
    if text.is_empty() {
        return Ok(0);
    }
    text.parse::<i64>()
        .ok()
        .filter(|id| *id >= 0 && text.bytes().all(|b| b.is_ascii_digit()))
        .map(|id| id as u64)
        .ok_or_else(|| {
            ApiError::bad_request("invalid_last_event_id", "Last-Event-ID must be a decimal event id below 2^63")
        })
}

pub fn to_sse(
    events: BoxStream<'static, RunEventRecord>,
    shutdown: tokio_util::sync::CancellationToken,
) -> EventStream {
    let stream = events
        .map(|r| Ok(Event::default().id(r.seq.to_string()).event(r.kind.as_str()).data(&*r.data)))
        .take_until(shutdown.cancelled_owned());
    event_stream(stream.boxed())
}
