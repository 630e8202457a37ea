//! Every channel sent end to end to the real receivers of `warden_testkit::notify` on loopback and read back
//! there: the webhook's signature verifies (and a tampered or old one is refused by the receiver), Slack,
//! Discord and ntfy get their own shapes with the untrusted summary inert, the mail has both parts and the
//! link, the push payload decrypts to the notice under a valid VAPID signature; a gone push subscription marks
//! its channel gone; an unreachable channel, a redirect to another host and a missing SMTP server are typed
//! errors.
#![allow(clippy::unwrap_used, reason = "tests")]

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use warden_db::Database;
use warden_notify::{
    sign_webhook, Channel, ChannelConfig, ChannelInput, ChannelOwner, LinkIntent, Notice, NoticeKind, NoticeLink,
    Notifier, NotifierOptions, SendError, DELIVERY_HEADER, SIGNATURE_HEADER,
};
use warden_testkit::notify::NotifyFixture;
use warden_types::id::PersonId;
use warden_types::tool::Risk;
use warden_types::ErrorKind;

const WAIT: Duration = Duration::from_secs(10);
/// Untrusted text that would be markup, a mention or a link if a channel let it.
const HOSTILE: &str = "rm -rf <b>/tmp/x</b> *bold* @everyone <!channel> [click](http://evil.example) & done";

async fn open(options: NotifierOptions) -> (tempfile::TempDir, Notifier) {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("warden.db").display());
    let database = Database::open(&url).await.unwrap();
    let notifier = Notifier::open(&database, options).await.unwrap();
    (dir, notifier)
}

fn notice() -> Notice {
    let expires = SystemTime::now() + Duration::from_secs(14 * 60 + 30);
    Notice {
        kind: NoticeKind::Request,
        title: "Approval needed: Run a command".into(),
        asked_by: "Ann (member)".into(),
        summary: HOSTILE.into(),
        risk: Risk::High,
        expires_at: Some(humantime::format_rfc3339_millis(expires).to_string()),
        quorum: Some("1 of 2 approvals".into()),
        links: vec![
            NoticeLink {
                label: "Open".into(),
                url: "https://warden.example/d/open-1".into(),
                intent: LinkIntent::Open,
            },
            NoticeLink {
                label: "Approve".into(),
                url: "https://warden.example/d/approve-1".into(),
                intent: LinkIntent::Approve,
            },
            NoticeLink {
                label: "Deny".into(),
                url: "https://warden.example/d/deny-1".into(),
                intent: LinkIntent::Deny,
            },
        ],
    }
}

async fn channel(notifier: &Notifier, config: ChannelConfig) -> Channel {
    let person = PersonId::new();
    let input = ChannelInput { name: "mine".into(), config };
    notifier.channels().create(&ChannelOwner::Person(person.clone()), &person, &input).await.unwrap().0
}

