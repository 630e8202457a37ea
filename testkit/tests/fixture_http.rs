//! The fixture model over real HTTP: authentication, recorded requests, reset of `fail_first`
//! counters, whole completions, and the `fixture-model` binary.
#![allow(
    clippy::unwrap_used,
    reason = "test code: a test fails where it unwraps; clippy.toml's allow-unwrap-in-tests covers only #[test] fns, not the helpers"
)]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use serde_json::{json, Value};
use warden_testkit::{FixtureModel, Scenario, Script, Turn};

fn chat(stream: bool, text: &str) -> Value {
    json!({"model": "m", "stream": stream, "messages": [{"role": "user", "content": text}]})
}

#[tokio::test]
async fn requests_without_the_key_get_an_openai_style_401() {
    let model = FixtureModel::start_with_key(Script::default(), "k").await.unwrap();
    let response =
        client().post(format!("{}/chat/completions", model.base_url())).json(&chat(true, "hi")).send().await.unwrap();
    assert_eq!(response.status(), 401);
    let body: Value = response.json().await.unwrap();
    assert!(body["error"]["message"].is_string());
    assert_eq!(body["error"]["type"], "authentication_error");
}

#[tokio::test]
async fn a_streamed_reply_is_event_stream_ending_with_done() {
    let model = FixtureModel::start(Script::default()).await.unwrap();
    let response =
        client().post(format!("{}/chat/completions", model.base_url())).json(&chat(true, "ping")).send().await.unwrap();
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let body = response.text().await.unwrap();
    assert!(body.starts_with("data: {"), "{body}");
    assert!(body.ends_with("data: [DONE]\n\n"), "{body}");
    assert!(body.contains("\"finish_reason\":\"stop\""));
}

#[tokio::test]
async fn reset_clears_recorded_requests_and_fail_first_counters() {
    let turn = Turn { fail_first: 1, ..Turn::text("ok") };
    let model = FixtureModel::start(Script { scenarios: vec![Scenario::new("go", vec![turn])], default_title: None })
        .await
        .unwrap();
    let client = client();
    let url = format!("{}/chat/completions", model.base_url());
    let status = |r: reqwest::Response| r.status().as_u16();
    assert_eq!(status(client.post(&url).json(&chat(false, "go")).send().await.unwrap()), 500);
    let second = client.post(&url).json(&chat(false, "go")).send().await.unwrap();
    assert_eq!(second.json::<Value>().await.unwrap()["choices"][0]["message"]["content"], "ok");

    let base = model.base_url().replace("/v1", "");
    let recorded: Vec<Value> =
        client.get(format!("{base}/_fixture/requests")).send().await.unwrap().json().await.unwrap();
    assert_eq!(recorded.len(), 2);
    assert_eq!(recorded[0]["messages"][0]["content"], "go");

    client.post(format!("{base}/_fixture/reset")).send().await.unwrap();
    assert!(model.requests().is_empty());
    assert_eq!(status(client.post(&url).json(&chat(false, "go")).send().await.unwrap()), 500);
}

/// Kills the spawned binary even when an assertion fails first.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn the_binary_serves_a_script_file_and_prints_its_address() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("script.json");
    std::fs::write(&path, r#"{"default_title": "A title", "scenarios": []}"#).unwrap();
    let mut child = KillOnDrop(
        Command::new(env!("CARGO_BIN_EXE_fixture-model"))
            .args(["--script", path.to_str().unwrap(), "--port", "0"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut line = String::new();
    BufReader::new(child.0.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let base_url = line.trim().strip_prefix("fixture-model listening on ").unwrap().to_string();

    let response: Value = client()
        .post(format!("{base_url}/chat/completions"))
        .json(&chat(false, "hello"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(response["choices"][0]["message"]["content"], "A title");
}

/// reqwest is built without a TLS crypto provider of its own (see warden_llm::tls).
fn client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}
