//! The hub on a real SQLite file: what is stored, what a second decision or a reused id gets, what a
//! client that was away (or a hub reopened on the same file) receives, and timeouts.

use std::time::Duration;
use warden_types::id::OutsideRequestId;

use serde_json::json;
use tempfile::TempDir;
use warden_db::Database;
use warden_outside::protocol::{DeciderKind, RiskLevel, Verdict};
use warden_outside::{
    Answer, ClientFrame, ClientPolicy, CodeResponseAuto, DecisionInput, Error, InboxEvent, OutsideHub, Policy,
    RequestQuery, RequestStatus, SecurityAuto, Timeouts, Wake,
};

async fn open(dir: &TempDir) -> OutsideHub {
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("warden.db").display());
    let database = Database::open(&url).await.expect("database opens");
    // These tests send hundreds of requests from one client: past its bounds (tested in `quotas`).
    let limits = warden_outside::Limits {
        max_pending: u64::MAX,
        per_minute: std::num::NonZeroU32::MAX,
        ..warden_outside::Limits::default()
    };
    OutsideHub::open_with(&database, limits).await.expect("hub opens")
}

fn evaluation(id: &str, code: &str, risk: &str) -> ClientFrame {
    serde_json::from_value(json!({"type": "security_evaluation", "id": id, "code": code, "language": "sh",
        "explanation": "why", "risk_level": risk}))
    .expect("a frame")
}

/// The person deciding in these tests.
fn decider() -> warden_types::person::ActingPerson {
    warden_types::person::ActingPerson {
        id: "ada".into(),
        name: "Ada".into(),
        role: warden_types::person::Role::Approver,
    }
}

fn approve() -> DecisionInput {
    DecisionInput { decision: Verdict::Approved, reason: None, edited_code: None }
}

fn ack_id(answer: Answer) -> OutsideRequestId {
    match answer {
        Answer::Ack(ack) => ack.request_id,
        Answer::Decided(d) => panic!("expected an ack, got {d:?}"),
    }
}

#[tokio::test]
async fn a_repeated_id_is_answered_from_the_stored_request_and_never_stored_twice() {
    let dir = tempfile::tempdir().unwrap();
    let hub = open(&dir).await;
    let client = hub.create_client("runner", ClientPolicy::default()).await.unwrap().client;
    let first = ack_id(hub.submit(&client.id, evaluation("r1", "ls", "low")).await.unwrap());
    let again = ack_id(hub.submit(&client.id, evaluation("r1", "ls", "low")).await.unwrap());
    assert_eq!(first, again);
    hub.decide(&first, approve(), &decider()).await.unwrap();
    match hub.submit(&client.id, evaluation("r1", "ls", "low")).await.unwrap() {
        Answer::Decided(d) => assert_eq!((d.request_id.as_str(), d.decision), (first.as_str(), Verdict::Approved)),
        other => panic!("expected the decision, got {other:?}"),
    }
    assert_eq!(hub.list(&RequestQuery::default()).await.unwrap().len(), 1);
}

#[tokio::test]
async fn a_reused_id_with_different_code_is_refused_not_answered_with_the_old_approval() {
    let dir = tempfile::tempdir().unwrap();
    let hub = open(&dir).await;
    let client = hub.create_client("runner", ClientPolicy::default()).await.unwrap().client;
    let id = ack_id(hub.submit(&client.id, evaluation("r1", "ls", "low")).await.unwrap());
    hub.decide(&id, approve(), &decider()).await.unwrap();
    let err = hub.submit(&client.id, evaluation("r1", "rm -rf /", "low")).await.unwrap_err();
    assert!(matches!(err, Error::IdReused(_)), "{err:?}");
    // Another client may use the same id for its own request.
    let other = hub.create_client("other", ClientPolicy::default()).await.unwrap().client;
    ack_id(hub.submit(&other.id, evaluation("r1", "rm -rf /", "low")).await.unwrap());
}

