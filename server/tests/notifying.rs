//! Notifications end to end, over real sockets to the test kit's receivers (an SMTP server, a webhook
//! receiver that checks the signature, a Web Push endpoint that decrypts): a request routed to an approver
//! reaches each of their channels with who asks, what, the risk, the time left and links of their own; the
//! requester and those it is not routed to get nothing; a link from the mail decides as that approver; the
//! delivery log says sent, delivered (the channel's answer) and opened.

use std::time::Duration;

use leptos::prelude::LeptosOptions;
use reqwest::header::ORIGIN;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use warden_engine::config::Config;
use warden_notify::{ChannelConfig, ChannelInput, ChannelOwner};
use warden_testkit::notify::NotifyFixture;
use warden_types::channel::{SmtpInput, SmtpSecurity};
use warden_types::id::{OutsideRequestId, PersonId};
use warden_types::notification::RequestRef;
use warden_types::person::Role;

use crate::common::outside::{ask, connect, evaluation, next_frame};
use crate::common::people::signed_in_as;
use crate::common::{self, anonymous, send_json, Served};

const WAIT: Duration = Duration::from_secs(20);

async fn channel(served: &Served, person: &PersonId, name: &str, config: ChannelConfig) {
    let input = ChannelInput { name: name.into(), config };
    served.state.notifier.channels().create(&ChannelOwner::Person(person.clone()), person, &input).await.unwrap();
}

/// The owner's SMTP server: the fixture's, without TLS.
async fn mail_through(served: &Served, fixture: &NotifyFixture) {
    let smtp = SmtpInput {
        host: "127.0.0.1".into(),
        port: fixture.smtp_port(),
        security: SmtpSecurity::None,
        user: None,
        password: None,
        from: "Warden <warden@example.test>".into(),
    };
    served.state.notifier.set_smtp(&smtp).await.unwrap();
}

/// A Web Push channel on the fixture's push service.
fn push_to(fixture: &NotifyFixture) -> ChannelConfig {
    let subscription = fixture.subscription(false);
    ChannelConfig::WebPush {
        endpoint: subscription.endpoint,
        p256dh: subscription.keys.p256dh,
        auth: subscription.keys.auth,
    }
}

