//! Reading a run's event stream in a test: up to the event awaited, with a guard so a hung run fails
//! the test instead of holding it up. Generic over the event, so the engine's tests and the built-in
//! model's (`local/tests`) share it without the test kit depending on the engine.

use std::time::Duration;

use futures::{Stream, StreamExt};

/// Reads `events` until one satisfies `until`; returns all read so far, that one last. Fails the test
/// (naming each event seen by `kind`) when the stream ends first or `guard` passes: the guard only
/// stops a hung test; it measures nothing.
pub async fn read_until<T>(
    events: impl Stream<Item = T>,
    guard: Duration,
    until: impl Fn(&T) -> bool,
    kind: impl Fn(&T) -> String,
) -> Vec<T> {
    let mut events = std::pin::pin!(events);
    let mut seen = Vec::new();
    let read = async {
        while let Some(event) = events.next().await {
            let stop = until(&event);
            seen.push(event);
            if stop {
                return true;
            }
        }
        false
    };
    let found = tokio::time::timeout(guard, read).await;
    let kinds: Vec<String> = seen.iter().map(&kind).collect();
    assert!(matches!(found, Ok(true)), "the awaited event never came; saw: {kinds:#?}");
    seen
}
