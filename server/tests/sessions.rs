//! Signed-in browsers over real HTTP: each sign-in is a session of its own (a random secret in the
//! cookie, its hash in the database), listed with where and when, signed out one by one or all at once,
//! at once on every kind of route; it expires on the server, and it outlives a restart of the real
//! binary until then.

use crate::common;

use std::time::{Duration, SystemTime};

use futures::StreamExt;
use leptos::prelude::LeptosOptions;
use leptos::server_fn::ServerFn;
use reqwest::header::{COOKIE, HOST, ORIGIN, SET_COOKIE, USER_AGENT};
use reqwest::{RequestBuilder, StatusCode};
use serde_json::{json, Value};
use tempfile::TempDir;
use warden_app::server_fns::sessions::{ListSignedInBrowsers, SignOutBrowser, SignOutBrowsers};
use warden_app::server_fns::ListThreads;
use warden_engine::config::Config;
use warden_types::session::SignedInBrowser;

use crate::common::process::ServerProcess;
use crate::common::{anonymous, client, Served, TOKEN};

struct App {
    _dir: TempDir,
    served: Served,
}

impl App {
    async fn start() -> App {
        let dir = tempfile::tempdir().expect("temp dir");
        let options = LeptosOptions::builder().output_name("warden").build();
        let served = common::serve_app(Config::with_data_dir(dir.path()), options).await;
        App { _dir: dir, served }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{}", self.served.base, path)
    }

    /// Opens the sign-in link as a browser named `agent`, sending `cookie` if given; the new cookie.
    async fn sign_in_as(&self, agent: &str, cookie: Option<&str>) -> String {
        sign_in(&self.served.base, agent, cookie).await
    }

    /// Calls a server function as a browser with `cookie`, from Warden's own page.
    async fn call(&self, cookie: &str, path: &str, args: Value) -> (StatusCode, Value) {
        let req = anonymous().post(self.url(path)).header(COOKIE, cookie).header(ORIGIN, self.served.base.clone());
        send(req.json(&args)).await
    }

    async fn list(&self, cookie: &str) -> Vec<SignedInBrowser> {
        let (status, body) = self.call(cookie, ListSignedInBrowsers::PATH, json!({})).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        serde_json::from_value(body).expect("the signed-in browsers")
    }
}

async fn sign_in(base: &str, agent: &str, cookie: Option<&str>) -> String {
    let mut req = anonymous().get(format!("{base}/settings?token={TOKEN}")).header(USER_AGENT, agent);
    if let Some(cookie) = cookie {
        req = req.header(COOKIE, cookie);
    }
    let res = req.send().await.expect("request");
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let set = res.headers()[SET_COOKIE].to_str().expect("ascii").to_string();
    set.split(';').next().expect("cookie pair").to_string()
}

async fn send(req: RequestBuilder) -> (StatusCode, Value) {
    let res = req.send().await.expect("request");
    let status = res.status();
    let text = res.text().await.expect("body");
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

/// The status each kind of route answers a browser with `cookie`: a page, a server function, the API,
/// the inbox's event stream, and the outside approvals' WebSocket.
async fn statuses(app: &App, cookie: &str) -> Vec<(&'static str, StatusCode)> {
    let get = |path: &str| anonymous().get(app.url(path)).header(COOKIE, cookie);
    let page = get("/settings").send().await.expect("page").status();
    let (server_fn, _) = app.call(cookie, ListThreads::PATH, json!({"archived": false})).await;
    let api = get("/api/threads").send().await.expect("api").status();
    let sse = get("/api/inbox/events").send().await.expect("sse").status();
    let socket = get(warden_server::api::outside::SOCKET_PATH)
        .header("connection", "upgrade")
        .header("upgrade", "websocket")
        .header("sec-websocket-version", "13")
        .header("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ==")
        .send()
        .await
        .expect("socket")
        .status();
    vec![("page", page), ("server function", server_fn), ("api", api), ("sse", sse), ("websocket", socket)]
}

fn all(status: StatusCode, except_socket: bool) -> Vec<(&'static str, StatusCode)> {
    // The WebSocket is an outside client's route: a client token opens it, never the person's cookie.
    let socket = if except_socket { StatusCode::UNAUTHORIZED } else { status };
    vec![("page", status), ("server function", status), ("api", status), ("sse", status), ("websocket", socket)]
}

#[tokio::test]
async fn a_signed_out_browser_is_refused_at_once_on_every_kind_of_route_and_its_open_stream_ends() {
    let app = App::start().await;
    let a = app.sign_in_as("Browser A", None).await;
    let b = app.sign_in_as("Browser B", None).await;
    assert_ne!(a, b, "each sign-in is a session of its own");
    assert_eq!(statuses(&app, &a).await, all(StatusCode::OK, true));

    // A's inbox stream is open, and its first event has come.
    let stream = anonymous().get(app.url("/api/inbox/events")).header(COOKIE, &a).send().await.expect("sse");
    assert_eq!(stream.status(), StatusCode::OK);
    let mut stream = stream.bytes_stream();
    let first = stream.next().await.expect("an event").expect("bytes");
    assert!(String::from_utf8_lossy(&first).contains("count"), "{first:?}");

    // B lists both, itself marked, and signs A out.
    let listed = app.list(&b).await;
    assert_eq!(listed.len(), 2, "{listed:?}");
    let this: Vec<_> = listed.iter().filter(|s| s.this_browser).map(|s| s.user_agent.as_deref()).collect();
    assert_eq!(this, vec![Some("Browser B")]);
    let other = listed.iter().find(|s| !s.this_browser).expect("A");
    assert_eq!(other.user_agent.as_deref(), Some("Browser A"));
    assert_eq!(other.address.as_deref(), Some("127.0.0.1"), "where it signed in from");
    assert!(other.created_at <= other.last_seen_at && !other.created_at.is_empty());
    let (status, body) = app.call(&b, SignOutBrowser::PATH, json!({"id": other.id})).await;
    assert_eq!(status, StatusCode::OK, "{body}");

    assert_eq!(statuses(&app, &a).await, all(StatusCode::UNAUTHORIZED, true));
    let ended = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(chunk) = stream.next().await {
            if chunk.is_err() {
                break;
            }
        }
    })
    .await;
    assert!(ended.is_ok(), "the signed-out browser's open event stream ended");
    assert_eq!(statuses(&app, &b).await, all(StatusCode::OK, true), "B is still signed in");
    let (status, body) = app.call(&b, SignOutBrowser::PATH, json!({"id": other.id})).await;
    assert_eq!((status, body.get("NotFound").is_some()), (StatusCode::NOT_FOUND, true), "{body}");
}

