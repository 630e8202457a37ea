//! `Retrying` over the real OpenAI-compatible provider and the scripted fixture model: overload and
//! server faults before a turn starts are tried again, authentication failures are not, Stop ends a
//! wait at once, and the last error comes back when every try failed.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use tokio_util::sync::CancellationToken;
use warden_llm::{
    OpenAiCompatible, OpenAiConfig, Provider, ProviderError, RetryPolicy, Retrying, StreamEvent, TurnRequest,
};
use warden_testkit::{FixtureModel, Scenario, Script, ScriptedError, Turn};
use warden_types::message::{Message, Role};

const GUARD: Duration = Duration::from_secs(20);

/// Short waits so the tests do not sleep; the policy's shape is the default's.
const QUICK: RetryPolicy =
    RetryPolicy { max_retries: 3, first_delay: Duration::from_millis(10), max_delay: Duration::from_millis(40) };

fn retrying(model: &FixtureModel, policy: RetryPolicy) -> Retrying<OpenAiCompatible> {
    let mut config = OpenAiConfig::new(model.base_url(), "test-model", None);
    config.idle_timeout = Duration::from_millis(300);
    Retrying::new(Arc::new(OpenAiCompatible::new(config).unwrap()), policy)
}

fn failing(status: u16, fail_first: u32) -> Script {
    let turn = Turn {
        error: Some(ScriptedError { status, message: format!("scripted {status}") }),
        fail_first,
        ..Turn::text("Worked on a later try.")
    };
    Script { scenarios: vec![Scenario::new("", vec![turn])], default_title: None }
}

fn ask() -> TurnRequest {
    TurnRequest { messages: vec![Message::text(Role::User, "hello")], tools: vec![] }
}

async fn text_of_turn(p: &dyn Provider) -> Result<String, ProviderError> {
    let stream = tokio::time::timeout(GUARD, p.stream_turn(ask(), CancellationToken::new())).await.unwrap()?;
    let events: Vec<_> = tokio::time::timeout(GUARD, stream.collect::<Vec<_>>()).await.unwrap();
    let mut text = String::new();
    for event in events {
        if let StreamEvent::TextDelta(t) = event? {
            text.push_str(&t);
        }
    }
    Ok(text)
}

#[tokio::test]
async fn overload_and_server_faults_before_the_turn_starts_are_retried_until_it_works() {
    // 529 is Anthropic's "overloaded".
    for status in [503, 529, 429] {
        let model = FixtureModel::start(failing(status, 2)).await.unwrap();
        let text = text_of_turn(&retrying(&model, QUICK)).await;
        assert_eq!(text.as_deref(), Ok("Worked on a later try."), "{status}");
        assert_eq!(model.requests().len(), 3, "{status}: two failures, then the answer");
    }
}

#[tokio::test]
async fn a_completion_is_retried_too() {
    let model = FixtureModel::start(failing(503, 2)).await.unwrap();
    let title = retrying(&model, QUICK).complete(vec![Message::text(Role::User, "name this")]).await;
    assert_eq!(title.as_deref(), Ok("Worked on a later try."));
    assert_eq!(model.requests().len(), 3);
}

#[tokio::test]
async fn a_wrong_api_key_is_not_retried() {
    let model = FixtureModel::start_with_key(failing(503, 0), "right-key").await.unwrap();
    let mut config = OpenAiConfig::new(model.base_url(), "test-model", Some("wrong-key".into()));
    config.idle_timeout = Duration::from_secs(5);
    let p = Retrying::new(Arc::new(OpenAiCompatible::new(config).unwrap()), QUICK);
    let err = text_of_turn(&p).await.unwrap_err();
    assert!(matches!(err, ProviderError::Http { status: 401, .. }), "{err:?}");
    assert_eq!(model.requests().len(), 1);
}

#[tokio::test]
async fn when_every_try_fails_the_last_error_comes_back() {
    let model = FixtureModel::start(failing(503, 0)).await.unwrap();
    let err = text_of_turn(&retrying(&model, QUICK)).await.unwrap_err();
    assert_eq!(err, ProviderError::Http { status: 503, message: "scripted 503".into() });
    assert_eq!(model.requests().len(), 4, "the first try and three retries");
}

/// The server answers 200 and then says nothing: the turn fails once the idle timeout passed and is
/// not tried again (every try would wait the whole timeout), whatever the policy allows.
#[tokio::test]
async fn a_model_that_goes_silent_before_its_first_event_is_not_retried() {
    let turn = Turn { stall_after_tokens: Some(0), ..Turn::text("never sent") };
    let model = FixtureModel::start(Script { scenarios: vec![Scenario::new("", vec![turn])], default_title: None })
        .await
        .unwrap();
    let err = text_of_turn(&retrying(&model, QUICK)).await.unwrap_err();
    assert_eq!(err, ProviderError::Silent("300 ms".into()));
    assert!(err.to_string().starts_with("The model sent nothing for 300 ms"), "{err}");
    assert_eq!(model.requests().len(), 1, "one try: the policy allowed three more");
}

/// A stream that breaks before its first event (a connection closed at once) is still retried.
#[tokio::test]
async fn a_stream_that_breaks_before_its_first_event_is_retried() {
    let turn = Turn { close_after_events: Some(0), ..Turn::text("never sent") };
    let model = FixtureModel::start(Script { scenarios: vec![Scenario::new("", vec![turn])], default_title: None })
        .await
        .unwrap();
    let policy = RetryPolicy { max_retries: 1, ..QUICK };
    let err = text_of_turn(&retrying(&model, policy)).await.unwrap_err();
    assert!(matches!(err, ProviderError::Stream(_)), "{err:?}");
    assert_eq!(model.requests().len(), 2);
}

#[tokio::test]
async fn an_error_after_the_answer_began_is_not_retried() {
    let turn = Turn { repeat_tokens: Some(10), stall_after_tokens: Some(2), ..Default::default() };
    let model = FixtureModel::start(Script { scenarios: vec![Scenario::new("", vec![turn])], default_title: None })
        .await
        .unwrap();
    let p = retrying(&model, QUICK);
    let stream = p.stream_turn(ask(), CancellationToken::new()).await.unwrap();
    let events: Vec<_> = tokio::time::timeout(GUARD, stream.collect::<Vec<_>>()).await.unwrap();
    assert_eq!(events[0], Ok(StreamEvent::TextDelta("tok0".into())));
    assert!(matches!(events.last(), Some(Err(ProviderError::Silent(_)))), "{events:?}");
    assert_eq!(model.requests().len(), 1);
}

#[tokio::test]
async fn stop_during_the_wait_between_tries_ends_it_with_cancelled() {
    let model = FixtureModel::start(failing(503, 0)).await.unwrap();
    // A wait far longer than the guard: only the cancellation can end this test in time.
    let policy =
        RetryPolicy { max_retries: 3, first_delay: Duration::from_secs(600), max_delay: Duration::from_secs(600) };
    let p = retrying(&model, policy);
    let cancel = CancellationToken::new();
    let turn = tokio::spawn({
        let cancel = cancel.clone();
        async move { p.stream_turn(ask(), cancel).await.err() }
    });
    tokio::time::timeout(GUARD, async {
        while model.requests().is_empty() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .unwrap();
    cancel.cancel();
    let outcome = tokio::time::timeout(GUARD, turn).await.unwrap().unwrap();
    assert_eq!(outcome, Some(ProviderError::Cancelled));
    assert_eq!(model.requests().len(), 1);
}
