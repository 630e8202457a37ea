//! The `/api/mcp` routes over real HTTP: the real router on port 0, a real SQLite file, and the real
//! rmcp fixture server (`warden-mcp-fixture`) as a stdio child or a Streamable HTTP endpoint. Every
//! route, its error cases, secret redaction and the same-origin check.

use crate::common;

use std::time::Duration;

use reqwest::{Client, Method, StatusCode};
use serde_json::{json, Value};
use tempfile::TempDir;
use warden_engine::config::Config;
use warden_mcp::McpHub;
use warden_tools::{ToolContent, ToolContext};

use warden_mcp_fixture::{binary as fixture_bin, serve_http as http_fixture, PATIENCE};

fn fixture_command() -> String {
    fixture_bin().display().to_string()
}

/// A stdio config for the fixture, as a client would post it.
fn stdio(name: &str) -> Value {
    json!({"name": name, "transport": {"type": "stdio", "command": fixture_command(), "args": []}})
}

struct Api {
    dir: TempDir,
    hub: McpHub,
    base: String,
    http: Client,
}

impl Api {
    async fn start() -> Api {
        let dir = tempfile::tempdir().unwrap();
        let served = common::serve_api(Config::with_data_dir(dir.path())).await;
        Api { dir, hub: served.mcp().clone(), base: served.base, http: common::client() }
    }

    /// The whole app (pages and server functions too), not only the API.
    async fn start_app() -> Api {
        let dir = tempfile::tempdir().unwrap();
        let leptos_options = leptos::prelude::LeptosOptions::builder().output_name("warden").build();
        let served = common::serve_app(Config::with_data_dir(dir.path()), leptos_options).await;
        Api { dir, hub: served.mcp().clone(), base: served.base, http: common::client() }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    async fn json(&self, method: Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        common::send_json(&self.http, method, self.url(path), body).await
    }

    /// The raw text of a GET, to check that a secret appears nowhere in it.
    async fn text(&self, path: &str) -> String {
        let res = self.http.get(self.url(path)).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::OK, "GET {path}");
        res.text().await.unwrap()
    }

    async fn add(&self, config: Value) -> Value {
        let (s, body) = self.json(Method::POST, "/api/mcp/servers", Some(config)).await;
        assert_eq!(s, StatusCode::OK, "{body}");
        body
    }

