//! The access gate over real HTTP: the whole app (pages, server functions, API) on port 0 behind the
//! real gate and server loop. Each test is an attack that worked before the gate existed.

use crate::common;

use std::time::Duration;

use leptos::prelude::LeptosOptions;
use leptos::server_fn::ServerFn;
use reqwest::header::{COOKIE, HOST, LOCATION, ORIGIN, SET_COOKIE};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use tempfile::TempDir;
use warden_engine::config::Config;

use crate::common::{anonymous, client, Served, TOKEN};

struct App {
    dir: TempDir,
    served: Served,
}

impl App {
    async fn start() -> App {
        let dir = tempfile::tempdir().expect("temp dir");
        let served = common::serve_app(
            Config::with_data_dir(dir.path()),
            LeptosOptions::builder().output_name("warden").build(),
        )
        .await;
        App { dir, served }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{}", self.served.base, path)
    }

    fn port(&self) -> u16 {
        self.served.addr.port()
    }

    /// Signs in the way a browser does and returns the `name=value` pair of the session cookie.
    async fn sign_in(&self) -> String {
        let res = anonymous().get(self.url(&format!("/?token={TOKEN}"))).send().await.expect("request");
        assert_eq!(res.status(), StatusCode::SEE_OTHER);
        let set = res.headers()[SET_COOKIE].to_str().expect("ascii").to_string();
        set.split(';').next().expect("cookie pair").to_string()
    }
}

async fn error_code(res: reqwest::Response) -> (StatusCode, String) {
    let status = res.status();
    let body: Value = res.json().await.unwrap_or(Value::Null);
    (status, body["error"]["code"].as_str().unwrap_or("<not the JSON error>").to_string())
}

/// `cd dir && touch marker`, as an MCP stdio server command: proves whether it was started.
fn marker_server(dir: &std::path::Path) -> Value {
    let marker = dir.join("started-marker");
    json!({"name": "probe", "transport": {"type": "stdio", "command": "sh", "args": ["-c", format!("touch '{}'", marker.display())]}})
}

#[tokio::test]
async fn a_dns_rebinding_page_is_refused_by_host_even_with_a_matching_origin() {
    let app = App::start().await;
    let evil = format!("evil.example:{}", app.port());
    for (method, path) in [
        (Method::POST, "/api/threads"),
        (Method::GET, "/api/threads"),
        (Method::GET, "/api/health"),
        (Method::GET, "/"),
    ] {
        // The browser sends the attacker's name as Host and as Origin: they match each other.
        let res = client()
            .request(method.clone(), app.url(path))
            .header(HOST, &evil)
            .header(ORIGIN, format!("http://{evil}"))
            .json(&json!({}))
            .send()
            .await
            .expect("request");
        assert_eq!(error_code(res).await, (StatusCode::FORBIDDEN, "host_not_allowed".to_string()), "{method} {path}");
    }
    // The same requests by a loopback name are served.
    let res = client()
        .get(app.url("/api/health"))
        .header(HOST, format!("localhost:{}", app.port()))
        .send()
        .await
        .expect("request");
    assert_eq!(res.status(), StatusCode::OK);
}

