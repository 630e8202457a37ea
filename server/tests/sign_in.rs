//! Signing in without a password, through the real `warden-server` binary: passkeys (the ceremonies' server
//! half, what they refuse; the browser half with a real authenticator is `end2end/tests/passkeys.spec.ts`)
//! and an OpenID Connect provider of the tests' own (`warden_testkit::OidcIssuer`) on loopback: a whole
//! sign-in by an HTTP client that follows redirects and keeps cookies, a wrong nonce, state, signature or
//! audience refused, the role from a claim, and someone without one waiting for an owner.

use std::collections::BTreeMap;
use std::process::{Command, Stdio};

use reqwest::header::{COOKIE, HOST, LOCATION, ORIGIN, SET_COOKIE};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use warden_testkit::oidc_issuer::User;
use warden_testkit::{OidcIssuer, Tamper};

use crate::common::process::ServerProcess;
use crate::common::{anonymous, client, send_json};

const CLIENT_ID: &str = "warden-tests";
const CLIENT_SECRET: &str = "a-client-secret-only-the-tests-know";

/// `path` on the server, addressed by the host name `localhost` (passkeys need a name, not an address).
fn by_name(server: &ServerProcess, path: &str) -> String {
    format!("http://localhost:{}{path}", server.port)
}

/// POSTs `body` as a page of the server's own origin would.
async fn post_from_page(url: &str, origin: &str, body: Value) -> (StatusCode, Value) {
    let response = anonymous().post(url).header(ORIGIN, origin).json(&body).send().await.unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn started() -> (tempfile::TempDir, ServerProcess) {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::start(dir.path(), &[]).await;
    (dir, server)
}

#[tokio::test]
async fn a_passkey_sign_in_challenges_for_this_host_once_and_refuses_a_made_up_answer() {
    let (_dir, server) = started().await;
    let origin = by_name(&server, "");
    let (status, started) = post_from_page(&by_name(&server, "/sign-in/passkey/options"), &origin, json!({})).await;
    assert_eq!(status, StatusCode::OK, "{started}");
    let options = &started["options"]["publicKey"];
    assert_eq!(options["rpId"], "localhost", "{started}");
    assert_eq!(options["userVerification"], "required", "{started}");
    assert!(options["challenge"].as_str().is_some_and(|c| c.len() >= 43), "{started}");
    assert_eq!(started["options"].get("mediation"), None, "a button asks at once: {started}");
    let ceremony = started["ceremony"].as_str().unwrap().to_string();

    // An assertion nobody's authenticator made: parsed, then refused without saying why.
    let made_up = json!({
        "ceremony": ceremony,
        "credential": {
            "id": "AQID", "rawId": "AQID", "type": "public-key",
            "response": {
                "authenticatorData": "AAAA", "clientDataJSON": "e30", "signature": "AAAA",
                "userHandle": "AZR2Y2xjc3Rqb2ZqYmRmZw"
            },
            "extensions": {}
        }
    });
    let (status, body) = post_from_page(&by_name(&server, "/sign-in/passkey"), &origin, made_up.clone()).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::UNAUTHORIZED, Some("passkey_not_accepted")));
    let (status, body) = post_from_page(&by_name(&server, "/sign-in/passkey"), &origin, made_up).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::BAD_REQUEST, Some("ceremony_over")), "used once");
}