#[tokio::test]
async fn only_the_first_decision_counts() {
    let dir = tempfile::tempdir().unwrap();
    let hub = open(&dir).await;
    let client = hub.create_client("runner", ClientPolicy::default()).await.unwrap().client;
    let id = ack_id(hub.submit(&client.id, evaluation("r1", "ls", "high")).await.unwrap());
    let rejected = DecisionInput { decision: Verdict::Rejected, reason: Some("no".into()), edited_code: None };
    let decided = hub.decide(&id, rejected, &decider()).await.unwrap();
    assert_eq!(decided.status, RequestStatus::Rejected);
    assert!(matches!(hub.decide(&id, approve(), &decider()).await.unwrap_err(), Error::AlreadyDecided(_)));
    assert!(matches!(hub.decide(&"nope".into(), approve(), &decider()).await.unwrap_err(), Error::NotFound { .. }));
    assert_eq!(hub.request(&id).await.unwrap().status, RequestStatus::Rejected);
}

#[tokio::test]
async fn edited_code_goes_out_with_the_approval_and_only_for_code() {
    let dir = tempfile::tempdir().unwrap();
    let hub = open(&dir).await;
    let client = hub.create_client("runner", ClientPolicy::default()).await.unwrap().client;
    let id = ack_id(hub.submit(&client.id, evaluation("r1", "rm -rf build", "medium")).await.unwrap());
    let edited =
        DecisionInput { decision: Verdict::Approved, reason: None, edited_code: Some("rm -rf build/tmp".into()) };
    let request = hub.decide(&id, edited, &decider()).await.unwrap();
    assert_eq!(request.decision_frame().unwrap().edited_code.as_deref(), Some("rm -rf build/tmp"));

    let output: ClientFrame =
        serde_json::from_value(json!({"type": "code_response", "id": "r2", "follows": "r1", "stdout": "done",
            "exit_code": 0}))
        .unwrap();
    let id = ack_id(hub.submit(&client.id, output).await.unwrap());
    assert_eq!(hub.request(&id).await.unwrap().follows.as_ref(), Some(&request.id));
    let edited = DecisionInput { decision: Verdict::Approved, reason: None, edited_code: Some("x".into()) };
    assert!(matches!(hub.decide(&id, edited, &decider()).await.unwrap_err(), Error::Invalid(_)));
}

#[tokio::test]
async fn a_code_response_following_an_unknown_request_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let hub = open(&dir).await;
    let client = hub.create_client("runner", ClientPolicy::default()).await.unwrap().client;
    let output: ClientFrame =
        serde_json::from_value(json!({"type": "code_response", "id": "r2", "follows": "never-sent"})).unwrap();
    assert!(matches!(hub.submit(&client.id, output).await.unwrap_err(), Error::UnknownRequest(_)));
    assert!(hub.list(&RequestQuery::default()).await.unwrap().is_empty());
}

#[tokio::test]
async fn automatic_decisions_are_stored_with_the_rule_and_client_overrides_apply() {
    let dir = tempfile::tempdir().unwrap();
    let hub = open(&dir).await;
    hub.set_policy(Policy { security_evaluation: SecurityAuto::Low, ..Policy::default() }).await.unwrap();
    let plain = hub.create_client("plain", ClientPolicy::default()).await.unwrap().client;
    let trusted = ClientPolicy {
        security_evaluation: Some(SecurityAuto::Medium),
        code_response: Some(CodeResponseAuto::OnSuccess),
        ..ClientPolicy::default()
    };
    let trusted = hub.create_client("trusted", trusted).await.unwrap().client;

    let Answer::Decided(d) = hub.submit(&plain.id, evaluation("a", "ls", "low")).await.unwrap() else {
        panic!("low risk is approved by the global policy")
    };
    assert_eq!(d.decided_by.kind, DeciderKind::Policy);
    assert!(d.decided_by.detail.starts_with("global policy"), "{}", d.decided_by.detail);
    let stored = hub.request(&d.request_id).await.unwrap();
    assert_eq!(
        (stored.status, stored.decision.unwrap().decided_by.kind),
        (RequestStatus::Approved, DeciderKind::Policy)
    );

    ack_id(hub.submit(&plain.id, evaluation("b", "make", "medium")).await.unwrap());
    let Answer::Decided(d) = hub.submit(&trusted.id, evaluation("b", "make", "medium")).await.unwrap() else {
        panic!("the client's override approves medium risk")
    };
    assert!(d.decided_by.detail.starts_with("client policy"), "{}", d.decided_by.detail);

    // The policy is kept: a reopened hub applies it.
    drop(hub);
    let hub = open(&dir).await;
    assert_eq!(hub.policy().security_evaluation, SecurityAuto::Low);
}