    /// Polls `GET /api/mcp/servers/{name}` until `done` holds.
    async fn wait_for(&self, name: &str, what: &str, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let (s, status) = self.json(Method::GET, &format!("/api/mcp/servers/{name}"), None).await;
            if s == StatusCode::OK && done(&status) {
                return status;
            }
            assert!(tokio::time::Instant::now() < deadline, "gave up waiting for {name} to be {what}: {s} {status}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn wait_connected(&self, name: &str) -> Value {
        self.wait_for(name, "connected", |s| s["state"]["state"] == "connected").await
    }

    /// Calls a tool the hub offers the model (`server__tool`) and returns its text.
    async fn call_tool(&self, qualified: &str, args: Value) -> String {
        let tools = self.hub.tools();
        let names: Vec<String> = tools.iter().map(|t| t.spec().name).collect();
        let tool = tools
            .into_iter()
            .find(|t| t.spec().name == qualified)
            .unwrap_or_else(|| panic!("no tool {qualified} in {names:?}"));
        let ctx = ToolContext {
            cancel: tokio_util::sync::CancellationToken::new(),
            progress: None,
            network: false,
            call_id: None,
        };
        let output = tokio::time::timeout(PATIENCE, tool.call(args, ctx))
            .await
            .expect("the call ends")
            .expect("the call succeeds");
        assert!(!output.is_error, "{output:?}");
        output
            .content
            .iter()
            .filter_map(|c| match c {
                ToolContent::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    async fn shutdown(self) {
        self.hub.shutdown().await;
    }
}

fn tool<'a>(status: &'a Value, name: &str) -> &'a Value {
    status["tools"]
        .as_array()
        .expect("tools is a list")
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name} in {status}"))
}

fn names(list: &Value) -> Vec<String> {
    let mut names: Vec<String> =
        list.as_array().expect("a list").iter().map(|s| s["name"].as_str().unwrap().to_owned()).collect();
    names.sort();
    names
}

#[track_caller]
fn assert_error(status: StatusCode, body: &Value, want: StatusCode, code: &str) {
    assert_eq!(status, want, "{body}");
    assert_eq!(body["error"]["code"], code, "{body}");
    assert!(body["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "the error explains itself: {body}");
}

#[tokio::test]
async fn the_list_starts_empty_and_an_added_stdio_server_connects_with_namespaced_tools() {
    let api = Api::start().await;
    let (s, list) = api.json(Method::GET, "/api/mcp/servers", None).await;
    assert_eq!((s, list), (StatusCode::OK, json!([])));

    let added = api.add(stdio("fixture")).await;
    assert_eq!(added["name"], "fixture");
    assert_eq!(added["enabled"], true);
    assert!(added["state"]["state"].is_string(), "state is tagged: {added}");
    let config = &added["config"];
    assert_eq!(config["transport"], json!({"type": "stdio", "command": fixture_command(), "args": [], "env": {}}));
    assert_eq!(
        (&config["trust_read_only_hints"], &config["tool_policies"], &config["call_timeout_secs"]),
        (&json!(false), &json!({}), &json!(120)),
        "defaults are filled in"
    );

    let status = api.wait_connected("fixture").await;
    assert_eq!(status["server_info"]["name"], "warden-mcp-fixture");
    let echo = tool(&status, "echo");
    assert_eq!(echo["qualified_name"], "fixture__echo");
    assert_eq!(echo["read_only_hint"], true);
    assert_eq!(echo["risk"], "low");
    assert_eq!(echo["policy"], "default");
    assert_eq!(echo["offline"], false);
    assert_eq!(echo["needs_approval"], true, "read-only hints are not trusted by default");
    let delete = tool(&status, "delete_item");
    assert_eq!(
        (&delete["qualified_name"], &delete["destructive_hint"], &delete["risk"]),
        (&json!("fixture__delete_item"), &json!(true), &json!("high"))
    );
    for t in status["tools"].as_array().unwrap() {
        assert!(t["qualified_name"].as_str().unwrap().starts_with("fixture__"), "{t}");
    }

    let (s, list) = api.json(Method::GET, "/api/mcp/servers", None).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(names(&list), ["fixture"]);
    assert_eq!(list[0]["state"], json!({"state": "connected"}));

    let (s, body) = api.json(Method::GET, "/api/mcp/servers/nope", None).await;
    assert_error(s, &body, StatusCode::NOT_FOUND, "not_found");
    api.shutdown().await;
}

/// A server saved by the settings page's server function goes on connecting after the function has
/// answered: what a server function starts outlives its request (it ran in a runtime of its own once,
/// and the connection died with it, "Connecting…" for ever).
#[tokio::test]
async fn a_server_saved_by_the_settings_server_function_connects_after_it_answers() {
    use leptos::server_fn::ServerFn;

    let api = Api::start_app().await;
    let saved = api
        .http
        .post(api.url(warden_app::server_fns::mcp::SaveMcpServer::PATH))
        .json(&json!({"config": stdio("later")}))
        .send()
        .await
        .unwrap();
    assert_eq!(saved.status(), StatusCode::OK, "{}", saved.text().await.unwrap());
    let status = api.wait_connected("later").await;
    assert_eq!(status["server_info"]["name"], "warden-mcp-fixture");
}

#[tokio::test]
async fn disabling_a_server_disconnects_it_and_enabling_connects_it_again() {
    let api = Api::start().await;
    api.add(stdio("toggle")).await;
    api.wait_connected("toggle").await;

    let (s, off) = api.json(Method::PUT, "/api/mcp/servers/toggle/enabled", Some(json!({"enabled": false}))).await;
    assert_eq!(s, StatusCode::OK, "{off}");
    assert_eq!((&off["enabled"], &off["state"]), (&json!(false), &json!({"state": "disabled"})));
    assert!(
        off["tools"].as_array().unwrap().iter().all(|t| t["offline"] == true),
        "last-known tools are shown offline: {off}"
    );
    let (_, got) = api.json(Method::GET, "/api/mcp/servers/toggle", None).await;
    assert_eq!(got["state"], json!({"state": "disabled"}));
    assert!(api.hub.tools().is_empty(), "a disabled server offers no tools");

    let (s, on) = api.json(Method::PUT, "/api/mcp/servers/toggle/enabled", Some(json!({"enabled": true}))).await;
    assert_eq!((s, &on["enabled"]), (StatusCode::OK, &json!(true)));
    api.wait_connected("toggle").await;

    let (s, body) = api.json(Method::PUT, "/api/mcp/servers/nope/enabled", Some(json!({"enabled": true}))).await;
    assert_error(s, &body, StatusCode::NOT_FOUND, "not_found");
    for bad in [json!({"enabled": "yes"}), json!({}), json!({"enabled": true, "colour": "red"})] {
        let (s, body) = api.json(Method::PUT, "/api/mcp/servers/toggle/enabled", Some(bad.clone())).await;
        assert_error(s, &body, StatusCode::UNPROCESSABLE_ENTITY, "invalid_request");
    }
    api.shutdown().await;
}

#[tokio::test]
async fn reconnect_answers_once_the_attempt_connected_or_failed() {
    let api = Api::start().await;
    api.add(stdio("again")).await;
    api.wait_connected("again").await;
    let (s, status) = api.json(Method::POST, "/api/mcp/servers/again/reconnect", None).await;
    assert_eq!(s, StatusCode::OK, "{status}");
    assert_eq!(status["state"], json!({"state": "connected"}));
    assert_eq!(tool(&status, "echo")["offline"], false);

    // A server that refuses to start while a file exists: the reconnect reports the failure.
    let down = api.dir.path().join("down");
    std::fs::write(&down, "").unwrap();
    let mut flaky = stdio("flaky");
    flaky["transport"]["args"] = json!(["--down-while", down.display().to_string()]);
    api.add(flaky).await;
    let (s, status) = api.json(Method::POST, "/api/mcp/servers/flaky/reconnect", None).await;
    assert_eq!(s, StatusCode::OK, "{status}");
    assert_eq!(status["state"]["state"], "failed", "{status}");
    assert!(status["state"]["error"].as_str().is_some_and(|e| !e.is_empty()), "{status}");
    std::fs::remove_file(&down).unwrap();
    let (s, status) = api.json(Method::POST, "/api/mcp/servers/flaky/reconnect", None).await;
    assert_eq!((s, &status["state"]), (StatusCode::OK, &json!({"state": "connected"})));

    let (s, body) = api.json(Method::POST, "/api/mcp/servers/nope/reconnect", None).await;
    assert_error(s, &body, StatusCode::NOT_FOUND, "not_found");
    api.shutdown().await;
}

#[tokio::test]
async fn a_tool_policy_changes_the_tool_and_an_unknown_server_is_404() {
    let api = Api::start().await;
    api.add(stdio("pol")).await;
    api.wait_connected("pol").await;

    let (s, status) =
        api.json(Method::PUT, "/api/mcp/servers/pol/tools/echo/policy", Some(json!({"policy": "never_ask"}))).await;
    assert_eq!(s, StatusCode::OK, "{status}");
    assert_eq!(
        (&tool(&status, "echo")["policy"], &tool(&status, "echo")["needs_approval"]),
        (&json!("never_ask"), &json!(false))
    );
    assert_eq!(status["config"]["tool_policies"], json!({"echo": "never_ask"}));

    let (s, status) = api
        .json(Method::PUT, "/api/mcp/servers/pol/tools/delete_item/policy", Some(json!({"policy": "disabled"})))
        .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(tool(&status, "delete_item")["policy"], "disabled");
    let offered: Vec<String> = api.hub.tools().iter().map(|t| t.spec().name).collect();
    assert!(
        offered.contains(&"pol__echo".to_owned()) && !offered.contains(&"pol__delete_item".to_owned()),
        "{offered:?}"
    );

    let (s, status) =
        api.json(Method::PUT, "/api/mcp/servers/pol/tools/echo/policy", Some(json!({"policy": "default"}))).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        (&tool(&status, "echo")["policy"], &tool(&status, "echo")["needs_approval"]),
        (&json!("default"), &json!(true))
    );
    let (_, got) = api.json(Method::GET, "/api/mcp/servers/pol", None).await;
    assert_eq!(got["config"]["tool_policies"], json!({"delete_item": "disabled"}), "default removes the override");

    let (s, body) =
        api.json(Method::PUT, "/api/mcp/servers/nope/tools/echo/policy", Some(json!({"policy": "always_ask"}))).await;
    assert_error(s, &body, StatusCode::NOT_FOUND, "not_found");
    let (s, body) =
        api.json(Method::PUT, "/api/mcp/servers/pol/tools/echo/policy", Some(json!({"policy": "sometimes"}))).await;
    assert_error(s, &body, StatusCode::UNPROCESSABLE_ENTITY, "invalid_request");
    api.shutdown().await;
}

#[tokio::test]
async fn testing_a_connection_lists_tools_without_saving_and_a_missing_command_is_502() {
    let api = Api::start().await;
    let (s, probe) = api.json(Method::POST, "/api/mcp/test", Some(stdio("probe"))).await;
    assert_eq!(s, StatusCode::OK, "{probe}");
    assert_eq!(probe["server_info"]["name"], "warden-mcp-fixture");
    assert_eq!(tool(&probe, "echo")["qualified_name"], "probe__echo");
    assert_eq!(tool(&probe, "echo")["offline"], false);
    let (_, list) = api.json(Method::GET, "/api/mcp/servers", None).await;
    assert_eq!(list, json!([]), "a test saves nothing");

    let missing =
        json!({"name": "ghost", "transport": {"type": "stdio", "command": "/nonexistent/warden-no-such-server"}});
    let (s, body) = api.json(Method::POST, "/api/mcp/test", Some(missing)).await;
    assert_error(s, &body, StatusCode::BAD_GATEWAY, "connect_failed");
    assert!(body["error"]["message"].as_str().unwrap().contains("could not start"), "{body}");

    let (s, body) = api.json(Method::POST, "/api/mcp/test", Some(stdio("bad__name"))).await;
    assert_error(s, &body, StatusCode::UNPROCESSABLE_ENTITY, "invalid_request");
    api.shutdown().await;
}

#[tokio::test]
async fn invalid_configs_and_malformed_json_are_422_and_change_nothing() {
    let api = Api::start().await;
    let cmd = fixture_command();
    let long_name = "x".repeat(33);
    let cases = [
        json!({"name": "a__b", "transport": {"type": "stdio", "command": cmd}}),
        json!({"name": "", "transport": {"type": "stdio", "command": cmd}}),
        json!({"name": "has space", "transport": {"type": "stdio", "command": cmd}}),
        json!({"name": long_name, "transport": {"type": "stdio", "command": cmd}}),
        json!({"name": "ok", "transport": {"type": "stdio", "command": ""}}),
        json!({"name": "ok", "transport": {"type": "stdio", "command": "   "}}),
        json!({"name": "ok", "transport": {"type": "stdio", "command": cmd, "env": {"A=B": "x"}}}),
        json!({"name": "ok", "transport": {"type": "stdio", "command": cmd}, "call_timeout_secs": 0}),
        json!({"name": "ok", "transport": {"type": "stdio", "command": cmd}, "call_timeout_secs": 3601}),
        json!({"name": "ok", "transport": {"type": "http", "url": "ftp://example.com/mcp"}}),
        json!({"name": "ok", "transport": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"bad header": "x"}}}),
        json!({"name": "ok", "transport": {"type": "sse", "url": "http://127.0.0.1:9/sse"}}),
        json!({"name": "ok"}),
        json!({"name": 7, "transport": {"type": "stdio", "command": cmd}}),
    ];
    for case in cases {
        let (s, body) = api.json(Method::POST, "/api/mcp/servers", Some(case.clone())).await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{case}");
        assert_error(s, &body, StatusCode::UNPROCESSABLE_ENTITY, "invalid_request");
    }
    let (_, body) = api.json(Method::POST, "/api/mcp/servers", Some(stdio("a__b"))).await;
    assert!(body["error"]["message"].as_str().unwrap().contains("__"), "says what is wrong with the name: {body}");