#[tokio::test]
async fn without_the_token_the_api_pages_and_server_functions_answer_401() {
    let app = App::start().await;
    let http = anonymous();
    for (method, path) in [
        (Method::GET, "/api/threads"),
        (Method::POST, "/api/threads"),
        (Method::GET, "/api/mcp/export"),
        (Method::GET, "/api/approvals"),
        (Method::GET, "/api/search?q=secret"),
        (Method::GET, "/api/threads/some-thread/export.json"),
        (Method::GET, "/api/threads/some-thread/export.md"),
        (Method::POST, "/api/threads/import"),
        (Method::POST, "/api/threads/t/messages/m/edit"),
        (Method::POST, "/api/threads/t/messages/m/regenerate"),
        (Method::PUT, "/api/threads/t/branch"),
        (Method::GET, "/api/threads/t/runs"),
        (Method::POST, "/api/threads/t/title"),
    ] {
        let res = http.request(method.clone(), app.url(path)).send().await.expect("request");
        assert_eq!(res.headers()["www-authenticate"], "Bearer", "{method} {path}");
        assert_eq!(error_code(res).await, (StatusCode::UNAUTHORIZED, "unauthorized".to_string()), "{method} {path}");
    }
    let list_threads = warden_app::server_fns::ListThreads::PATH;
    let res = http.post(app.url(list_threads)).form(&[("archived", "false")]).send().await.expect("request");
    assert_eq!(
        error_code(res).await,
        (StatusCode::UNAUTHORIZED, "unauthorized".to_string()),
        "server function {list_threads}"
    );
    for path in [
        warden_app::server_fns::SearchThreads::PATH,
        warden_app::server_fns::SetPinned::PATH,
        warden_app::server_fns::ImportThread::PATH,
        warden_app::server_fns::EditMessage::PATH,
        warden_app::server_fns::RegenerateAnswer::PATH,
        warden_app::server_fns::SwitchBranch::PATH,
        warden_app::server_fns::RegenerateTitle::PATH,
        warden_app::server_fns::outside_linked::LinkedOutsideRequests::PATH,
        warden_app::server_fns::GetThread::PATH,
        warden_app::server_fns::EarlierMessages::PATH,
    ] {
        let res = http
            .post(app.url(path))
            .form(&[
                ("query", "x"),
                ("id", "x"),
                ("pinned", "true"),
                ("text", "{}"),
                ("thread_id", "x"),
                ("before", "x"),
            ])
            .send()
            .await;
        let res = res.expect("request");
        assert_eq!(error_code(res).await, (StatusCode::UNAUTHORIZED, "unauthorized".to_string()), "{path}");
    }
    // With the token the same server function answers.
    let res = client().post(app.url(list_threads)).json(&json!({"archived": false})).send().await.expect("request");
    assert_eq!(res.status(), StatusCode::OK);

    for path in ["/", "/settings", "/chat/some-thread"] {
        let res = http.get(app.url(path)).send().await.expect("request");
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "{path}");
        let html = res.text().await.expect("body");
        assert!(html.contains("Sign in to Warden") && html.contains("?token="), "{html}");
        // No script of the app's: only the sign-in page's own passkey script, from this origin.
        let scripts = html.matches("<script").count();
        assert!(
            !html.contains("What should we work on?")
                && scripts == html.matches(r#"<script src="/passkeys.js""#).count(),
            "the app is not served: {html}"
        );
    }
    // Health stays open for monitors.
    assert_eq!(http.get(app.url("/api/health")).send().await.expect("request").status(), StatusCode::OK);
}