#[tokio::test]
async fn signing_in_again_starts_a_new_session_and_the_old_cookie_opens_nothing() {
    let app = App::start().await;
    let first = app.sign_in_as("Browser", None).await;
    let second = app.sign_in_as("Browser", Some(&first)).await;
    assert_ne!(first, second);
    assert_eq!(statuses(&app, &first).await, all(StatusCode::UNAUTHORIZED, true));
    assert_eq!(statuses(&app, &second).await, all(StatusCode::OK, true));
    let listed = app.list(&second).await;
    assert_eq!(listed.len(), 1, "the old session is gone: {listed:?}");
    assert!(listed[0].this_browser);
}

#[tokio::test]
async fn sign_out_others_keeps_this_browser_and_sign_out_everywhere_ends_it_too() {
    let app = App::start().await;
    let a = app.sign_in_as("Browser A", None).await;
    let b = app.sign_in_as("Browser B", None).await;
    let c = app.sign_in_as("Browser C", None).await;
    let (status, body) = app.call(&c, SignOutBrowsers::PATH, json!({"including_this": false})).await;
    assert_eq!((status, body), (StatusCode::OK, json!(2)));
    for gone in [&a, &b] {
        assert_eq!(statuses(&app, gone).await, all(StatusCode::UNAUTHORIZED, true));
    }
    assert_eq!(statuses(&app, &c).await, all(StatusCode::OK, true));
    // The token holder has no session: nothing is "this browser", and everything can be signed out.
    let (_, listed) = send(client().post(app.url(ListSignedInBrowsers::PATH)).json(&json!({}))).await;
    assert_eq!(listed.as_array().map(|l| l.iter().filter(|s| s["this_browser"] == true).count()), Some(0));
    let (status, body) = app.call(&c, SignOutBrowsers::PATH, json!({"including_this": true})).await;
    assert_eq!((status, body), (StatusCode::OK, json!(1)));
    assert_eq!(statuses(&app, &c).await, all(StatusCode::UNAUTHORIZED, true));
}

#[tokio::test]
async fn an_idle_or_too_old_session_is_refused_by_the_server() {
    let app = App::start().await;
    let idle = app.sign_in_as("Idle", None).await;
    let old = app.sign_in_as("Old", None).await;
    let fresh = app.sign_in_as("Fresh", None).await;
    let policy = warden_sessions::Policy::default();
    let ago = |d: Duration| warden_db::timestamp::at(SystemTime::now() - d - Duration::from_secs(60));
    // The browser keeps the cookie; the server's record says how long ago it was used and made.
    let database = app.served.engine().database();
    sqlx::query("UPDATE browser_sessions SET last_seen_at = ? WHERE user_agent = 'Idle'")
        .bind(ago(policy.idle))
        .execute(database.writer())
        .await
        .expect("aged");
    sqlx::query("UPDATE browser_sessions SET created_at = ? WHERE user_agent = 'Old'")
        .bind(ago(policy.absolute))
        .execute(database.writer())
        .await
        .expect("aged");
    assert_eq!(statuses(&app, &idle).await, all(StatusCode::UNAUTHORIZED, true));
    assert_eq!(statuses(&app, &old).await, all(StatusCode::UNAUTHORIZED, true));
    assert_eq!(statuses(&app, &fresh).await, all(StatusCode::OK, true));
    let listed: Vec<_> = app.list(&fresh).await.into_iter().filter_map(|s| s.user_agent).collect();
    assert_eq!(listed, vec!["Fresh".to_string()]);
}