    let res = api
        .http
        .post(api.url("/api/mcp/servers"))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    let status = res.status();
    assert_error(status, &res.json().await.unwrap(), StatusCode::UNPROCESSABLE_ENTITY, "invalid_request");
    let res = api.http.post(api.url("/api/mcp/servers")).body(stdio("no-type").to_string()).send().await.unwrap();
    let status = res.status();
    assert_error(status, &res.json().await.unwrap(), StatusCode::UNPROCESSABLE_ENTITY, "invalid_request");

    let (_, list) = api.json(Method::GET, "/api/mcp/servers", None).await;
    assert_eq!(list, json!([]), "nothing was saved");
    api.shutdown().await;
}

#[tokio::test]
async fn stdio_env_secrets_are_redacted_and_posting_them_back_keeps_the_stored_values() {
    let api = Api::start().await;
    let secret = "correct-horse-battery-staple";
    let mut config = stdio("secrets");
    config["transport"]["env"] = json!({"FIXTURE_SECRET": secret, "SHORT": "abc"});
    let added = api.add(config).await;
    assert_eq!(added["config"]["transport"]["env"], json!({"FIXTURE_SECRET": "••••aple", "SHORT": "••••"}));
    api.wait_connected("secrets").await;

    let shown = api.text("/api/mcp/servers/secrets").await;
    let listed = api.text("/api/mcp/servers").await;
    let exported = api.text("/api/mcp/export").await;
    for text in [&shown, &listed, &exported] {
        assert!(!text.contains(secret) && !text.contains("\"abc\""), "a secret leaked: {text}");
    }
    let export: Value = serde_json::from_str(&exported).unwrap();
    assert_eq!(export["mcpServers"]["secrets"]["env"], json!({"FIXTURE_SECRET": "••••aple", "SHORT": "••••"}));

    // Post the config as the API showed it, with one setting changed.
    let mut redacted: Value = serde_json::from_str::<Value>(&shown).unwrap()["config"].clone();
    redacted["call_timeout_secs"] = json!(30);
    let (s, saved) = api.json(Method::POST, "/api/mcp/servers", Some(redacted.clone())).await;
    assert_eq!(s, StatusCode::OK, "{saved}");
    assert_eq!(saved["config"]["call_timeout_secs"], 30);
    assert_eq!(saved["config"]["transport"]["env"]["FIXTURE_SECRET"], "••••aple");
    // A fresh process gets its environment from what is stored now.
    let (s, status) = api.json(Method::POST, "/api/mcp/servers/secrets/reconnect", None).await;
    assert_eq!((s, &status["state"]), (StatusCode::OK, &json!({"state": "connected"})));
    assert_eq!(api.call_tool("secrets__env", json!({"name": "FIXTURE_SECRET"})).await, secret);
    assert_eq!(api.call_tool("secrets__env", json!({"name": "SHORT"})).await, "abc");

    // The redacted form works for a test connection too.
    let (s, probe) = api.json(Method::POST, "/api/mcp/test", Some(redacted.clone())).await;
    assert_eq!(s, StatusCode::OK, "{probe}");

    // A masked value with nothing stored under its name cannot be kept.
    let mut unknown = redacted;
    unknown["transport"]["env"]["NEW_SECRET"] = json!("••••");
    let (s, body) = api.json(Method::POST, "/api/mcp/servers", Some(unknown)).await;
    assert_error(s, &body, StatusCode::UNPROCESSABLE_ENTITY, "invalid_request");
    assert!(body["error"]["message"].as_str().unwrap().contains("NEW_SECRET"), "{body}");
    api.shutdown().await;
}