#[tokio::test]
async fn a_bearer_token_opens_the_api_and_a_wrong_one_does_not() {
    let app = App::start().await;
    let (s, _) = common::send_json(&client(), Method::POST, app.url("/api/threads"), Some(json!({}))).await;
    assert_eq!(s, StatusCode::CREATED);
    let wrong = format!("Bearer {}x", TOKEN);
    let res = anonymous().get(app.url("/api/threads")).header("authorization", wrong).send().await.expect("request");
    assert_eq!(error_code(res).await, (StatusCode::UNAUTHORIZED, "unauthorized".to_string()));
    let res = anonymous()
        .get(app.url("/api/threads"))
        .header("authorization", format!("Basic {TOKEN}"))
        .send()
        .await
        .expect("request");
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    // A wrong bearer is refused even when a valid cookie comes along: the caller meant the header.
    let cookie = app.sign_in().await;
    let res = anonymous()
        .get(app.url("/api/threads"))
        .header(COOKIE, &cookie)
        .header("authorization", "Bearer nope")
        .send()
        .await
        .expect("request");
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn the_sign_in_link_sets_an_http_only_strict_cookie_and_redirects_without_the_token() {
    let app = App::start().await;
    let res =
        anonymous().get(app.url(&format!("/chat/abc?x=1&token={TOKEN}&y=two%20words"))).send().await.expect("request");
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(res.headers()[LOCATION], "/chat/abc?x=1&y=two+words");
    let set = res.headers()[SET_COOKIE].to_str().expect("ascii").to_string();
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(set.split(';').any(|a| a.trim() == attribute), "{attribute} in {set}");
    }
    assert!(!set.contains(TOKEN), "the cookie is not the raw token: {set}");
    let cookie = set.split(';').next().expect("pair").to_string();

    // The cookie opens pages, the API and server functions.
    let res = anonymous().get(app.url("/")).header(COOKIE, &cookie).send().await.expect("request");
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res.text().await.expect("body").contains("What should we work on?"));
    let res = anonymous()
        .post(app.url("/api/threads"))
        .header(COOKIE, &cookie)
        .header(ORIGIN, app.served.base.clone())
        .json(&json!({}))
        .send()
        .await
        .expect("request");
    assert_eq!(res.status(), StatusCode::CREATED);
    let res = anonymous()
        .post(app.url(warden_app::server_fns::ListThreads::PATH))
        .header(COOKIE, &cookie)
        .header(ORIGIN, app.served.base.clone())
        .json(&json!({"archived": false}))
        .send()
        .await
        .expect("request");
    assert_eq!(res.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_wrong_sign_in_link_is_refused_and_sets_no_cookie() {
    let app = App::start().await;
    for bad in ["nope", &format!("{TOKEN}0"), &TOKEN[1..], ""] {
        let res = anonymous().get(app.url(&format!("/?token={bad}"))).send().await.expect("request");
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "{bad}");
        assert!(res.headers().get(SET_COOKIE).is_none(), "{bad}");
        assert!(res.text().await.expect("body").contains("not valid"), "{bad}");
    }
    // A made-up cookie is no session either.
    let res = anonymous()
        .get(app.url("/api/threads"))
        .header(COOKIE, format!("warden_session_{}={TOKEN}", app.port()))
        .send()
        .await
        .expect("request");
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn a_cross_site_request_is_refused_even_with_a_valid_cookie() {
    let app = App::start().await;
    let cookie = app.sign_in().await;
    let other_port = format!("http://127.0.0.1:{}", app.port().wrapping_add(1).max(1));
    for (name, value) in [
        ("origin", "http://evil.example"),
        ("origin", other_port.as_str()),
        ("origin", "null"),
        ("sec-fetch-site", "cross-site"),
    ] {
        let res = anonymous()
            .post(app.url("/api/threads"))
            .header(COOKIE, &cookie)
            .header(name, value)
            .json(&json!({}))
            .send()
            .await
            .expect("request");
        assert_eq!(error_code(res).await, (StatusCode::FORBIDDEN, "cross_origin".to_string()), "{name}: {value}");
    }
    let (_, list) = common::send_json(&client(), Method::GET, app.url("/api/threads"), None).await;
    assert_eq!(list.as_array().map(Vec::len), Some(0), "nothing was created: {list}");
}

#[tokio::test]
async fn testing_an_mcp_server_without_the_token_starts_no_process() {
    let app = App::start().await;
    let marker = app.dir.path().join("started-marker");
    let config = marker_server(app.dir.path());
    for path in ["/api/mcp/test", "/api/mcp/servers"] {
        let res = anonymous().post(app.url(path)).json(&config).send().await.expect("request");
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "{path}");
    }
    let import = json!({"mcpServers": {"probe": {"command": "sh", "args": config["transport"]["args"]}}});
    let res = anonymous().post(app.url("/api/mcp/import")).body(import.to_string()).send().await.expect("request");
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    // A signed-in browser tab on another site is refused too.
    let cookie = app.sign_in().await;
    let res = anonymous()
        .post(app.url("/api/mcp/test"))
        .header(COOKIE, &cookie)
        .header(ORIGIN, "http://evil.example")
        .json(&config)
        .send()
        .await
        .expect("request");
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    assert!(!marker.exists(), "an unauthenticated request started the command");

    // The marker is a real witness: with the token the same request does start it.
    let res = client().post(app.url("/api/mcp/test")).json(&config).send().await.expect("request");
    assert_ne!(res.status(), StatusCode::UNAUTHORIZED);
    let started = async {
        while !marker.exists() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(30), started).await.expect("the authorised test started the command");
}

