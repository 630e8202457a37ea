//! A run's events as Server-Sent Events: `id:` the sequence number, `event:` the type, `data:`
//! the JSON. The stream ends with the run, or when the server shuts down.

use std::convert::Infallible;

use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures::stream::BoxStream;
use futures::{Stream, StreamExt};
use warden_engine::run::RunEventRecord;

use super::error::ApiError;

/// Reads `Last-Event-ID`: absent means from the start.
pub fn last_event_id(headers: &HeaderMap) -> Result<u64, ApiError> {
    match headers.get("last-event-id") {
        None => Ok(0),
        Some(v) => v
            .to_str()
            .ok()
            .map(str::trim)
            .and_then(|s| if s.is_empty() { Some(0) } else { s.parse().ok() })
            .ok_or_else(|| ApiError::unprocessable("Last-Event-ID must be a decimal event id")),
    }
}

pub fn to_sse(
    events: BoxStream<'static, RunEventRecord>,
    shutdown: tokio_util::sync::CancellationToken,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let stream = events
        .map(|r| Ok(Event::default().id(r.seq.to_string()).event(r.kind).data(&*r.data)))
        .take_until(shutdown.cancelled_owned());
    Sse::new(stream).keep_alive(KeepAlive::default())
}