#[tokio::test]
async fn a_webhook_is_signed_so_the_receiver_verifies_it_and_a_tampered_or_old_one_is_refused() {
    let fixture = NotifyFixture::start().await.unwrap();
    let (_dir, notifier) = open(NotifierOptions::default()).await;
    let config = ChannelConfig::Webhook { url: fixture.url("/webhook"), secret: Some(fixture.webhook_secret().into()) };
    let hook = channel(&notifier, config).await;

    let delivery = notifier.send(&hook, &notice()).await.unwrap();
    assert_eq!(delivery.detail, "HTTP 200 OK");
    let got = fixture.next("webhook", 0, WAIT).await.unwrap();
    assert_eq!(got.body["signature_verified"], true);
    let json = &got.body["json"];
    assert_eq!(json["title"], "Approval needed: Run a command");
    assert_eq!(json["asked_by"], "Ann (member)");
    assert_eq!(json["risk"], "high");
    assert_eq!(json["quorum"], "1 of 2 approvals");
    assert_eq!(json["summary"], HOSTILE);
    assert!(json["time_left"].as_str().unwrap().starts_with("Expires in 15 min"), "{json}");
    assert_eq!(json["links"][1]["url"], "https://warden.example/d/approve-1");
    assert_eq!(json["links"][1]["intent"], "approve");
    assert_eq!(got.body["delivery"], json["delivery"]);

    // The same receiver refuses a body changed after signing, a wrong secret and an old timestamp.
    let client = reqwest::Client::new();
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs();
    let body = r#"{"title":"x"}"#;
    let cases = [
        (sign_webhook(fixture.webhook_secret(), now, body), r#"{"title":"y"}"#, "tampered"),
        (sign_webhook("whsec_someone_else", now, body), body, "wrong secret"),
        (sign_webhook(fixture.webhook_secret(), now - 6 * 60, body), body, "six minutes old"),
    ];
    for (signature, sent, case) in cases {
        let answer = client
            .post(fixture.url("/webhook"))
            .header(SIGNATURE_HEADER, signature)
            .header(DELIVERY_HEADER, "d-1")
            .body(sent)
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 401, "{case}");
    }
    assert_eq!(fixture.count("webhook"), 1);

    // Through Warden: a channel with the wrong secret gets the receiver's 401 as a typed refusal.
    let wrong =
        channel(&notifier, ChannelConfig::Webhook { url: fixture.url("/webhook"), secret: Some("whsec_wrong".into()) })
            .await;
    let error = notifier.send(&wrong, &notice()).await.unwrap_err();
    assert!(matches!(&error, SendError::Refused { status: 401, body } if body.contains("no v1 signature")), "{error}");
    assert_eq!(error.kind(), ErrorKind::Upstream);
}

#[tokio::test]
async fn a_webhook_made_without_a_secret_gets_one_shown_once_and_never_in_its_view() {
    let (_dir, notifier) = open(NotifierOptions::default()).await;
    let person = PersonId::new();
    let input = ChannelInput {
        name: "Hook".into(),
        config: ChannelConfig::Webhook { url: "https://hooks.example/in".into(), secret: None },
    };
    let (made, secret) =
        notifier.channels().create(&ChannelOwner::Person(person.clone()), &person, &input).await.unwrap();
    let secret = secret.unwrap();
    assert!(secret.starts_with("whsec_") && secret.len() == 70, "{secret}");
    let shown = serde_json::to_string(&made.view()).unwrap();
    assert!(!shown.contains(&secret[6..20]), "{shown}");
    // Sent back masked, the secret stays.
    let (kept, again) = notifier
        .channels()
        .update(
            &ChannelOwner::Person(person.clone()),
            &made.id,
            &ChannelInput { name: "Hook 2".into(), config: made.view().config },
        )
        .await
        .unwrap();
    assert_eq!(again, None);
    assert!(matches!(kept.config, ChannelConfig::Webhook { secret: Some(s), .. } if s == secret));
    // Another person's channel is not there for them.
    let other = ChannelOwner::Person(PersonId::new());
    assert!(matches!(
        notifier.channels().get_for(&other, &made.id).await.unwrap_err(),
        warden_notify::Error::NotFound(_)
    ));
}