/// A name allowed without a port (`WARDEN_ALLOWED_HOSTS=name`): another server on `name:8081` is
/// another origin, though the browser sends it Warden's cookie (cookies ignore ports, and SameSite
/// counts `name:8081` as the same site). Its form that would add and start an MCP command is refused,
/// and a request addressed to `name:8081` is not served; `name:*` trusts every port on purpose.
#[tokio::test]
async fn a_name_allowed_without_a_port_does_not_trust_its_other_ports() {
    let dir = tempfile::tempdir().expect("temp dir");
    let options = LeptosOptions::builder().output_name("warden").build();
    let served = common::serve_app_allowing(Config::with_data_dir(dir.path()), options, "warden.test").await;
    let port = served.addr.port();
    let url = |path: &str| format!("{}{}", served.base, path);
    let cookie = sign_in_at(&served).await;
    let marker = dir.path().join("started-marker");
    let import =
        json!({"mcpServers": {"probe": {"command": "sh", "args": marker_server(dir.path())["transport"]["args"]}}});

    // The page on the other port posts to Warden at its own port: Host is fine, the origin is not.
    let save = warden_app::server_fns::mcp::SaveMcpServer::PATH;
    let import_fn = warden_app::server_fns::mcp::ImportMcpServers::PATH;
    let attempts = [
        (save, "application/x-www-form-urlencoded", "config[name]=probe".to_string()),
        (import_fn, "application/x-www-form-urlencoded", format!("json={}", import)),
        (import_fn, "application/json", json!({"json": import.to_string()}).to_string()),
        ("/api/mcp/import", "application/json", import.to_string()),
    ];
    for (path, content_type, body) in &attempts {
        let res = anonymous()
            .post(url(path))
            .header(HOST, format!("warden.test:{port}"))
            .header(ORIGIN, "http://warden.test:8081")
            .header(COOKIE, &cookie)
            .header("content-type", *content_type)
            .body(body.clone())
            .send()
            .await
            .expect("request");
        assert_eq!(error_code(res).await, (StatusCode::FORBIDDEN, "cross_origin".to_string()), "{path}");
    }
    // Addressed to the other port itself (a proxy there forwarding to Warden): not a name Warden has.
    let res = anonymous()
        .get(url("/api/threads"))
        .header(HOST, "warden.test:8081")
        .header(COOKIE, &cookie)
        .send()
        .await
        .expect("request");
    assert_eq!(error_code(res).await, (StatusCode::FORBIDDEN, "host_not_allowed".to_string()));
    // The name on Warden's own port, and bare (a proxy on the scheme's port), are Warden.
    for (host, origin) in [
        (format!("warden.test:{port}"), format!("http://warden.test:{port}")),
        ("warden.test".to_string(), "https://warden.test".to_string()),
    ] {
        let res = anonymous()
            .post(url("/api/threads"))
            .header(HOST, host.as_str())
            .header(ORIGIN, origin.as_str())
            .header(COOKIE, &cookie)
            .json(&json!({}))
            .send()
            .await
            .expect("request");
        assert_eq!(res.status(), StatusCode::CREATED, "{host} from {origin}");
    }
    assert!(!marker.exists(), "the other port's page started the command");
    let (_, servers) = common::send_json(&client(), Method::GET, url("/api/mcp/servers"), None).await;
    assert_eq!(servers, json!([]), "no MCP server was added");

    // `name:*` trusts every port: served, and a form is still no way to call a server function.
    let dir = tempfile::tempdir().expect("temp dir");
    let options = LeptosOptions::builder().output_name("warden").build();
    let served = common::serve_app_allowing(Config::with_data_dir(dir.path()), options, "warden.test:*").await;
    let cookie = sign_in_at(&served).await;
    let res = anonymous()
        .get(format!("{}/api/threads", served.base))
        .header(HOST, "warden.test:8081")
        .header(COOKIE, &cookie)
        .send()
        .await
        .expect("request");
    assert_eq!(res.status(), StatusCode::OK);
    let res = anonymous()
        .post(format!("{}{}", served.base, import_fn))
        .header(HOST, format!("warden.test:{}", served.addr.port()))
        .header(ORIGIN, "http://warden.test:8081")
        .header(COOKIE, &cookie)
        .form(&[("json", import.to_string())])
        .send()
        .await
        .expect("request");
    assert_eq!(error_code(res).await, (StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type".to_string()));
    assert!(!dir.path().join("started-marker").exists());
}

/// Signs in to `served` the way a browser does; the cookie's `name=value`.
async fn sign_in_at(served: &Served) -> String {
    let res = anonymous().get(format!("{}/?token={TOKEN}", served.base)).send().await.expect("request");
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let set = res.headers()[SET_COOKIE].to_str().expect("ascii").to_string();
    set.split(';').next().expect("cookie pair").to_string()
}

/// Every server function the registry holds (so one added later is covered without being named here)
/// refuses a form, a multipart form, `text/plain` and a body with no type, even from Warden's own page
/// with a valid session: those are the bodies another page can send without a CORS preflight.
#[tokio::test]
async fn every_server_function_refuses_a_body_that_is_not_json() {
    let app = App::start().await;
    let cookie = app.sign_in().await;
    let paths: Vec<&'static str> = leptos::server_fn::axum::server_fn_paths().map(|(path, _)| path).collect();
    assert!(paths.len() >= 50, "the registry lists the app's server functions: {paths:?}");
    assert!(paths.contains(&warden_app::server_fns::mcp::ImportMcpServers::PATH));
    let import =
        json!({"mcpServers": {"probe": {"command": "sh", "args": marker_server(app.dir.path())["transport"]["args"]}}});
    let json_text = json!({"json": import.to_string()}).to_string();
    for path in &paths {
        for (content_type, body) in [
            (Some("application/x-www-form-urlencoded"), format!("json={}", import)),
            (
                Some("multipart/form-data; boundary=x"),
                "--x\r\nContent-Disposition: form-data; name=\"json\"\r\n\r\n{}\r\n--x--\r\n".to_string(),
            ),
            // A form with enctype=text/plain can carry a body that parses as JSON.
            (Some("text/plain"), json_text.clone()),
            (None, json_text.clone()),
            (Some("application/jsonx"), json_text.clone()),
        ] {
            let mut req = anonymous()
                .post(app.url(path))
                .header(COOKIE, &cookie)
                .header(ORIGIN, app.served.base.clone())
                .body(body);
            if let Some(content_type) = content_type {
                req = req.header("content-type", content_type);
            }
            let res = req.send().await.expect("request");
            assert_eq!(
                error_code(res).await,
                (StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type".to_string()),
                "{path} with {content_type:?}"
            );
        }
        // Nor by GET.
        let res = anonymous().get(app.url(path)).header(COOKIE, &cookie).send().await.expect("request");
        assert_eq!(res.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE, "GET {path}");
    }
    assert!(!app.dir.path().join("started-marker").exists(), "no MCP command was imported and started");
    // JSON (with a charset) is what the app's own pages send, and it is served.
    let res = anonymous()
        .post(app.url(warden_app::server_fns::ListThreads::PATH))
        .header(COOKIE, &cookie)
        .header(ORIGIN, app.served.base.clone())
        .header("content-type", "application/json; charset=utf-8")
        .body(json!({"archived": false}).to_string())
        .send()
        .await
        .expect("request");
    assert_eq!(res.status(), StatusCode::OK);
}