#[tokio::test]
async fn http_header_and_url_secrets_are_redacted_and_kept_so_the_server_still_connects() {
    let api = Api::start().await;
    let token = "fixture-token-0123456789";
    let fixture = http_fixture(token).await;
    let url = format!("{}?api_key=query-secret-abcd1234", fixture.url);
    let config = json!({"name": "remote", "transport": {"type": "http", "url": url, "headers": {"Authorization": format!("Bearer {token}")}}});
    let added = api.add(config).await;
    let shown_transport = json!({"type": "http", "url": format!("{}?api_key=••••1234", fixture.url), "headers": {"Authorization": "••••6789"}});
    assert_eq!(added["config"]["transport"], shown_transport);
    api.wait_connected("remote").await;

    let shown = api.text("/api/mcp/servers/remote").await;
    let exported = api.text("/api/mcp/export").await;
    for text in [&shown, &exported] {
        assert!(!text.contains(token) && !text.contains("query-secret"), "a secret leaked: {text}");
    }
    let export: Value = serde_json::from_str(&exported).unwrap();
    assert_eq!(
        export["mcpServers"]["remote"],
        json!({"url": shown_transport["url"], "headers": shown_transport["headers"]})
    );

    // A wrong token is refused by the fixture: this is what a lost secret would look like.
    let wrong = json!({"name": "remote", "transport": {"type": "http", "url": url, "headers": {"Authorization": "Bearer wrong"}}});
    api.add(wrong).await;
    let (s, status) = api.json(Method::POST, "/api/mcp/servers/remote/reconnect", None).await;
    assert_eq!((s, &status["state"]["state"]), (StatusCode::OK, &json!("failed")), "{status}");

    // Put the right one back, then save the redacted form: the stored token and URL are kept.
    api.add(json!({"name": "remote", "transport": {"type": "http", "url": url, "headers": {"Authorization": format!("Bearer {token}")}}})).await;
    api.wait_connected("remote").await;
    let mut redacted =
        serde_json::from_str::<Value>(&api.text("/api/mcp/servers/remote").await).unwrap()["config"].clone();
    assert_eq!(redacted["transport"], shown_transport);
    redacted["trust_read_only_hints"] = json!(true);
    let (s, saved) = api.json(Method::POST, "/api/mcp/servers", Some(redacted)).await;
    assert_eq!(s, StatusCode::OK, "{saved}");
    assert_eq!(saved["config"]["trust_read_only_hints"], true);
    assert_eq!(saved["config"]["transport"], shown_transport);
    let (s, status) = api.json(Method::POST, "/api/mcp/servers/remote/reconnect", None).await;
    assert_eq!((s, &status["state"]), (StatusCode::OK, &json!({"state": "connected"})), "the stored token was kept");
    assert_eq!(tool(&status, "echo")["needs_approval"], false, "read-only hints are trusted now");
    api.shutdown().await;
}

