//! Each client's bounds on a real SQLite file: requests waiting at once, requests a minute, and sockets
//! and long-polls held open. A refusal says which bound; a request sent again is not counted again;
//! another client is not held back by the first.

use std::num::NonZeroU32;

use serde_json::json;
use tempfile::TempDir;
use warden_db::Database;
use warden_outside::protocol::Verdict;
use warden_outside::{
    Answer, ClientFrame, ClientPolicy, DecisionInput, Error, Held, Limits, OutsideHub, Policy, SecurityAuto,
};

async fn open(dir: &TempDir, limits: Limits) -> OutsideHub {
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("warden.db").display());
    let database = Database::open(&url).await.expect("database opens");
    OutsideHub::open_with(&database, limits).await.expect("hub opens")
}

fn evaluation(id: &str, risk: &str) -> ClientFrame {
    serde_json::from_value(json!({"type": "security_evaluation", "id": id, "code": "ls", "language": "sh",
        "explanation": "why", "risk_level": risk}))
    .expect("a frame")
}

fn limits(max_pending: u64, per_minute: u32) -> Limits {
    Limits { max_pending, per_minute: NonZeroU32::new(per_minute).unwrap(), ..Limits::default() }
}

#[tokio::test]
async fn a_client_may_have_only_so_many_requests_waiting_and_decided_ones_do_not_count() {
    let dir = tempfile::tempdir().unwrap();
    let hub = open(&dir, limits(3, 100)).await;
    let flooder = hub.create_client("flooder", ClientPolicy::default()).await.unwrap().client;
    let mut waiting = Vec::new();
    for i in 0..3 {
        let Answer::Ack(ack) = hub.submit(&flooder.id, evaluation(&format!("r{i}"), "high")).await.unwrap() else {
            panic!("waits")
        };
        waiting.push(ack.request_id);
    }
    let refused = hub.submit(&flooder.id, evaluation("r3", "high")).await.unwrap_err();
    assert!(matches!(refused, Error::TooManyPending(3)), "{refused:?}");
    assert_eq!(refused.code(), "too_many_pending");
    assert!(refused.to_string().contains("3 requests waiting"), "{refused}");
    assert_eq!(refused.limited(), Some(None), "429 without Retry-After: a decision, not time, makes room");
    let frame = Error::TooManyPending(3).into_frame_error(Some("r3".into()));
    assert_eq!(frame.code, warden_outside::protocol::ErrorCode::TooManyPending);

    // Sent again, a waiting request is answered as it stands, not refused and not counted.
    assert!(matches!(hub.submit(&flooder.id, evaluation("r0", "high")).await, Ok(Answer::Ack(_))));
    // Another client is not held back.
    let other = hub.create_client("other", ClientPolicy::default()).await.unwrap().client;
    assert!(matches!(hub.submit(&other.id, evaluation("o1", "high")).await, Ok(Answer::Ack(_))));
    // A decision makes room; decided requests count against nothing.
    let approve = DecisionInput { decision: Verdict::Approved, reason: None, edited_code: None };
    hub.decide(
        &waiting[0],
        approve,
        &warden_types::person::ActingPerson {
            id: "ada".into(),
            name: "Ada".into(),
            role: warden_types::person::Role::Approver,
        },
    )
    .await
    .unwrap();
    assert!(matches!(hub.submit(&flooder.id, evaluation("r3", "high")).await, Ok(Answer::Ack(_))));
    // One a policy approves at once waits for nobody: not refused either.
    hub.set_policy(Policy { security_evaluation: SecurityAuto::Low, ..Policy::default() }).await.unwrap();
    assert!(matches!(hub.submit(&flooder.id, evaluation("r4", "low")).await, Ok(Answer::Decided(_))));
    assert!(matches!(hub.submit(&flooder.id, evaluation("r5", "high")).await, Err(Error::TooManyPending(3))));
}

#[tokio::test]
async fn a_client_may_send_only_so_many_requests_a_minute_and_is_told_when_to_try_again() {
    let dir = tempfile::tempdir().unwrap();
    let hub = open(&dir, limits(100, 5)).await;
    let fast = hub.create_client("fast", ClientPolicy::default()).await.unwrap().client;
    for i in 0..5 {
        hub.submit(&fast.id, evaluation(&format!("r{i}"), "high")).await.unwrap();
    }
    let refused = hub.submit(&fast.id, evaluation("r5", "high")).await.unwrap_err();
    let Error::RateLimited { per_minute: 5, retry_after } = refused else { panic!("{refused:?}") };
    // One more comes free every 12 s.
    assert!(retry_after.as_secs() >= 1 && retry_after.as_secs() <= 12, "{retry_after:?}");
    assert_eq!(refused.code(), "rate_limited");
    assert!(refused.to_string().contains("more than 5 requests a minute"), "{refused}");
    assert_eq!(refused.limited(), Some(Some(retry_after)));
    // A request sent again costs nothing; another client has its own minute.
    hub.submit(&fast.id, evaluation("r4", "high")).await.unwrap();
    let other = hub.create_client("other", ClientPolicy::default()).await.unwrap().client;
    hub.submit(&other.id, evaluation("o1", "high")).await.unwrap();
}

#[tokio::test]
async fn a_client_may_hold_only_so_many_sockets_and_long_polls_open() {
    let dir = tempfile::tempdir().unwrap();
    let hub = open(&dir, Limits { max_sockets: 2, max_waits: 1, ..Limits::default() }).await;
    let sockets = [hub.hold(&"a".into(), Held::Socket).unwrap(), hub.hold(&"a".into(), Held::Socket).unwrap()];
    let refused = hub.hold(&"a".into(), Held::Socket).unwrap_err();
    assert!(matches!(refused, Error::TooManyOpen { max: 2, .. }), "{refused:?}");
    assert_eq!(refused.code(), "too_many_connections");
    assert!(refused.to_string().contains("2 WebSockets open"), "{refused}");
    // Counted apart: long-polls, and other clients.
    let poll = hub.hold(&"a".into(), Held::LongPoll).unwrap();
    assert!(hub.hold(&"a".into(), Held::LongPoll).is_err());
    let _other = hub.hold(&"b".into(), Held::Socket).unwrap();
    // A socket that closes makes room.
    drop(sockets);
    drop(poll);
    let _again = [hub.hold(&"a".into(), Held::Socket).unwrap(), hub.hold(&"a".into(), Held::Socket).unwrap()];
    let _poll = hub.hold(&"a".into(), Held::LongPoll).unwrap();
}