/// The link of `intent` a message carries (a webhook's JSON lists them).
fn link_in(json: &Value, intent: &str) -> String {
    json["links"].as_array().unwrap().iter().find(|l| l["intent"] == intent).unwrap()["url"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn a_routed_request_reaches_each_channel_of_its_approver_and_a_mailed_link_decides_as_them() {
    let fixture = NotifyFixture::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let served =
        common::serve_app(Config::with_data_dir(dir.path()), LeptosOptions::builder().output_name("warden").build())
            .await;
    let rule = json!({"name": "Bob decides commands", "match": {"source": "outside_client", "risk_at_least": "medium"},
                      "approvers": {"roles": ["approver"]}, "quorum": 1});
    let (status, policy) =
        send_json(&common::client(), Method::POST, format!("{}/api/policies", served.base), Some(rule)).await;
    assert_eq!(status, StatusCode::CREATED, "{policy}");
    mail_through(&served, &fixture).await;

    let (ada, ada_cookie) = signed_in_as(&served, Role::Member, "ada").await;
    let (bob, bob_cookie) = signed_in_as(&served, Role::Approver, "bob").await;
    let (cy, cy_cookie) = signed_in_as(&served, Role::Viewer, "cy").await;
    let hook = |secret: &str| ChannelConfig::Webhook { url: fixture.url("/webhook"), secret: Some(secret.into()) };
    channel(&served, &bob, "Bob's hook", hook(fixture.webhook_secret())).await;
    channel(&served, &bob, "Bob's mail", ChannelConfig::Email { address: "bob@example.test".into() }).await;
    channel(&served, &bob, "Bob's phone", push_to(&fixture)).await;
    // The requester and a viewer have channels too: the request is not theirs to decide.
    channel(&served, &ada, "Ada's hook", hook(fixture.webhook_secret())).await;
    channel(&served, &cy, "Cy's mail", ChannelConfig::Email { address: "cy@example.test".into() }).await;

    let response = anonymous()
        .post(format!("{}/api/outside/clients", served.base))
        .header(reqwest::header::COOKIE, &ada_cookie)
        .header(ORIGIN, &served.base)
        .json(&json!({ "name": "ada-runner" }))
        .send()
        .await
        .unwrap();
    let token = response.json::<Value>().await.unwrap()["token"].as_str().unwrap().to_string();
    let mut socket = connect(&served.base, &token).await;
    let ack = ask(&mut socket, &evaluation("r1", "rm -rf build", "high")).await;
    let id = OutsideRequestId::from(ack["request_id"].as_str().unwrap());

    let hooked = fixture.next("webhook", 0, WAIT).await.expect("Bob's webhook");
    assert_eq!(hooked.body["signature_verified"], true, "{}", hooked.body);
    let json = &hooked.body["json"];
    assert_eq!(json["title"], "Approval needed: Security evaluation", "{json}");
    assert_eq!(json["asked_by"], "ada (member)", "{json}");
    assert_eq!(json["summary"], "runs rm -rf build", "{json}");
    assert_eq!(json["risk"], "high", "{json}");
    assert!(json["time_left"].as_str().unwrap().starts_with("Expires in"), "{json}");
    let mailed = fixture.next("email", 0, WAIT).await.expect("Bob's mail");
    assert_eq!(mailed.body["envelope_to"], json!(["bob@example.test"]), "{}", mailed.body);
    let text = mailed.body["text"].as_str().unwrap();
    assert!(text.contains("ada (member)") && text.contains("runs rm -rf build"), "{text}");
    let pushed = fixture.next("web_push", 0, WAIT).await.expect("Bob's push");
    assert!(pushed.body["payload"].to_string().contains("Security evaluation"), "{}", pushed.body);

    // Each message has links of its own; the mail's approve link, opened by a scanner first, still works.
    let approve = text
        .lines()
        .find_map(|line| line.strip_prefix("Approve…: "))
        .expect("an approve link in the mail")
        .trim()
        .to_string();
    assert_ne!(approve, link_in(json, "approve"), "each message has its own links");
    let log = served.state.reach.links.for_request(&RequestRef::Outside(id.clone())).await.unwrap();
    assert_eq!(log.len(), 6, "two links for each of Bob's three channels: {log:?}");
    assert!(log.iter().all(|l| l.person == bob));
    let scanned = anonymous().get(&approve).send().await.unwrap().text().await.unwrap();
    assert!(scanned.contains("rm -rf build"), "{scanned}");
    assert_eq!(served.state.outside.request(&id).await.unwrap().status.to_string(), "pending");

    let page = anonymous().get(&approve).send().await.unwrap().text().await.unwrap();
    let start = page.find(r#"name="shown" value=""#).unwrap() + r#"name="shown" value=""#.len();
    let shown = &page[start..start + 64];
    let tapped =
        anonymous().post(&approve).header(ORIGIN, &served.base).form(&[("shown", shown)]).send().await.unwrap();
    assert_eq!(tapped.status(), StatusCode::OK);
    let decision = next_frame(&mut socket).await;
    assert_eq!(
        decision["decided_by"]["detail"], "approved by bob (by link) (policy “Bob decides commands”)",
        "{decision}"
    );

    // What was sent to whom: Bob's three, delivered with the channel's answer; the webhook's opened.
    let sent = served.state.reach.deliveries.for_request(&RequestRef::Outside(id.clone())).await.unwrap();
    assert_eq!(sent.len(), 3, "{sent:?}");
    assert!(sent.iter().all(|n| n.person_id.as_ref() == Some(&bob) && n.delivered_at.is_some()), "{sent:?}");
    let by_kind = |kind: &str| sent.iter().find(|n| n.channel_kind == kind).unwrap().clone();
    assert_eq!(by_kind("webhook").state(), "delivered");
    assert_eq!(by_kind("email").state(), "opened");
    assert!(by_kind("email").detail.unwrap().starts_with("250 2.0.0 Ok: queued as"));
    assert_eq!(fixture.count("webhook"), 1, "Ada's hook got nothing");

    // The same list by the API: for Bob (routed to him) and the owner; a viewer gets 404, a stranger 401.
    let path = format!("{}/api/outside/requests/{id}/notifications", served.base);
    let as_cookie = |cookie: &str| anonymous().get(&path).header(reqwest::header::COOKIE, cookie.to_string()).send();
    let listed: Value = as_cookie(&bob_cookie).await.unwrap().json().await.unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 3, "{listed}");
    assert_eq!(listed[0]["person_name"], "bob", "{listed}");
    let (status, _) = send_json(&common::client(), Method::GET, path.clone(), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(as_cookie(&cy_cookie).await.unwrap().status(), StatusCode::NOT_FOUND);
    assert_eq!(anonymous().get(&path).send().await.unwrap().status(), StatusCode::UNAUTHORIZED);
    assert_eq!(fixture.count("email"), 1, "Cy's mail got nothing");
}

fn percentile(sorted: &[Duration], p: usize) -> Duration {
    sorted[((sorted.len() * p).div_ceil(100)).saturating_sub(1).min(sorted.len() - 1)]
}

/// Measures (asserts nothing about time): from a client's request to each of its approver's channels having
/// the message at the receivers, and from the tap on a link's page to the client holding the decision, p50
/// and p95 over 30 requests. Run with `cargo test -p warden-server --test integration -- --ignored
/// --nocapture time_from`; the figures are in docs/PERFORMANCE.md.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: run with --ignored --nocapture"]
async fn time_from_a_request_to_each_channel_and_from_the_tap_to_the_decision() {
    const ROUNDS: usize = 30;
    let fixture = NotifyFixture::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let served =
        common::serve_app(Config::with_data_dir(dir.path()), LeptosOptions::builder().output_name("warden").build())
            .await;
    let rule = json!({"name": "Bob decides", "match": {"source": "outside_client"}, "approvers": {"roles": ["approver"]}, "quorum": 1});
    send_json(&common::client(), Method::POST, format!("{}/api/policies", served.base), Some(rule)).await;
    mail_through(&served, &fixture).await;
    let (bob, _) = signed_in_as(&served, Role::Approver, "bob").await;
    let kinds = [
        (
            "webhook",
            ChannelConfig::Webhook { url: fixture.url("/webhook"), secret: Some(fixture.webhook_secret().into()) },
        ),
        ("slack", ChannelConfig::Slack { url: fixture.url("/slack/T/B/x") }),
        ("discord", ChannelConfig::Discord { url: fixture.url("/discord/1/x") }),
        ("ntfy", ChannelConfig::Ntfy { server: fixture.url("/ntfy"), topic: "bench".into(), token: None }),
        ("email", ChannelConfig::Email { address: "bob@example.test".into() }),
        ("web_push", push_to(&fixture)),
    ];
    for (kind, config) in &kinds {
        channel(&served, &bob, kind, config.clone()).await;
    }
    let (_, owner_cookie) = signed_in_as(&served, Role::Owner, "owner").await;
    let response = anonymous()
        .post(format!("{}/api/outside/clients", served.base))
        .header(reqwest::header::COOKIE, &owner_cookie)
        .header(ORIGIN, &served.base)
        .json(&json!({ "name": "bench" }))
        .send()
        .await
        .unwrap();
    let token = response.json::<Value>().await.unwrap()["token"].as_str().unwrap().to_string();
    let mut socket = connect(&served.base, &token).await;

    let mut to_channel: Vec<Vec<Duration>> = vec![Vec::new(); kinds.len()];
    let mut tap_to_decision = Vec::new();
    for round in 0..ROUNDS {
        let asked = std::time::Instant::now();
        ask(&mut socket, &evaluation(&format!("r{round}"), "rm -rf build", "high")).await;
        for (i, (kind, _)) in kinds.iter().enumerate() {
            let got = fixture.next(kind, round, WAIT).await.expect("delivered");
            to_channel[i].push(got.arrived.unwrap().duration_since(asked));
        }
        let hooked = fixture.received().into_iter().filter(|r| r.channel == "webhook").nth(round).unwrap();
        let approve = link_in(&hooked.body["json"], "approve");
        let page = anonymous().get(&approve).send().await.unwrap().text().await.unwrap();
        let start = page.find(r#"name="shown" value=""#).unwrap() + r#"name="shown" value=""#.len();
        let shown = page[start..start + 64].to_string();
        let tapped = std::time::Instant::now();
        anonymous()
            .post(&approve)
            .header(ORIGIN, &served.base)
            .form(&[("shown", shown.as_str())])
            .send()
            .await
            .unwrap();
        let decision = next_frame(&mut socket).await;
        tap_to_decision.push(tapped.elapsed());
        assert_eq!(decision["decision"], "approved");
    }
    for (i, (kind, _)) in kinds.iter().enumerate() {
        let mut times = to_channel[i].clone();
        times.sort();
        println!(
            "request -> {kind:8} at the receiver: p50 {:?}, p95 {:?}",
            percentile(&times, 50),
            percentile(&times, 95)
        );
    }
    tap_to_decision.sort();
    println!(
        "tap -> the client holds the decision: p50 {:?}, p95 {:?}",
        percentile(&tap_to_decision, 50),
        percentile(&tap_to_decision, 95)
    );
}