#[tokio::test]
async fn the_cookie_names_a_random_session_never_the_token_and_is_secure_behind_https() {
    let app = App::start().await;
    let cookie = app.sign_in_as("Browser", None).await;
    let value = cookie.split_once('=').expect("pair").1;
    assert_eq!(value.len(), 64);
    assert!(!value.contains(TOKEN));
    // The database keeps no secret that would sign anyone in.
    let database = app.served.engine().database();
    let stored: Vec<(String,)> =
        sqlx::query_as("SELECT secret_hash FROM browser_sessions").fetch_all(database.pool()).await.expect("rows");
    assert!(stored.iter().all(|(hash,)| hash != value));

    // Behind a TLS proxy: `__Host-` and `Secure`, and that cookie signs in.
    let res = anonymous()
        .get(app.url(&format!("/?token={TOKEN}")))
        .header("x-forwarded-proto", "https")
        .send()
        .await
        .expect("request");
    let set = res.headers()[SET_COOKIE].to_str().expect("ascii").to_string();
    assert!(set.starts_with(&format!("__Host-warden_session_{}=", app.served.addr.port())), "{set}");
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/", "Secure"] {
        assert!(set.split(';').any(|a| a.trim() == attribute), "{attribute} in {set}");
    }
    assert!(!set.contains("Domain"), "{set}");
    let secure = set.split(';').next().expect("pair").to_string();
    assert_eq!(statuses(&app, &secure).await, all(StatusCode::OK, true));
}

#[tokio::test]
async fn the_signed_in_browser_functions_refuse_strangers() {
    let app = App::start().await;
    let cookie = app.sign_in_as("Browser", None).await;
    let calls = [
        (ListSignedInBrowsers::PATH, json!({})),
        (SignOutBrowser::PATH, json!({"id": "any"})),
        (SignOutBrowsers::PATH, json!({"including_this": true})),
    ];
    for (path, args) in &calls {
        let (status, body) = send(anonymous().post(app.url(path)).json(args)).await;
        assert_eq!((status, &body["error"]["code"]), (StatusCode::UNAUTHORIZED, &json!("unauthorized")), "{path}");
        for (name, value) in [("origin", "http://evil.example"), ("sec-fetch-site", "cross-site")] {
            let req = anonymous().post(app.url(path)).header(COOKIE, &cookie).header(name, value).json(args);
            let (status, body) = send(req).await;
            assert_eq!((status, &body["error"]["code"]), (StatusCode::FORBIDDEN, &json!("cross_origin")), "{path}");
        }
        let host = format!("evil.example:{}", app.served.addr.port());
        let req = anonymous().post(app.url(path)).header(COOKIE, &cookie).header(HOST, host).json(args);
        let (status, body) = send(req).await;
        assert_eq!((status, &body["error"]["code"]), (StatusCode::FORBIDDEN, &json!("host_not_allowed")), "{path}");
    }
    assert_eq!(app.list(&cookie).await.len(), 1, "nobody was signed out");
}

/// Sessions are rows, not a key in memory: a cookie from before a SIGKILL and restart of the real
/// binary still signs in, until it is signed out.
#[tokio::test]
async fn a_session_outlives_a_restart_of_the_binary_until_it_is_signed_out() {
    let data = tempfile::tempdir().expect("temp dir");
    let server = ServerProcess::start(data.path(), &[]).await;
    let port = server.port;
    let cookie = sign_in(&server.base, "Browser", None).await;
    let get = |base: &str| anonymous().get(format!("{base}/api/threads")).header(COOKIE, cookie.as_str()).send();
    assert_eq!(get(&server.base).await.expect("request").status(), StatusCode::OK);
    server.kill();

    let server = ServerProcess::start_on(port, data.path(), &[]).await;
    assert_eq!(get(&server.base).await.expect("request").status(), StatusCode::OK, "the session outlived the restart");
    let (_, listed) =
        send(client().post(format!("{}{}", server.base, ListSignedInBrowsers::PATH)).json(&json!({}))).await;
    let id = listed[0]["id"].as_str().expect("the session's id").to_string();
    let req = client().post(format!("{}{}", server.base, SignOutBrowser::PATH)).json(&json!({"id": id}));
    assert_eq!(send(req).await.0, StatusCode::OK);
    assert_eq!(get(&server.base).await.expect("request").status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn a_cookie_is_a_session_of_the_server_that_made_it_not_a_bearer_for_any_warden_with_the_token() {
    let one = App::start().await;
    let other = App::start().await;
    let cookie = one.sign_in_as("Browser", None).await;
    assert_eq!(statuses(&one, &cookie).await, all(StatusCode::OK, true));
    // The same value under the other server's cookie name (the name carries the port): another data
    // dir with the same token never issued it.
    let value = cookie.split_once('=').expect("a cookie pair").1;
    let moved = format!("warden_session_{}={value}", other.served.addr.port());
    assert_eq!(statuses(&other, &moved).await, all(StatusCode::UNAUTHORIZED, false));
}