#[tokio::test]
async fn a_decision_made_while_the_client_was_away_is_missed_until_delivered_also_after_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let hub = open(&dir).await;
    let client = hub.create_client("runner", ClientPolicy::default()).await.unwrap().client;
    let id = ack_id(hub.submit(&client.id, evaluation("r1", "ls", "low")).await.unwrap());
    hub.decide(&id, approve(), &decider()).await.unwrap();
    hub.shutdown();
    drop(hub);

    let hub = open(&dir).await;
    let missed = hub.missed(&client.id).await.unwrap();
    assert_eq!(missed.len(), 1);
    assert_eq!((missed[0].id.as_str(), missed[0].request_id.as_str()), ("r1", id.as_str()));
    hub.mark_delivered(&id).await.unwrap();
    assert!(hub.missed(&client.id).await.unwrap().is_empty());
}

#[tokio::test]
async fn missed_decisions_are_read_in_pages_of_500_and_paging_ends_even_when_none_is_marked_delivered() {
    let dir = tempfile::tempdir().unwrap();
    let hub = open(&dir).await;
    hub.set_policy(Policy { security_evaluation: SecurityAuto::Low, ..Policy::default() }).await.unwrap();
    let client = hub.create_client("runner", ClientPolicy::default()).await.unwrap();
    // Approved on arrival and never delivered (nothing carried them to the client).
    let total = 1001;
    for n in 0..total {
        let answer = hub.submit(&client.client.id, evaluation(&format!("r{n}"), "ls", "low")).await.unwrap();
        assert!(matches!(answer, Answer::Decided(_)), "{answer:?}");
    }
    let other = hub.create_client("other", ClientPolicy::default()).await.unwrap();
    assert_eq!(hub.missed(&client.client.id).await.unwrap().len(), 500, "one read is at most a page");

    let connection = hub.connect(&hub.authenticate(&client.token).await.unwrap());
    let mut pages = connection.missed_pages();
    let mut sizes = Vec::new();
    let mut ids = Vec::new();
    while let Some(page) = pages.next_page().await {
        sizes.push(page.len());
        for frame in page {
            let warden_outside::ServerFrame::Decision(decision) = frame else { panic!("{frame:?}") };
            ids.push(decision.id);
        }
    }
    assert_eq!(sizes, [500, 500, 1], "all of them, a page at a time, each once");
    let expected: std::collections::BTreeSet<String> = (0..total).map(|n| format!("r{n}")).collect();
    assert_eq!(ids.iter().cloned().collect::<std::collections::BTreeSet<_>>(), expected);
    assert_eq!(ids.len(), total);
    assert!(hub.missed(&other.client.id).await.unwrap().is_empty(), "another client's are not its");
}

