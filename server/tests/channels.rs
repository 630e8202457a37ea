//! Notification channels through the real router: a person reaches only their own channels (another's is a
//! 404 to a member, a viewer and an owner alike), shared channels and the SMTP server are owners', and "Send
//! a test" delivers to the real receivers on loopback and answers what they said.

use leptos::prelude::LeptosOptions;
use reqwest::header::COOKIE;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use warden_engine::config::Config;
use warden_testkit::notify::NotifyFixture;
use warden_types::person::Role;

use crate::common::{self, anonymous, Served};

async fn served() -> (tempfile::TempDir, Served) {
    let dir = tempfile::tempdir().unwrap();
    let served =
        common::serve_app(Config::with_data_dir(dir.path()), LeptosOptions::builder().output_name("warden").build())
            .await;
    (dir, served)
}

/// `method path` as the person with `cookie` (none: a stranger): the status and the JSON answer.
async fn call(
    served: &Served,
    cookie: Option<&str>,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let mut request = anonymous().request(method, format!("{}{path}", served.base));
    if let Some(cookie) = cookie {
        request = request.header(COOKIE, cookie);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn a_stranger_a_viewer_and_another_member_reach_no_one_elses_channels() {
    let (_dir, served) = served().await;
    let (_, ann) = common::people::signed_in_as(&served, Role::Member, "ann").await;
    let (_, bob) = common::people::signed_in_as(&served, Role::Member, "bob").await;
    let (_, viewer) = common::people::signed_in_as(&served, Role::Viewer, "vera").await;
    let (_, owner) = common::people::signed_in_as(&served, Role::Owner, "owner").await;

    let hook = json!({ "name": "Ann's hook", "config": { "kind": "webhook", "url": "https://hooks.example/ann" } });
    let (status, made) = call(&served, Some(&ann), Method::POST, "/api/channels", Some(hook.clone())).await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    let secret = made["secret"].as_str().unwrap().to_string();
    let id = made["channel"]["id"].as_str().unwrap().to_string();
    let (status, mine) = call(&served, Some(&ann), Method::GET, "/api/channels", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(mine.as_array().unwrap().len(), 1);
    assert!(!mine.to_string().contains(&secret[6..30]), "the secret is never answered again: {mine}");

    let path = format!("/api/channels/{id}");
    let test = format!("{path}/test");
    let requests = [
        (Method::GET, path.as_str(), None),
        (Method::PUT, path.as_str(), Some(hook.clone())),
        (Method::POST, test.as_str(), None),
        (Method::DELETE, path.as_str(), None),
    ];
    for (method, path, body) in &requests {
        let (status, _) = call(&served, None, method.clone(), path, body.clone()).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "a stranger at {method} {path}");
        for (who, cookie) in [("another member", &bob), ("a viewer", &viewer), ("an owner", &owner)] {
            let (status, _) = call(&served, Some(cookie), method.clone(), path, body.clone()).await;
            assert_eq!(status, StatusCode::NOT_FOUND, "{who} at {method} {path}");
        }
    }
    for (who, cookie) in [("another member", &bob), ("a viewer", &viewer)] {
        let (status, listed) = call(&served, Some(cookie), Method::GET, "/api/channels", None).await;
        assert_eq!((status, listed), (StatusCode::OK, json!([])), "{who} lists only their own");
    }

    // Shared channels and the SMTP server are owners'.
    let shared =
        json!({ "name": "Team", "config": { "kind": "slack", "url": "https://hooks.slack.com/services/T/B/x" } });
    for (who, cookie) in [("a member", &ann), ("a viewer", &viewer)] {
        for (method, path, body) in [
            (Method::GET, "/api/channels/shared", None),
            (Method::POST, "/api/channels/shared", Some(shared.clone())),
            (Method::GET, "/api/notifications/smtp", None),
            (Method::POST, "/api/notifications/smtp/test", Some(json!({ "to": "a@example.com" }))),
        ] {
            let (status, answer) = call(&served, Some(cookie), method.clone(), path, body).await;
            assert_eq!(
                (status, answer["error"]["code"].as_str()),
                (StatusCode::FORBIDDEN, Some("role_not_allowed")),
                "{who} at {method} {path}"
            );
        }
    }
    let (status, made) = call(&served, Some(&owner), Method::POST, "/api/channels/shared", Some(shared)).await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    assert_eq!(made["channel"]["shared"], true);
    assert!(!made.to_string().contains("T/B/x"), "a chat webhook's URL is its secret: {made}");
    let shared_path = format!("/api/channels/{}", made["channel"]["id"].as_str().unwrap());
    let (status, _) = call(&served, Some(&ann), Method::GET, &shared_path, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "a member does not reach a shared channel");
    let (status, _) = call(&served, Some(&owner), Method::GET, &shared_path, None).await;
    assert_eq!(status, StatusCode::OK);

    // Bad settings say what to fix.
    let bad = json!({ "name": "x", "config": { "kind": "webhook", "url": "https://u:p@hooks.example/" } });
    let (status, answer) = call(&served, Some(&ann), Method::POST, "/api/channels", Some(bad)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(answer["error"]["message"].as_str().unwrap().contains("user or password"), "{answer}");

    let (status, _) = call(&served, Some(&ann), Method::DELETE, &path, None).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
}

#[tokio::test]
async fn send_a_test_through_the_api_answers_what_each_receiver_said() {
    let fixture = NotifyFixture::start().await.unwrap();
    let (_dir, served) = served().await;
    let (_, ann) = common::people::signed_in_as(&served, Role::Member, "ann").await;
    let (_, owner) = common::people::signed_in_as(&served, Role::Owner, "owner").await;

    // A signed webhook: the receiver checks the signature and Warden shows its answer.
    let hook = json!({ "name": "Hook", "config": { "kind": "webhook", "url": fixture.url("/webhook"),
                                                   "secret": fixture.webhook_secret() } });
    let (_, made) = call(&served, Some(&ann), Method::POST, "/api/channels", Some(hook)).await;
    let id = made["channel"]["id"].as_str().unwrap();
    let (status, result) = call(&served, Some(&ann), Method::POST, &format!("/api/channels/{id}/test"), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!((result["ok"].as_bool(), result["detail"].as_str()), (Some(true), Some("HTTP 200 OK")), "{result}");
    let got = fixture.next("webhook", 0, std::time::Duration::from_secs(10)).await.unwrap();
    assert_eq!(got.body["json"]["kind"], "test");
    assert_eq!(got.body["json"]["asked_by"], "ann (member)");
    assert_eq!(got.body["json"]["links"][0]["url"], format!("{}/settings#notifications", served.base));
    let (_, listed) = call(&served, Some(&ann), Method::GET, "/api/channels", None).await;
    assert_eq!(listed[0]["last_test"]["detail"], "HTTP 200 OK");

    // E-mail, once an owner set the SMTP server.
    let mail = json!({ "name": "Mail", "config": { "kind": "email", "address": "ann@example.com" } });
    let (_, made) = call(&served, Some(&ann), Method::POST, "/api/channels", Some(mail)).await;
    let mail_test = format!("/api/channels/{}/test", made["channel"]["id"].as_str().unwrap());
    let (_, result) = call(&served, Some(&ann), Method::POST, &mail_test, None).await;
    assert_eq!(result["ok"], false);
    assert!(result["detail"].as_str().unwrap().contains("no SMTP server"), "{result}");
    let smtp = json!({ "host": "127.0.0.1", "port": fixture.smtp_port(), "security": "none",
                       "user": "warden", "password": "smtp-password-1234", "from": "Warden <warden@test.example>" });
    let (status, view) = call(&served, Some(&owner), Method::PUT, "/api/notifications/smtp", Some(smtp)).await;
    assert_eq!(status, StatusCode::OK, "{view}");
    assert_eq!(view["stored"]["password"], "••••1234", "the password is answered masked");
    let (_, result) = call(&served, Some(&ann), Method::POST, &mail_test, None).await;
    assert!(result["detail"].as_str().unwrap().starts_with("250 2.0.0 Ok: queued as"), "{result}");
    let got = fixture.next("email", 0, std::time::Duration::from_secs(10)).await.unwrap();
    assert_eq!(got.body["auth_user"], "warden");
    assert!(got.body["text"].as_str().unwrap().contains("/settings#notifications"));
    assert!(got.body["html"].as_str().unwrap().contains("/settings#notifications"));

    // This browser's push subscription, registered as Ann's channel; then one the push service says is gone.
    let subscription = serde_json::to_value(fixture.subscription(false)).unwrap();
    let (status, push) = call(&served, Some(&ann), Method::POST, "/api/push/subscriptions", Some(subscription)).await;
    assert_eq!(status, StatusCode::CREATED, "{push}");
    let (_, result) =
        call(&served, Some(&ann), Method::POST, &format!("/api/channels/{}/test", push["id"].as_str().unwrap()), None)
            .await;
    assert!(result["detail"].as_str().unwrap().starts_with("HTTP 201 Created"), "{result}");
    let got = fixture.next("web_push", 0, std::time::Duration::from_secs(10)).await.unwrap();
    assert_eq!(got.body["payload"]["title"], "Test notification from Warden");
    let (_, key) = call(&served, Some(&ann), Method::GET, "/api/push/key", None).await;
    assert_eq!(got.body["vapid"]["k"], key["public_key"]);

    let gone = serde_json::to_value(fixture.subscription(true)).unwrap();
    let endpoint = gone["endpoint"].clone();
    let (_, push) = call(&served, Some(&ann), Method::POST, "/api/push/subscriptions", Some(gone)).await;
    let path = format!("/api/channels/{}", push["id"].as_str().unwrap());
    let (_, result) = call(&served, Some(&ann), Method::POST, &format!("{path}/test"), None).await;
    assert_eq!(result["ok"], false);
    let (_, channel) = call(&served, Some(&ann), Method::GET, &path, None).await;
    assert!(channel["gone_at"].is_string(), "{channel}");
    let (status, _) =
        call(&served, Some(&ann), Method::POST, "/api/push/unsubscribe", Some(json!({ "endpoint": endpoint }))).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
}
