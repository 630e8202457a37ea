//! Helpers for the provider tests: a one-scenario script, a one-message request, one streamed turn
//! read to its end (with a guard against a hang), and the text it streamed.

use std::time::Duration;

use futures::StreamExt;
use tokio_util::sync::CancellationToken;
use warden_llm::{Provider, ProviderError, StreamEvent, TurnRequest};
use warden_testkit::{FixtureModel, Scenario, Script, Turn};
use warden_types::message::{Message, Role};

/// A guard so a broken test fails instead of hanging; far longer than any test needs.
pub const GUARD: Duration = Duration::from_secs(20);

pub fn script(when: &str, turns: Vec<Turn>) -> Script {
    Script { scenarios: vec![Scenario::new(when, turns)], default_title: None }
}

pub fn ask(text: &str) -> TurnRequest {
    TurnRequest { messages: vec![Message::text(Role::User, text)], tools: vec![] }
}

/// Every event of one streamed turn.
pub async fn run(p: &dyn Provider, req: TurnRequest) -> Vec<Result<StreamEvent, ProviderError>> {
    let stream = p.stream_turn(req, CancellationToken::new()).await.unwrap();
    tokio::time::timeout(GUARD, stream.collect::<Vec<_>>()).await.unwrap()
}

pub fn text_deltas(events: &[Result<StreamEvent, ProviderError>]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Ok(StreamEvent::TextDelta(t)) => Some(t.clone()),
            _ => None,
        })
        .collect()
}

/// A turn whose connection closes cleanly after its first token, before the API's own end of message:
/// the fixture model stalls after `tok0` and is then stopped. What the provider streamed after `tok0`.
pub async fn closed_after_first_token<P: Provider>(
    provider: impl FnOnce(&FixtureModel) -> P,
) -> Vec<Result<StreamEvent, ProviderError>> {
    let turn = Turn { repeat_tokens: Some(10), stall_after_tokens: Some(1), ..Default::default() };
    let model = FixtureModel::start(script("cut", vec![turn])).await.unwrap();
    let p = provider(&model);
    let mut stream = p.stream_turn(ask("cut"), CancellationToken::new()).await.unwrap();
    let first = tokio::time::timeout(GUARD, stream.next()).await.unwrap();
    assert_eq!(first, Some(Ok(StreamEvent::TextDelta("tok0".into()))));
    drop(model);
    tokio::time::timeout(GUARD, stream.collect::<Vec<_>>()).await.unwrap()
}