#[tokio::test]
async fn a_connection_wakes_for_its_clients_decisions_and_closes_when_revoked() {
    let dir = tempfile::tempdir().unwrap();
    let hub = open(&dir).await;
    let client = hub.create_client("runner", ClientPolicy::default()).await.unwrap();
    let authenticated = hub.authenticate(&client.token).await.unwrap();
    let mut connection = hub.connect(&authenticated);
    let answer = connection
        .handle(br#"{"type":"Security Evaluation Request","id":"r1","code":"ls","explanation":"x","risk_level":"low"}"#)
        .await;
    let warden_outside::ServerFrame::Ack(ack) = answer else { panic!("expected an ack, got {answer:?}") };
    hub.decide(&ack.request_id, approve(), &decider()).await.unwrap();
    assert_eq!(connection.wake().await, Wake::Decided);
    let missed = connection.missed().await;
    assert_eq!(missed.len(), 1);
    connection.delivered(&missed[0]).await;
    assert!(connection.missed().await.is_empty());

    hub.revoke_client(&client.client.id).await.unwrap();
    assert_eq!(connection.wake().await, Wake::Revoked);
    assert!(matches!(hub.authenticate(&client.token).await.unwrap_err(), Error::Unauthorized));
    let refused = connection.handle(br#"{"type":"code_response","id":"r2","stdout":""}"#).await;
    assert!(
        matches!(refused, warden_outside::ServerFrame::Error(ref e) if e.id.as_deref() == Some("r2")),
        "{refused:?}"
    );
}

#[tokio::test]
async fn a_wrong_token_authenticates_nobody() {
    let dir = tempfile::tempdir().unwrap();
    let hub = open(&dir).await;
    let client = hub.create_client("runner", ClientPolicy::default()).await.unwrap();
    assert!(client.token.starts_with("wo_") && client.token.len() == 67);
    assert!(!format!("{client:?}").contains(&client.token), "Debug shows no token");
    for wrong in ["", "wo_", &client.token[..66], &format!("{}0", client.token)] {
        assert!(matches!(hub.authenticate(wrong).await.unwrap_err(), Error::Unauthorized), "{wrong}");
    }
}

#[tokio::test]
async fn an_unanswered_request_times_out_as_rejected_by_timeout_and_the_inbox_hears_it() {
    let dir = tempfile::tempdir().unwrap();
    let hub = open(&dir).await;
    let mut inbox = hub.subscribe();
    let quick =
        ClientPolicy { timeouts: Timeouts { default_secs: Some(1), ..Timeouts::default() }, ..ClientPolicy::default() };
    let client = hub.create_client("runner", quick).await.unwrap().client;
    let id = ack_id(hub.submit(&client.id, evaluation("r1", "ls", "low")).await.unwrap());
    assert!(matches!(inbox.recv().await.unwrap(), InboxEvent::Pending { request } if request.id == id));

    let answer = hub.wait_decision(&client.id, &id, Duration::from_secs(30)).await.unwrap();
    let Answer::Decided(d) = answer else { panic!("expected the timeout's decision, got {answer:?}") };
    assert_eq!((d.decision, d.decided_by.kind), (Verdict::Rejected, DeciderKind::Timeout));
    assert_eq!(d.decided_by.detail, "no decision within 1 s");
    assert_eq!(hub.request(&id).await.unwrap().status, RequestStatus::Expired);
    assert!(matches!(inbox.recv().await.unwrap(), InboxEvent::Decided { request } if request.id == id));
    assert!(matches!(hub.decide(&id, approve(), &decider()).await.unwrap_err(), Error::AlreadyDecided(_)));
}

#[tokio::test]
async fn a_deadline_that_passed_while_warden_was_down_expires_when_it_starts() {
    let dir = tempfile::tempdir().unwrap();
    let hub = open(&dir).await;
    let quick =
        ClientPolicy { timeouts: Timeouts { low_secs: Some(1), ..Timeouts::default() }, ..ClientPolicy::default() };
    let client = hub.create_client("runner", quick).await.unwrap().client;
    // The deadline task is stopped before the deadline: this hub never expires anything.
    hub.shutdown();
    let id = ack_id(hub.submit(&client.id, evaluation("r1", "ls", "low")).await.unwrap());
    drop(hub);
    tokio::time::sleep(Duration::from_millis(1500)).await;

    let hub = open(&dir).await;
    let answer = hub.wait_decision(&client.id, &id, Duration::from_secs(30)).await.unwrap();
    assert!(matches!(answer, Answer::Decided(ref d) if d.decided_by.kind == DeciderKind::Timeout), "{answer:?}");
}

#[tokio::test]
async fn extending_a_request_moves_its_deadline_later() {
    let dir = tempfile::tempdir().unwrap();
    let hub = open(&dir).await;
    let client = hub.create_client("runner", ClientPolicy::default()).await.unwrap().client;
    let id = ack_id(hub.submit(&client.id, evaluation("r1", "ls", "high")).await.unwrap());
    let before = hub.request(&id).await.unwrap().expires_at;
    let after = hub.extend(&id, Duration::from_secs(300), &decider()).await.unwrap().expires_at;
    assert!(after > before, "{after} > {before}");
    assert_eq!(hub.request(&id).await.unwrap().risk, Some(RiskLevel::High));
}

#[tokio::test]
async fn the_pending_count_counts_every_waiting_request_not_a_page_of_them() {
    let dir = tempfile::tempdir().unwrap();
    let hub = open(&dir).await;
    let client = hub.create_client("runner", ClientPolicy::default()).await.unwrap();
    let mut first = None;
    for n in 0..503 {
        let id = ack_id(hub.submit(&client.client.id, evaluation(&format!("c{n}"), "ls", "high")).await.unwrap());
        first.get_or_insert(id);
    }
    assert_eq!(hub.count(RequestStatus::Pending).await.unwrap(), 503, "more than a listed page");
    hub.decide(&first.unwrap(), approve(), &decider()).await.unwrap();
    assert_eq!(hub.count(RequestStatus::Pending).await.unwrap(), 502);
    assert_eq!(hub.count(RequestStatus::Approved).await.unwrap(), 1);
}

#[tokio::test]
async fn clients_registered_before_people_are_adopted_and_their_requests_asked_by_the_adopter() {
    let dir = tempfile::tempdir().unwrap();
    let hub = open(&dir).await;
    let old = hub.create_client("old runner", ClientPolicy::default()).await.unwrap().client;
    assert_eq!(old.created_by, None);
    let member = warden_outside::Manager { person: "ada".into(), role: warden_types::person::Role::Member };
    let ada = hub.create_client_of(&member, "ada's runner", ClientPolicy::default()).await.unwrap().client;

    assert_eq!(hub.adopt_unowned_clients(&"olga".into()).await.unwrap(), 1);
    assert_eq!(hub.adopt_unowned_clients(&"olga".into()).await.unwrap(), 0, "once adopted, kept");
    assert_eq!(hub.client(&old.id).await.unwrap().created_by.map(String::from).as_deref(), Some("olga"));
    assert_eq!(hub.client(&ada.id).await.unwrap().created_by.map(String::from).as_deref(), Some("ada"));
    let id = ack_id(hub.submit(&old.id, evaluation("r1", "ls", "low")).await.unwrap());
    assert_eq!(hub.request(&id).await.unwrap().asked_by.map(String::from).as_deref(), Some("olga"));

    // A member sees their own clients only; a policy of its own is refused them.
    let theirs = hub.clients_managed_by(&member).await.unwrap();
    assert_eq!(theirs.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["ada's runner"]);
    assert!(matches!(hub.revoke_client_as(&member, &old.id).await.unwrap_err(), Error::NotFound { .. }));
    let trusting = ClientPolicy {
        security_evaluation: Some(warden_outside::policy::SecurityAuto::High),
        ..ClientPolicy::default()
    };
    assert!(matches!(hub.create_client_of(&member, "auto", trusting).await.unwrap_err(), Error::Forbidden(_)));
}

#[tokio::test]
async fn a_coding_agents_prompt_is_routed_as_one_and_by_its_tool_a_clients_own_word_for_it_is_not_taken() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("warden.db").display());
    let database = Database::open(&url).await.expect("database opens");
    let hub = OutsideHub::open(&database).await.unwrap();
    let people = warden_people::People::open(&database).await.unwrap();
    let policies = warden_policies::Policies::open(&database).await.unwrap();
    hub.route_by(policies.clone(), people.clone());
    let owner = people.founding_owner().await.unwrap();
    let rule = warden_types::policy::PolicyInput {
        name: "Coding agents' shells".into(),
        matches: warden_types::policy::PolicyMatch {
            source: Some(warden_types::policy::Source::CodingAgent),
            tool: Some("Bash".into()),
            ..Default::default()
        },
        approvers: warden_types::policy::Approvers { people: vec![owner.id.clone()], roles: vec![] },
        quorum: 1,
        self_approval: Some(true),
        timeout_secs: Some(90),
    };
    policies.create(rule).await.unwrap();
    let manager = warden_outside::Manager { person: owner.id.clone(), role: owner.role };
    let client = hub.create_client_of(&manager, "claude", ClientPolicy::default()).await.unwrap().client;
    // What Warden's own permission-prompt endpoint makes of Claude Code's Bash call.
    let prompt = warden_outside::PermissionPrompt {
        tool_name: "Bash".into(),
        input: serde_json::from_value(json!({"command": "make deploy"})).unwrap(),
        tool_use_id: Some("toolu_1".into()),
    };
    let frame = || ClientFrame::SecurityEvaluation(prompt.to_request("p1".into()));
    let source = warden_types::policy::Source::CodingAgent;
    let id = ack_id(hub.submit_from(&client.id, frame(), source).await.unwrap());
    let routed = hub.request(&id).await.unwrap();
    let route = routed.route.expect("routed");
    assert_eq!(route.policy.map(|p| p.name).as_deref(), Some("Coding agents' shells"));
    assert_eq!((route.timeout_secs, route.requester.map(|r| r.id)), (Some(90), Some(owner.id.clone())));
    // The same frame sent by the client itself is an outside client's request: that policy does not match.
    let as_client = ClientFrame::SecurityEvaluation(prompt.to_request("p2".into()));
    let id = ack_id(hub.submit(&client.id, as_client).await.unwrap());
    assert_eq!(hub.request(&id).await.unwrap().route.expect("routed").policy, None);
}