#[tokio::test]
async fn passkeys_need_a_host_name_and_the_ceremonies_refuse_another_site_and_a_rebound_host() {
    let (_dir, server) = started().await;
    let (status, body) =
        post_from_page(&format!("{}/sign-in/passkey/options", server.base), &server.base, json!({})).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::BAD_REQUEST, Some("passkeys_need_a_host_name")));

    let url = by_name(&server, "/sign-in/passkey/options");
    let (status, body) = post_from_page(&url, "http://evil.example", json!({})).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::FORBIDDEN, Some("cross_origin")));
    let rebound = anonymous().post(&url).header(HOST, "evil.example").json(&json!({})).send().await.unwrap();
    assert_eq!(rebound.status(), StatusCode::FORBIDDEN);
    // A form (no JSON) is not a ceremony's answer.
    let form = anonymous()
        .post(by_name(&server, "/sign-in/passkey"))
        .header(ORIGIN, by_name(&server, ""))
        .form(&[("ceremony", "x")])
        .send()
        .await
        .unwrap();
    assert_eq!(form.status(), StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn passkey_sign_ins_are_limited_per_address_like_passwords() {
    let (_dir, server) = started().await;
    let origin = by_name(&server, "");
    let mut statuses = Vec::new();
    for _ in 0..12 {
        let (status, _) = post_from_page(&by_name(&server, "/sign-in/passkey/options"), &origin, json!({})).await;
        statuses.push(status);
    }
    assert!(statuses[..10].iter().all(|s| *s == StatusCode::OK), "{statuses:?}");
    assert_eq!(statuses[11], StatusCode::TOO_MANY_REQUESTS, "{statuses:?}");
}

#[tokio::test]
async fn joining_with_a_passkey_checks_what_was_typed_first_and_asks_for_a_discoverable_one() {
    let (_dir, server) = started().await;
    let (status, invited) = send_json(
        &client(),
        Method::POST,
        format!("{}/api/people/invitations", server.base),
        Some(json!({ "role": "member" })),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{invited}");
    let link = invited["link"].as_str().unwrap();
    let path = &link[link.find("/invite/").unwrap()..];
    let origin = by_name(&server, "");
    let options = by_name(&server, &format!("{path}/passkey/options"));

    let (status, body) = post_from_page(&options, &origin, json!({ "login": "OWNER", "name": "Grace" })).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::CONFLICT, Some("login_taken")), "{body}");
    let (status, body) = post_from_page(&options, &origin, json!({ "login": "two words", "name": "Grace" })).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let (status, body) = post_from_page(&options, &origin, json!({ "login": "grace", "name": "Grace Hopper" })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let public_key = &body["options"]["publicKey"];
    assert_eq!(
        (public_key["rp"]["id"].as_str(), public_key["user"]["name"].as_str()),
        (Some("localhost"), Some("grace"))
    );
    assert_eq!(public_key["authenticatorSelection"]["residentKey"], "required", "{body}");
    assert_eq!(public_key["authenticatorSelection"]["userVerification"], "required", "{body}");

    let bogus = by_name(&server, &format!("/invite/{}/passkey/options", "0".repeat(64)));
    let (status, _) = post_from_page(&bogus, &origin, json!({ "login": "grace", "name": "Grace" })).await;
    assert_eq!(status, StatusCode::GONE);
}

#[tokio::test]
async fn ones_own_passkeys_are_listed_started_and_removed_through_the_api() {
    let (_dir, server) = started().await;
    let http = client();
    let (status, list) = send_json(&http, Method::GET, by_name(&server, "/api/me/passkeys"), None).await;
    assert_eq!((status, list), (StatusCode::OK, json!([])));
    let (status, body) = send_json(
        &http,
        Method::POST,
        by_name(&server, "/api/me/passkeys/options"),
        Some(json!({ "name": "Work laptop" })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["options"]["publicKey"]["user"]["name"], "owner", "{body}");
    let (status, _) = send_json(&http, Method::DELETE, by_name(&server, "/api/me/passkeys/abcd"), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let stranger = anonymous().get(by_name(&server, "/api/me/passkeys")).send().await.unwrap();
    assert_eq!(stranger.status(), StatusCode::UNAUTHORIZED);
}

/// A browser for the provider's flow: follows redirects itself and keeps each host's cookies.
#[derive(Default)]
struct Browser {
    /// host:port → cookie name → value
    jar: BTreeMap<String, BTreeMap<String, String>>,
    /// Every `Set-Cookie` seen, whole (to check their attributes).
    set_cookies: Vec<String>,
}

impl Browser {
    /// GETs `url` and follows redirects; the last answer's status, URL and body.
    async fn open(&mut self, url: &str) -> (StatusCode, String, String) {
        let mut url = reqwest::Url::parse(url).unwrap();
        for _ in 0..10 {
            let host = format!("{}:{}", url.host_str().unwrap(), url.port_or_known_default().unwrap());
            let cookies =
                self.jar.get(&host).map(|c| c.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("; "));
            let mut request = anonymous().get(url.clone());
            if let Some(cookies) = cookies.filter(|c| !c.is_empty()) {
                request = request.header(COOKIE, cookies);
            }
            let response = request.send().await.unwrap();
            for set in response.headers().get_all(SET_COOKIE) {
                let set = set.to_str().unwrap().to_string();
                let (pair, attributes) = set.split_once(';').unwrap_or((&set, ""));
                let (name, value) = pair.split_once('=').unwrap();
                let jar = self.jar.entry(host.clone()).or_default();
                if attributes.contains("Max-Age=0") {
                    jar.remove(name);
                } else {
                    jar.insert(name.to_string(), value.to_string());
                }
                self.set_cookies.push(set);
            }
            let status = response.status();
            if status.is_redirection() {
                url = url.join(response.headers()[LOCATION].to_str().unwrap()).unwrap();
                continue;
            }
            return (status, url.to_string(), response.text().await.unwrap());
        }
        panic!("too many redirects");
    }

    /// The person this browser's session at `base` is, as `/api/me` says.
    async fn me(&mut self, base: &str) -> (StatusCode, Value) {
        let host = base.trim_start_matches("http://").to_string();
        let cookies = self.jar.get(&host).map(|c| c.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>());
        let response = anonymous()
            .get(format!("{base}/api/me"))
            .header(COOKIE, cookies.unwrap_or_default().join("; "))
            .send()
            .await
            .unwrap();
        let status = response.status();
        (status, response.json().await.unwrap_or(Value::Null))
    }
}

async fn with_provider(role_claim: Option<&str>) -> (tempfile::TempDir, OidcIssuer, ServerProcess) {
    let issuer = OidcIssuer::start(CLIENT_ID, CLIENT_SECRET).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut env = vec![
        ("WARDEN_OIDC_ISSUER", issuer.issuer().to_string()),
        ("WARDEN_OIDC_CLIENT_ID", CLIENT_ID.to_string()),
        ("WARDEN_OIDC_CLIENT_SECRET", CLIENT_SECRET.to_string()),
    ];
    if let Some(claim) = role_claim {
        env.push(("WARDEN_OIDC_ROLE_CLAIM", claim.to_string()));
    }
    let server = ServerProcess::start(dir.path(), &env).await;
    (dir, issuer, server)
}

#[tokio::test]
async fn a_person_signs_in_with_the_provider_and_gets_the_role_its_claim_names() {
    let (_dir, issuer, server) = with_provider(Some("warden_role")).await;
    let (status, _, page) = Browser::default().open(&format!("{}/sign-in", server.base)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let host = issuer.issuer().trim_start_matches("http://").to_string();
    assert!(
        page.contains(&format!(r#"<a href="/sign-in/oidc">Sign in with {}</a>"#, host.split(':').next().unwrap())),
        "{page}"
    );

    issuer.sign_in_as(User::new("ada-1815", "Ada Lovelace", "ada").with_claim("warden_role", json!("Approver")));
    let mut browser = Browser::default();
    let (status, url, page) = browser.open(&format!("{}/sign-in/oidc", server.base)).await;
    assert_eq!(status, StatusCode::OK, "{url}: {page}");
    assert!(url.starts_with(&format!("{}/sign-in/oidc/callback?code=", server.base)), "{url}");
    assert!(page.contains("Signed in"), "{page}");
    let flow = browser.set_cookies.iter().find(|c| c.starts_with(&format!("warden_oidc_{}=", server.port))).unwrap();
    assert!(
        flow.contains("HttpOnly") && flow.contains("SameSite=Lax") && flow.contains("Path=/sign-in/oidc"),
        "{flow}"
    );
    let (status, me) = browser.me(&server.base).await;
    assert_eq!(status, StatusCode::OK, "{me}");
    assert_eq!(
        (me["name"].as_str(), me["login"].as_str(), me["role"].as_str()),
        (Some("Ada Lovelace"), Some("ada"), Some("approver"))
    );
    assert_eq!(me["has_password"], false);
    assert_eq!((me["has_oidc"].as_bool(), me["passkeys"].as_u64()), (Some(true), Some(0)), "{me}");
    assert!(issuer.refusals().is_empty(), "{:?}", issuer.refusals());
    // The owner's list of people says how each signs in.
    let people: Value = client().get(format!("{}/api/people", server.base)).send().await.unwrap().json().await.unwrap();
    let by_login = |login: &str| people.as_array().unwrap().iter().find(|p| p["login"] == login).cloned().unwrap();
    let ada = by_login("ada");
    assert_eq!(
        (ada["has_password"].as_bool(), ada["passkeys"].as_u64(), ada["has_oidc"].as_bool()),
        (Some(false), Some(0), Some(true)),
        "{people}"
    );
    let owner = people.as_array().unwrap().iter().find(|p| p["role"] == "owner").unwrap();
    assert_eq!((owner["has_oidc"].as_bool(), owner["passkeys"].as_u64()), (Some(false), Some(0)), "{people}");

    // The same subject comes back as the same person, whatever the claim says now.
    issuer.sign_in_as(User::new("ada-1815", "Ada L.", "ada").with_claim("warden_role", json!("owner")));
    let mut again = Browser::default();
    let (status, _, _) = again.open(&format!("{}/sign-in/oidc", server.base)).await;
    assert_eq!(status, StatusCode::OK);
    let (_, me_again) = again.me(&server.base).await;
    assert_eq!((me_again["id"].clone(), me_again["role"].as_str()), (me["id"].clone(), Some("approver")));

    // Another subject with the same username gets a login of their own.
    issuer.sign_in_as(User::new("ada-2", "Another Ada", "ada").with_claim("warden_role", json!(["staff", "viewer"])));
    let mut other = Browser::default();
    other.open(&format!("{}/sign-in/oidc", server.base)).await;
    let (_, other_me) = other.me(&server.base).await;
    assert_eq!((other_me["login"].as_str(), other_me["role"].as_str()), (Some("ada-2"), Some("viewer")));
}

#[tokio::test]
async fn a_wrong_nonce_state_signature_or_audience_signs_nobody_in() {
    let (_dir, issuer, server) = with_provider(Some("warden_role")).await;
    issuer.sign_in_as(User::new("mallory", "Mallory", "mallory").with_claim("warden_role", json!("owner")));
    for tamper in [Tamper::Nonce, Tamper::State, Tamper::Signature, Tamper::Audience] {
        issuer.tamper(tamper);
        let mut browser = Browser::default();
        let (status, _, page) = browser.open(&format!("{}/sign-in/oidc", server.base)).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{tamper:?}: {page}");
        assert!(page.contains("Not signed in"), "{tamper:?}: {page}");
        let (status, _) = browser.me(&server.base).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{tamper:?}");
    }
    let (status, people) = send_json(&client(), Method::GET, format!("{}/api/people", server.base), None).await;
    assert_eq!((status, people.as_array().unwrap().len()), (StatusCode::OK, 1), "nobody was made: {people}");

    // A callback without the browser's flow cookie (a link someone was sent) finds nothing.
    issuer.tamper(Tamper::None);
    let mut started = Browser::default();
    let start = anonymous().get(format!("{}/sign-in/oidc", server.base)).send().await.unwrap();
    let authorize = start.headers()[LOCATION].to_str().unwrap().to_string();
    let back = anonymous().get(&authorize).send().await.unwrap();
    let callback = back.headers()[LOCATION].to_str().unwrap().to_string();
    let (status, _, page) = started.open(&callback).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{page}");
    assert!(page.contains("started in another browser"), "{page}");
}

#[tokio::test]
async fn someone_without_a_role_waits_until_an_owner_lets_them_in() {
    let (_dir, issuer, server) = with_provider(None).await;
    issuer.sign_in_as(User::new("grace-1906", "Grace Hopper", "grace"));
    let mut browser = Browser::default();
    let (status, _, page) = browser.open(&format!("{}/sign-in/oidc", server.base)).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{page}");
    assert!(page.contains("Waiting for an owner") && page.contains("Grace Hopper"), "{page}");
    assert_eq!(browser.me(&server.base).await.0, StatusCode::UNAUTHORIZED);

    let owner = client();
    let (status, waiting) = send_json(&owner, Method::GET, format!("{}/api/people/waiting", server.base), None).await;
    assert_eq!(status, StatusCode::OK, "{waiting}");
    assert_eq!(waiting.as_array().unwrap().len(), 1, "{waiting}");
    assert_eq!((waiting[0]["name"].as_str(), waiting[0]["login"].as_str()), (Some("Grace Hopper"), Some("grace")));
    let id = waiting[0]["id"].as_str().unwrap();
    let (status, person) = send_json(
        &owner,
        Method::POST,
        format!("{}/api/people/waiting/{id}/admit", server.base),
        Some(json!({ "role": "member" })),
    )
    .await;
    assert_eq!((status, person["role"].as_str()), (StatusCode::OK, Some("member")), "{person}");

    let mut later = Browser::default();
    let (status, _, _) = later.open(&format!("{}/sign-in/oidc", server.base)).await;
    assert_eq!(status, StatusCode::OK);
    let (_, me) = later.me(&server.base).await;
    assert_eq!((me["id"].clone(), me["role"].as_str()), (person["id"].clone(), Some("member")));
    let (_, waiting) = send_json(&owner, Method::GET, format!("{}/api/people/waiting", server.base), None).await;
    assert_eq!(waiting, json!([]));
}

#[tokio::test]
async fn a_bad_provider_setting_stops_the_server_with_the_variables_name() {
    let dir = tempfile::tempdir().unwrap();
    for (name, value, says) in [
        ("WARDEN_OIDC_ISSUER", "http://id.example", "WARDEN_OIDC_ISSUER"),
        ("WARDEN_OIDC_ROLE_CLAIM", "warden role", "WARDEN_OIDC_ROLE_CLAIM"),
    ] {
        let mut command = Command::new(env!("CARGO_BIN_EXE_warden-server"));
        command
            .env("LEPTOS_OUTPUT_NAME", "warden")
            .env("LEPTOS_SITE_ROOT", dir.path().join("site"))
            .env("LEPTOS_SITE_ADDR", "127.0.0.1:0")
            .env("LEPTOS_ENV", "PROD")
            .env("WARDEN_DATA_DIR", dir.path())
            .env("WARDEN_OIDC_ISSUER", "https://id.example")
            .env("WARDEN_OIDC_CLIENT_ID", CLIENT_ID)
            .env("WARDEN_OIDC_CLIENT_SECRET", CLIENT_SECRET)
            .env(name, value)
            .stdin(Stdio::null());
        let output = command.output().unwrap();
        assert!(!output.status.success(), "{name}={value} must stop the server");
        let said = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        assert!(said.contains(says), "{name}={value}: {said}");
    }
    let mut incomplete = Command::new(env!("CARGO_BIN_EXE_warden-server"));
    incomplete
        .env("LEPTOS_OUTPUT_NAME", "warden")
        .env("LEPTOS_SITE_ROOT", dir.path().join("site"))
        .env("LEPTOS_SITE_ADDR", "127.0.0.1:0")
        .env("WARDEN_DATA_DIR", dir.path())
        .env("WARDEN_OIDC_ISSUER", "https://id.example")
        .env_remove("WARDEN_OIDC_CLIENT_ID")
        .env_remove("WARDEN_OIDC_CLIENT_SECRET")
        .stdin(Stdio::null());
    let output = incomplete.output().unwrap();
    assert!(!output.status.success());
    let said = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(said.contains("WARDEN_OIDC_CLIENT_ID"), "{said}");
}