#[tokio::test]
async fn import_adds_servers_from_an_mcp_servers_document_and_keeps_warden_settings() {
    let api = Api::start().await;
    let secret = "imported-secret-value";
    let document = json!({"mcpServers": {
        "my fixture": {"command": fixture_command(), "args": [], "env": {"TOKEN": secret}},
        "remote": {"url": "http://127.0.0.1:9/mcp", "disabled": true},
    }});
    let res = api.http.post(api.url("/api/mcp/import")).body(document.to_string()).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let body: Value = res.json().await.unwrap();
    let mut imported: Vec<String> = serde_json::from_value(body["imported"].clone()).unwrap();
    imported.sort();
    assert_eq!(imported, ["my-fixture", "remote"], "names are made valid");

    let status = api.wait_connected("my-fixture").await;
    assert_eq!(status["config"]["transport"]["env"], json!({"TOKEN": "••••alue"}));
    let (_, remote) = api.json(Method::GET, "/api/mcp/servers/remote", None).await;
    assert_eq!((&remote["enabled"], &remote["state"]), (&json!(false), &json!({"state": "disabled"})));

    // Warden's own settings survive a re-import; the exported (redacted) document keeps the secrets.
    let (s, _) = api
        .json(Method::PUT, "/api/mcp/servers/my-fixture/tools/echo/policy", Some(json!({"policy": "never_ask"})))
        .await;
    assert_eq!(s, StatusCode::OK);
    let exported = api.text("/api/mcp/export").await;
    assert!(!exported.contains(secret), "{exported}");
    let export: Value = serde_json::from_str(&exported).unwrap();
    assert_eq!(export["mcpServers"]["remote"], json!({"url": "http://127.0.0.1:9/mcp", "disabled": true}));
    let res = api.http.post(api.url("/api/mcp/import")).body(exported).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let (_, status) = api.json(Method::GET, "/api/mcp/servers/my-fixture", None).await;
    assert_eq!(status["config"]["tool_policies"], json!({"echo": "never_ask"}));
    let (s, status) = api.json(Method::POST, "/api/mcp/servers/my-fixture/reconnect", None).await;
    assert_eq!((s, &status["state"]), (StatusCode::OK, &json!({"state": "connected"})));
    assert_eq!(api.call_tool("my-fixture__env", json!({"name": "TOKEN"})).await, secret);

    let bad = [
        "{not json".to_owned(),
        json!({}).to_string(),
        json!({"mcpServers": []}).to_string(),
        json!({"mcpServers": {"old": {"type": "sse", "url": "http://127.0.0.1:9/sse"}}}).to_string(),
        json!({"mcpServers": {"both": {"command": "x", "url": "http://127.0.0.1:9/mcp"}}}).to_string(),
        json!({"mcpServers": {"empty": {"command": ""}}}).to_string(),
    ];
    for body in bad {
        let res = api.http.post(api.url("/api/mcp/import")).body(body.clone()).send().await.unwrap();
        let status = res.status();
        let answer: Value = res.json().await.unwrap();
        assert_error(status, &answer, StatusCode::UNPROCESSABLE_ENTITY, "invalid_request");
    }
    let (_, list) = api.json(Method::GET, "/api/mcp/servers", None).await;
    assert_eq!(names(&list), ["my-fixture", "remote"], "a bad document adds nothing");
    api.shutdown().await;
}

