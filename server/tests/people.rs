//! People over HTTP: an owner invites, the invitee joins by the link's page (no script) and signs in with a
//! password; the people API changes roles and disables accounts, whose browsers are signed out at once.

use std::time::Duration;

use leptos::prelude::LeptosOptions;
use reqwest::header::{CONTENT_SECURITY_POLICY, COOKIE, HOST, LOCATION, ORIGIN, SET_COOKIE};
use reqwest::StatusCode;
use serde_json::{json, Value};
use warden_engine::config::Config;

use crate::common::{self, anonymous, client, send_json, Served};

const PASSWORD: &str = "correct horse battery staple";

async fn served() -> (tempfile::TempDir, Served) {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::with_data_dir(dir.path());
    let served = common::serve_app(config, LeptosOptions::builder().output_name("warden").build()).await;
    (dir, served)
}

/// The owner (by the token) invites someone as `role`; the link.
async fn invite(served: &Served, role: &str) -> String {
    let (status, body) = send_json(
        &client(),
        reqwest::Method::POST,
        format!("{}/api/people/invitations", served.base),
        Some(json!({ "role": role, "name": "Ada Lovelace" })),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body["link"].as_str().unwrap().to_string()
}

/// Posts a form to `url` as a browser on this server's page would.
async fn post_form(served: &Served, url: &str, form: &[(&str, &str)]) -> reqwest::Response {
    anonymous().post(url).header(ORIGIN, served.base.clone()).form(form).send().await.unwrap()
}

/// The `name=value` of the session cookie a sign-in answer set.
fn cookie(response: &reqwest::Response) -> String {
    let set = response.headers()[SET_COOKIE].to_str().unwrap();
    set.split(';').next().unwrap().to_string()
}

async fn me(served: &Served, cookie: &str) -> (StatusCode, Value) {
    let response = anonymous().get(format!("{}/api/me", served.base)).header(COOKIE, cookie).send().await.unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn an_invitee_joins_by_the_links_page_and_the_link_then_opens_nothing() {
    let (_dir, served) = served().await;
    let link = invite(&served, "approver").await;
    assert!(link.starts_with(&format!("{}/invite/", served.base)), "{link}");

    let page = anonymous().get(&link).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let csp = page.headers()[CONTENT_SECURITY_POLICY].to_str().unwrap();
    assert!(csp.contains("form-action 'self'") && csp.contains("default-src 'none'"), "its form may post: {csp}");
    let html = page.text().await.unwrap();
    assert!(
        html.contains("invited as <strong>Approver</strong>") && html.contains(r#"value="Ada Lovelace""#),
        "{html}"
    );

    // Another site's form, or a rebound host name, is refused before the page reads anything; the link stays.
    let form = [("login", "mallory"), ("name", "M"), ("password", PASSWORD), ("password_again", PASSWORD)];
    let elsewhere = anonymous().post(&link).header(ORIGIN, "http://evil.example").form(&form).send().await.unwrap();
    assert_eq!(elsewhere.status(), StatusCode::FORBIDDEN);
    let rebound = anonymous().post(&link).header(HOST, "evil.example").form(&form).send().await.unwrap();
    assert_eq!(rebound.status(), StatusCode::FORBIDDEN);
    let peek = anonymous().get(&link).header(HOST, "evil.example").send().await.unwrap();
    assert_eq!(peek.status(), StatusCode::FORBIDDEN, "not even the page for another host name");

    let differ = post_form(
        &served,
        &link,
        &[("login", "ada"), ("name", "Ada"), ("password", PASSWORD), ("password_again", "something else entirely")],
    )
    .await;
    assert_eq!(differ.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let html = differ.text().await.unwrap();
    assert!(
        html.contains("The two passwords differ") && html.contains(r#"value="ada""#),
        "what was typed stays: {html}"
    );

    let short = post_form(
        &served,
        &link,
        &[("login", "ada"), ("name", "<b>Ada</b>"), ("password", "short"), ("password_again", "short")],
    )
    .await;
    assert_eq!(short.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let html = short.text().await.unwrap();
    assert!(
        html.contains("at least 15 characters") && html.contains("&lt;b&gt;Ada&lt;/b&gt;") && !html.contains("<b>Ada"),
        "{html}"
    );

    let joined = post_form(
        &served,
        &link,
        &[("login", "ada"), ("name", "Ada"), ("password", PASSWORD), ("password_again", PASSWORD)],
    )
    .await;
    assert_eq!(joined.status(), StatusCode::SEE_OTHER);
    assert_eq!(joined.headers()[LOCATION], "/");
    let ada = cookie(&joined);
    let (status, person) = me(&served, &ada).await;
    assert_eq!(
        (status, person["login"].as_str(), person["role"].as_str()),
        (StatusCode::OK, Some("ada"), Some("approver"))
    );

    let again = anonymous().get(&link).send().await.unwrap();
    assert_eq!(again.status(), StatusCode::GONE);
    let reuse = post_form(
        &served,
        &link,
        &[("login", "eve"), ("name", "Eve"), ("password", PASSWORD), ("password_again", PASSWORD)],
    )
    .await;
    assert_eq!(reuse.status(), StatusCode::GONE);
    assert!(reuse.headers().get(SET_COOKIE).is_none());
}

#[tokio::test]
async fn a_password_signs_in_only_when_right_from_this_origin_and_guessing_is_slowed() {
    let (_dir, served) = served().await;
    let link = invite(&served, "member").await;
    post_form(
        &served,
        &link,
        &[("login", "bob"), ("name", "Bob"), ("password", PASSWORD), ("password_again", PASSWORD)],
    )
    .await;
    let sign_in = format!("{}/sign-in", served.base);

    let page = anonymous().get(&sign_in).send().await.unwrap();
    assert!(page.text().await.unwrap().contains(r#"<form method="post" action="/sign-in">"#));

    let wrong = post_form(&served, &sign_in, &[("login", "bob"), ("password", "not the password at all")]).await;
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    assert!(wrong.headers().get(SET_COOKIE).is_none());
    assert!(wrong.text().await.unwrap().contains("do not match an account"));

    let elsewhere = anonymous()
        .post(&sign_in)
        .header(ORIGIN, "http://evil.example")
        .form(&[("login", "bob"), ("password", PASSWORD)])
        .send()
        .await
        .unwrap();
    assert_eq!(elsewhere.status(), StatusCode::FORBIDDEN, "a sign-in form on another site is refused");

    let right = post_form(&served, &sign_in, &[("login", "bob"), ("password", PASSWORD)]).await;
    assert_eq!(right.status(), StatusCode::SEE_OTHER);
    let (status, person) = me(&served, &cookie(&right)).await;
    assert_eq!((status, person["role"].as_str()), (StatusCode::OK, Some("member")));

    let mut limited = false;
    for _ in 0..30 {
        let guess = post_form(&served, &sign_in, &[("login", "bob"), ("password", "another wrong guess here")]).await;
        if guess.status() == StatusCode::TOO_MANY_REQUESTS {
            limited = true;
            break;
        }
    }
    assert!(limited, "30 guesses in a row were all answered");
    let (status, _) = me(&served, &cookie(&right)).await;
    assert_eq!(status, StatusCode::OK, "the limit stops guessing, not the signed-in browser");
}

#[tokio::test]
async fn disabling_someone_ends_their_open_streams_and_the_last_owner_stays() {
    let (_dir, served) = served().await;
    let link = invite(&served, "member").await;
    let joined = post_form(
        &served,
        &link,
        &[("login", "cy"), ("name", "Cy"), ("password", PASSWORD), ("password_again", PASSWORD)],
    )
    .await;
    let cy = cookie(&joined);
    let (_, person) = me(&served, &cy).await;
    let id = person["id"].as_str().unwrap().to_string();

    let mut stream =
        anonymous().get(format!("{}/api/inbox/events", served.base)).header(COOKIE, &cy).send().await.unwrap();
    assert_eq!(stream.status(), StatusCode::OK);

    let http = client();
    let (status, disabled) =
        send_json(&http, reqwest::Method::POST, format!("{}/api/people/{id}/disable", served.base), None).await;
    assert_eq!(status, StatusCode::OK, "{disabled}");
    assert!(disabled["disabled_at"].is_string());
    let ended =
        tokio::time::timeout(Duration::from_secs(30), async { while let Ok(Some(_)) = stream.chunk().await {} }).await;
    assert!(ended.is_ok(), "the disabled person's event stream did not end");
    let (status, _) = me(&served, &cy).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    let owner = served.state.access.founding_owner().unwrap().to_string();
    let (status, body) =
        send_json(&http, reqwest::Method::POST, format!("{}/api/people/{owner}/disable", served.base), None).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    let (status, body) = send_json(
        &http,
        reqwest::Method::PUT,
        format!("{}/api/people/{owner}/role", served.base),
        Some(json!({"role": "viewer"})),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
}
