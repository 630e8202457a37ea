//! The browser's subscription to one run's event stream (`GET /api/runs/{id}/events`, server-sent
//! events). `EventSource` reconnects with `Last-Event-ID` by itself; we only close it when the run
//! ends or the page leaves. On the server this is an inert stand-in, since nothing subscribes there.

use crate::model::RunEvent;

/// What the stream tells its owner.
#[allow(clippy::large_enum_variant)] // one signal at a time, never stored in bulk
pub enum StreamSignal {
    Event(RunEvent),
    /// Connected again after the connection dropped (a network blip, a server restart): events
    /// the server could not keep (a crash loses the last ones it had not written) are missing, so
    /// the owner reads the stored state once.
    Reconnected,
    /// The connection is closed for good (the run is unknown or over); refetch to learn the state.
    Closed,
}

#[cfg(feature = "hydrate")]
pub use browser::RunStream;
#[cfg(not(feature = "hydrate"))]
pub use server::RunStream;

/// Where a page keeps its stream. In the browser the stream is not `Send`, so it lives in local
/// storage; on the server there is never one, and local storage would break when a request's
/// reactive owner is cleaned up on another thread.
#[cfg(feature = "hydrate")]
pub type StreamSlot = leptos::prelude::StoredValue<Option<RunStream>, leptos::prelude::LocalStorage>;
#[cfg(not(feature = "hydrate"))]
pub type StreamSlot = leptos::prelude::StoredValue<Option<RunStream>>;

pub fn new_stream_slot() -> StreamSlot {
    #[cfg(feature = "hydrate")]
    return leptos::prelude::StoredValue::new_local(None);
    #[cfg(not(feature = "hydrate"))]
    return leptos::prelude::StoredValue::new(None);
}

#[cfg(feature = "hydrate")]
mod browser {
    use std::rc::Rc;

    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;
    use web_sys::{Event, EventSource, MessageEvent};

    use super::StreamSignal;
    use strum::VariantArray;

    use crate::model::{EventKind, RunEvent};

    pub struct RunStream {
        source: EventSource,
        // Kept alive as long as the stream: dropping a closure would detach its listener.
        _listeners: Vec<Closure<dyn FnMut(Event)>>,
    }

    impl RunStream {
        pub fn open(run_id: &str, on_signal: impl Fn(StreamSignal) + 'static) -> Option<Self> {
            let url = format!("/api/runs/{}/events", encode_segment(run_id));
            let source = EventSource::new(&url).ok()?;
            let on_signal = Rc::new(on_signal);
            let mut listeners = Vec::new();
            for kind in EventKind::VARIANTS.iter().map(|k| k.as_str()) {
                let on_signal = Rc::clone(&on_signal);
                let listener = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
                    if let Some(data) = event.dyn_ref::<MessageEvent>().and_then(|m| m.data().as_string()) {
                        match RunEvent::from_sse(kind, &data) {
                            Ok(run_event) => on_signal(StreamSignal::Event(run_event)),
                            Err(error) => leptos::logging::warn!("unreadable `{kind}` event: {error}"),
                        }
                    }
                });
                if source.add_event_listener_with_callback(kind, listener.as_ref().unchecked_ref()).is_ok() {
                    listeners.push(listener);
                }
            }
            // `open` fires on every connection; all but the first are reconnections.
            let opened = std::cell::Cell::new(false);
            let on_open = Rc::clone(&on_signal);
            let listener = Closure::<dyn FnMut(Event)>::new(move |_: Event| {
                if opened.replace(true) {
                    on_open(StreamSignal::Reconnected);
                }
            });
            if source.add_event_listener_with_callback("open", listener.as_ref().unchecked_ref()).is_ok() {
                listeners.push(listener);
            }
            // EventSource's own `error` event is the connection's (no run event has that name): it
            // reconnects by itself unless the server refused the stream for good.
            let source_ref = source.clone();
            let on_closed = Rc::clone(&on_signal);
            let listener = Closure::<dyn FnMut(Event)>::new(move |_: Event| {
                if source_ref.ready_state() == EventSource::CLOSED {
                    on_closed(StreamSignal::Closed);
                }
            });
            if source.add_event_listener_with_callback("error", listener.as_ref().unchecked_ref()).is_ok() {
                listeners.push(listener);
            }
            Some(Self { source, _listeners: listeners })
        }

        pub fn close(&self) {
            self.source.close();
        }
    }

    impl Drop for RunStream {
        fn drop(&mut self) {
            self.source.close();
        }
    }

    /// Run ids are ours (uuids), but keep the URL well-formed whatever they contain.
    fn encode_segment(s: &str) -> String {
        s.chars().filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_')).collect()
    }
}

#[cfg(not(feature = "hydrate"))]
mod server {
    use super::StreamSignal;

    pub struct RunStream;

    impl RunStream {
        pub fn open(_run_id: &str, _on_signal: impl Fn(StreamSignal) + 'static) -> Option<Self> {
            None
        }

        pub fn close(&self) {}
    }
}