#[tokio::test]
async fn delete_removes_a_server_and_then_it_is_404() {
    let api = Api::start().await;
    api.add(stdio("gone")).await;
    api.wait_connected("gone").await;
    let res = api.http.delete(api.url("/api/mcp/servers/gone")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert!(res.text().await.unwrap().is_empty());

    let (s, body) = api.json(Method::GET, "/api/mcp/servers/gone", None).await;
    assert_error(s, &body, StatusCode::NOT_FOUND, "not_found");
    let (s, body) = api.json(Method::DELETE, "/api/mcp/servers/gone", None).await;
    assert_error(s, &body, StatusCode::NOT_FOUND, "not_found");
    let (_, list) = api.json(Method::GET, "/api/mcp/servers", None).await;
    assert_eq!(list, json!([]));
    let export: Value = serde_json::from_str(&api.text("/api/mcp/export").await).unwrap();
    assert_eq!(export, json!({"mcpServers": {}}));
    assert!(api.hub.tools().is_empty());
    api.shutdown().await;
}

#[tokio::test]
async fn changes_from_another_origin_are_refused_with_403() {
    let api = Api::start().await;
    let evil = "https://evil.example";
    let res =
        api.http.post(api.url("/api/mcp/servers")).header("Origin", evil).json(&stdio("guarded")).send().await.unwrap();
    let status = res.status();
    assert_error(status, &res.json().await.unwrap(), StatusCode::FORBIDDEN, "cross_origin");
    let res = api
        .http
        .post(api.url("/api/mcp/servers"))
        .header("Sec-Fetch-Site", "cross-site")
        .json(&stdio("guarded"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let (_, list) = api.json(Method::GET, "/api/mcp/servers", None).await;
    assert_eq!(list, json!([]), "nothing was added");

    let res = api
        .http
        .post(api.url("/api/mcp/servers"))
        .header("Origin", api.base.clone())
        .json(&stdio("guarded"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK, "the same origin may");
    api.wait_connected("guarded").await;

    let import = json!({"mcpServers": {"sneaky": {"command": fixture_command()}}});
    let attempts = [
        (Method::PUT, "/api/mcp/servers/guarded/enabled", Some(json!({"enabled": false}))),
        (Method::PUT, "/api/mcp/servers/guarded/tools/echo/policy", Some(json!({"policy": "never_ask"}))),
        (Method::POST, "/api/mcp/servers/guarded/reconnect", None),
        (Method::POST, "/api/mcp/test", Some(stdio("guarded"))),
        (Method::POST, "/api/mcp/import", Some(import)),
        (Method::DELETE, "/api/mcp/servers/guarded", None),
    ];
    for (method, path, body) in attempts {
        let mut req = api.http.request(method.clone(), api.url(path)).header("Origin", evil);
        if let Some(body) = body {
            req = req.json(&body);
        }
        let res = req.send().await.unwrap();
        assert_eq!(res.status(), StatusCode::FORBIDDEN, "{method} {path}");
    }
    let res = api.http.get(api.url("/api/mcp/servers/guarded")).header("Origin", evil).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK, "reads are not refused");
    let status: Value = res.json().await.unwrap();
    assert_eq!((&status["enabled"], &status["config"]["tool_policies"]), (&json!(true), &json!({})), "nothing changed");
    let (_, list) = api.json(Method::GET, "/api/mcp/servers", None).await;
    assert_eq!(names(&list), ["guarded"]);
    api.shutdown().await;
}