#[tokio::test]
async fn slack_discord_and_ntfy_get_their_own_shapes_with_the_summary_inert() {
    let fixture = NotifyFixture::start().await.unwrap();
    let (_dir, notifier) = open(NotifierOptions::default()).await;

    let slack = channel(&notifier, ChannelConfig::Slack { url: fixture.url("/slack/services/T1/B1/xyz") }).await;
    assert_eq!(notifier.send(&slack, &notice()).await.unwrap().detail, "HTTP 200 OK ok");
    let body = fixture.next("slack", 0, WAIT).await.unwrap().body;
    let text = body["text"].as_str().unwrap();
    assert!(!text.contains('<') && !text.contains('>'), "no Slack markup in the fallback: {text}");
    let blocks = body["blocks"].as_array().unwrap();
    let summary = blocks.iter().find(|b| b["text"]["text"] == HOSTILE).expect("the summary as it was");
    assert_eq!(summary["text"]["type"], "plain_text");
    let buttons = blocks.iter().find(|b| b["type"] == "actions").unwrap()["elements"].as_array().unwrap().clone();
    assert_eq!(buttons.len(), 3);
    assert_eq!(buttons[1]["url"], "https://warden.example/d/approve-1");
    assert_eq!(buttons[1]["style"], "primary");

    let discord = channel(&notifier, ChannelConfig::Discord { url: fixture.url("/discord/api/webhooks/1/abc") }).await;
    assert_eq!(notifier.send(&discord, &notice()).await.unwrap().detail, "HTTP 204 No Content");
    let body = fixture.next("discord", 0, WAIT).await.unwrap().body;
    assert_eq!(body["allowed_mentions"]["parse"], serde_json::json!([]));
    let description = body["embeds"][0]["description"].as_str().unwrap();
    assert!(description.contains(r"\*bold\*") && description.contains(r"\[click\]"), "{description}");
    assert!(description.contains("[Approve](<https://warden.example/d/approve-1>)"), "{description}");

    let ntfy = channel(
        &notifier,
        ChannelConfig::Ntfy {
            server: fixture.url("/ntfy"),
            topic: "warden-ann".into(),
            token: Some("tk_secret".into()),
        },
    )
    .await;
    let detail = notifier.send(&ntfy, &notice()).await.unwrap().detail;
    assert!(detail.starts_with("HTTP 200 OK (ntfy message fixture"), "{detail}");
    let body = fixture.next("ntfy", 0, WAIT).await.unwrap().body;
    assert_eq!(body["topic"], "warden-ann");
    assert_eq!(body["priority"], 5, "high risk is ntfy's urgent");
    assert_eq!(body["click"], "https://warden.example/d/open-1");
    assert_eq!(body["actions"][2]["action"], "view");
    assert_eq!(body["authorization"], "Bearer tk_secret");
    assert!(body["message"].as_str().unwrap().contains("Expires in"));
}

#[tokio::test]
async fn an_email_has_a_text_and_an_html_part_with_the_link_and_the_summary_escaped() {
    let fixture = NotifyFixture::start().await.unwrap();
    let options = NotifierOptions {
        smtp_url: Some(fixture.smtp_url()),
        smtp_from: Some("Warden <warden@test.example>".into()),
        ..NotifierOptions::default()
    };
    let (_dir, notifier) = open(options).await;
    let mail = channel(&notifier, ChannelConfig::Email { address: "ann@example.com".into() }).await;
    let delivery = notifier.send(&mail, &notice()).await.unwrap();
    assert!(delivery.detail.starts_with("250 2.0.0 Ok: queued as FIXTURE"), "{}", delivery.detail);
    let body = fixture.next("email", 0, WAIT).await.unwrap().body;
    assert_eq!(body["envelope_to"], serde_json::json!(["ann@example.com"]));
    assert_eq!(body["from"], "warden@test.example");
    assert_eq!(body["subject"], "Approval needed: Run a command");
    assert_eq!(body["content_type"], "multipart/alternative");
    let text = body["text"].as_str().unwrap();
    assert!(text.contains("Approve: https://warden.example/d/approve-1") && text.contains(HOSTILE), "{text}");
    let html = body["html"].as_str().unwrap();
    assert!(html.contains("href=\"https://warden.example/d/approve-1\""), "{html}");
    assert!(html.contains("&lt;b&gt;/tmp/x&lt;/b&gt;") && !html.contains("<b>/tmp"), "escaped: {html}");
}

#[tokio::test]
async fn email_without_an_smtp_server_or_with_a_bad_url_is_a_clear_error() {
    let (_dir, notifier) = open(NotifierOptions::default()).await;
    let mail = channel(&notifier, ChannelConfig::Email { address: "ann@example.com".into() }).await;
    let error = notifier.send(&mail, &notice()).await.unwrap_err();
    assert!(matches!(error, SendError::NoSmtp));
    assert_eq!(error.kind(), ErrorKind::Unavailable);

    let options = NotifierOptions { smtp_url: Some("smtq://nowhere".into()), ..NotifierOptions::default() };
    let (_dir, notifier) = open(options).await;
    let mail = channel(&notifier, ChannelConfig::Email { address: "ann@example.com".into() }).await;
    let error = notifier.send(&mail, &notice()).await.unwrap_err();
    assert!(matches!(&error, SendError::Config(m) if m.contains("WARDEN_SMTP_URL")), "{error}");
}

#[tokio::test]
async fn a_push_is_vapid_signed_and_decrypts_at_the_push_service_to_the_notice() {
    let fixture = NotifyFixture::start().await.unwrap();
    let (_dir, notifier) = open(NotifierOptions::default()).await;
    let subscription = fixture.subscription(false);
    let push = channel(
        &notifier,
        ChannelConfig::WebPush {
            endpoint: subscription.endpoint.clone(),
            p256dh: subscription.keys.p256dh.clone(),
            auth: subscription.keys.auth.clone(),
        },
    )
    .await;
    let delivery = notifier.send(&push, &notice()).await.unwrap();
    assert!(delivery.detail.starts_with("HTTP 201 Created http://127.0.0.1:"), "{}", delivery.detail);
    let body = fixture.next("web_push", 0, WAIT).await.unwrap().body;
    assert_eq!(body["vapid"]["k"], notifier.vapid_public_key(), "signed with this Warden's key");
    assert_eq!(body["vapid"]["sub"], "mailto:warden@localhost");
    assert_eq!(body["urgency"], "high");
    let payload = &body["payload"];
    assert_eq!(payload["title"], "Approval needed: Run a command");
    assert_eq!(payload["url"], "https://warden.example/d/open-1");
    assert!(payload["body"].as_str().unwrap().contains("Asked by: Ann (member)"), "{payload}");
}

#[tokio::test]
async fn a_gone_push_subscription_marks_its_channel_gone() {
    let fixture = NotifyFixture::start().await.unwrap();
    let (_dir, notifier) = open(NotifierOptions::default()).await;
    let subscription = fixture.subscription(true);
    let push = channel(
        &notifier,
        ChannelConfig::WebPush {
            endpoint: subscription.endpoint,
            p256dh: subscription.keys.p256dh,
            auth: subscription.keys.auth,
        },
    )
    .await;
    let error = notifier.send(&push, &notice()).await.unwrap_err();
    assert!(matches!(error, SendError::Gone { status: 410 }), "{error}");
    let stored = notifier.channels().get(&push.id).await.unwrap();
    assert!(stored.gone_at.is_some());
    assert!(stored.view().gone_at.is_some());
}

#[tokio::test]
async fn an_unreachable_channel_and_a_redirect_to_another_host_are_typed_errors() {
    let fixture = NotifyFixture::start().await.unwrap();
    let (_dir, notifier) = open(NotifierOptions::default()).await;
    // A port nobody listens on: bind one, then let it go.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let nowhere = channel(&notifier, ChannelConfig::Slack { url: format!("http://{closed}/hook") }).await;
    let error = notifier.send(&nowhere, &notice()).await.unwrap_err();
    assert!(matches!(&error, SendError::Unreachable(m) if m.contains("could not connect")), "{error}");
    assert_eq!(error.kind(), ErrorKind::Upstream);

    let away = channel(&notifier, ChannelConfig::Discord { url: fixture.url("/redirect-away") }).await;
    let error = notifier.send(&away, &notice()).await.unwrap_err();
    assert!(matches!(&error, SendError::Refused { status: 307, body } if body.contains("does not follow")), "{error}");
}
