//! The real Claude Code CLI (npm `@anthropic-ai/claude-code`, pinned in tools/claude-code) with
//! Warden's `approval_prompt` as its `--permission-prompt-tool`, offline: the model is the testkit's
//! scripted Anthropic Messages server (`ANTHROPIC_BASE_URL`), which answers with a tool call. The
//! call shows up in Warden as a pending outside request, a person decides it through the API, and
//! Claude Code does what was decided: a denial reaches the model as the tool's error result with the
//! person's reason; an approval runs the tool, with the person's edit when there is one.
//!
//! Skipped, saying so, when the CLI is not installed (`scripts/setup.sh test` installs it).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use tempfile::TempDir;
use tokio::io::AsyncReadExt;
use warden_engine::config::Config;
use warden_testkit::{FixtureModel, Script};

use crate::common::outside::{decide, register};
use crate::common::{self, send_json, Served};

/// Upper bound for anything a test waits for; a failure guard, not a timing assertion.
const PATIENCE: Duration = Duration::from_secs(120);

/// The CLI: `WARDEN_CLAUDE_CODE`, else the one tools/claude-code installs.
fn claude_code() -> Option<PathBuf> {
    let path = match std::env::var_os("WARDEN_CLAUDE_CODE") {
        Some(path) => PathBuf::from(path),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../tools/claude-code/node_modules/.bin/claude"),
    };
    if path.is_file() {
        return Some(path);
    }
    eprintln!(
        "SKIPPED: Claude Code is not installed at {} (run `scripts/setup.sh test` or `npm ci` in tools/claude-code, \
         or set WARDEN_CLAUDE_CODE)",
        path.display()
    );
    None
}

/// Warden (the API with the MCP endpoint), a registered client, and the scripted model.
struct World {
    _data: TempDir,
    served: Served,
    token: String,
    model: FixtureModel,
    /// HOME and the working directory of Claude Code.
    home: TempDir,
    work: TempDir,
}

impl World {
    /// `scenario`: the script's one scenario (matched on the prompt), given Claude Code's working directory.
    async fn start(scenario: impl FnOnce(&Path) -> Value) -> Self {
        let data = tempfile::tempdir().expect("temp dir");
        let (home, work) = (tempfile::tempdir().expect("home"), tempfile::tempdir().expect("work"));
        let served = common::serve_api(Config::with_data_dir(data.path())).await;
        let (_, token) = register(&served.base, "claude-code", Value::Null).await;
        let script = json!({ "default_title": "A test", "scenarios": [scenario(work.path())] });
        let model = FixtureModel::start(Script::from_json(&script.to_string()).expect("script")).await.expect("model");
        Self { _data: data, served, token, model, home, work }
    }

    /// Starts `claude -p <prompt>` with Warden's tool as its permission prompt tool.
    fn claude(&self, binary: &Path, prompt: &str) -> tokio::process::Child {
        let config = json!({"mcpServers": {"warden": {
            "type": "http",
            "url": format!("{}/mcp/approvals", self.served.base),
            "headers": {"Authorization": format!("Bearer {}", self.token)},
        }}});
        let config_path = self.home.path().join("warden-mcp.json");
        std::fs::write(&config_path, config.to_string()).expect("config written");
        tokio::process::Command::new(binary)
            .args(["-p", prompt, "--output-format", "json", "--permission-prompt-tool", "mcp__warden__approval_prompt"])
            .arg("--mcp-config")
            .arg(&config_path)
            .current_dir(self.work.path())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("ANTHROPIC_BASE_URL", format!("http://{}", self.model.addr()))
            .env("ANTHROPIC_API_KEY", "sk-ant-dummy-for-the-fixture")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("claude starts")
    }

    /// Waits until Warden holds one pending request, while Claude Code is still running.
    async fn pending(&self, claude: &mut tokio::process::Child) -> Value {
        let url = format!("{}/api/outside/requests?status=pending", self.served.base);
        tokio::time::timeout(PATIENCE, async {
            loop {
                let (status, list) = send_json(&common::client(), Method::GET, url.clone(), None).await;
                assert_eq!(status, StatusCode::OK, "{list}");
                if let Some(first) = list.as_array().and_then(|l| l.first()) {
                    assert_eq!(list.as_array().map(Vec::len), Some(1), "{list}");
                    return first.clone();
                }
                if let Some(status) = claude.try_wait().expect("claude's status") {
                    panic!("claude ended ({status}) before asking Warden: {}", output(claude).await);
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        })
        .await
        .expect("the call shows up in Warden")
    }
}

/// What Claude Code printed (stdout and stderr), for a failure message.
async fn output(claude: &mut tokio::process::Child) -> String {
    let mut text = String::new();
    if let Some(stdout) = claude.stdout.as_mut() {
        let _ = stdout.read_to_string(&mut text).await;
    }
    if let Some(stderr) = claude.stderr.as_mut() {
        text.push_str("\n--- stderr ---\n");
        let _ = stderr.read_to_string(&mut text).await;
    }
    text
}

/// Claude Code's JSON result once it has finished.
async fn finished(mut claude: tokio::process::Child) -> Value {
    let status = tokio::time::timeout(PATIENCE, claude.wait()).await.expect("claude finishes").expect("status");
    let printed = output(&mut claude).await;
    assert!(status.success(), "claude failed ({status}): {printed}");
    let json = printed.split("\n--- stderr ---\n").next().unwrap_or_default();
    serde_json::from_str(json).unwrap_or_else(|e| panic!("claude's result is JSON ({e}): {printed}"))
}

/// The text of every tool result in the last message of every request the model got.
fn tool_results(model: &FixtureModel) -> Vec<(bool, String)> {
    let mut results = Vec::new();
    for request in model.requests() {
        let Some(last) = request["messages"].as_array().and_then(|m| m.last()) else { continue };
        for block in last["content"].as_array().into_iter().flatten().filter(|b| b["type"] == "tool_result") {
            let text = match &block["content"] {
                Value::String(text) => text.clone(),
                Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
                _ => String::new(),
            };
            results.push((block["is_error"] == true, text));
        }
    }
    results
}

fn bash_scenario(when: &str, command: &str) -> Value {
    json!({"when": when, "turns": [
        {"text": "Running it.", "tool_calls": [
            {"name": "Bash", "arguments": {"command": command, "description": "Write a greeting"}}]},
        {"text": "Done.", "echo_tool_results": true}
    ]})
}

#[tokio::test]
async fn a_denied_bash_call_is_not_run_and_the_model_hears_the_persons_reason() {
    let Some(binary) = claude_code() else { return };
    let command = "echo hi > greeting.txt && cat greeting.txt";
    let world = World::start(|_| bash_scenario("make the greeting", command)).await;
    let mut claude = world.claude(&binary, "please make the greeting");

    let request = world.pending(&mut claude).await;
    assert_eq!(request["request"]["code"], command);
    assert_eq!(request["risk"], "high");
    assert_eq!(request["request"]["explanation"], "Claude Code wants to use Bash\n\nWrite a greeting");
    assert_eq!(request["request"]["metadata"]["tool_name"], "Bash");
    assert!(claude.try_wait().expect("status").is_none(), "Claude Code waits for the decision");

    let reason = "no files today";
    let (status, _) = decide(
        &world.served.base,
        request["id"].as_str().expect("id"),
        json!({"decision": "rejected", "reason": reason}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let result = finished(claude).await;

    let message = format!("The person denied this in Warden: {reason}");
    assert!(tool_results(&world.model).contains(&(true, message.clone())), "{:?}", tool_results(&world.model));
    assert_eq!(result["result"], format!("Done. [tool said: [is_error] {message}]"), "{result}");
    assert_eq!(result["permission_denials"][0]["tool_name"], "Bash", "{result}");
    assert!(!world.work.path().join("greeting.txt").exists(), "the command did not run");
}

#[tokio::test]
async fn an_approved_bash_call_runs_the_command_as_the_person_edited_it() {
    let Some(binary) = claude_code() else { return };
    let world =
        World::start(|_| bash_scenario("make the greeting", "echo hi > greeting.txt && cat greeting.txt")).await;
    let mut claude = world.claude(&binary, "please make the greeting");

    let request = world.pending(&mut claude).await;
    let edited = "echo edited > greeting.txt && cat greeting.txt";
    let (status, _) = decide(
        &world.served.base,
        request["id"].as_str().expect("id"),
        json!({"decision": "approved", "edited_code": edited}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let result = finished(claude).await;

    let written = std::fs::read_to_string(world.work.path().join("greeting.txt")).expect("the command ran");
    assert_eq!(written, "edited\n");
    assert!(tool_results(&world.model).contains(&(false, "edited".to_string())), "{:?}", tool_results(&world.model));
    assert_eq!(result["result"], "Done. [tool said: edited]", "{result}");
    assert_eq!(result["permission_denials"], json!([]));
}

#[tokio::test]
async fn an_approved_write_creates_the_file_as_asked() {
    let Some(binary) = claude_code() else { return };
    let world = World::start(|work| {
        let file_path = work.join("notes.md");
        json!({"when": "write the notes", "turns": [
            {"text": "Writing.", "tool_calls": [
                {"name": "Write", "arguments": {"file_path": file_path, "content": "# Notes\n"}}]},
            {"text": "Done.", "echo_tool_results": true}
        ]})
    })
    .await;
    let mut claude = world.claude(&binary, "please write the notes");

    let request = world.pending(&mut claude).await;
    assert_eq!(request["risk"], "medium");
    assert_eq!(request["request"]["code"], "# Notes\n");
    assert_eq!(request["request"]["language"], "markdown");
    let (status, _) =
        decide(&world.served.base, request["id"].as_str().expect("id"), json!({"decision": "approved"})).await;
    assert_eq!(status, StatusCode::OK);
    let result = finished(claude).await;

    let written = std::fs::read_to_string(world.work.path().join("notes.md")).expect("the file was written");
    assert_eq!(written, "# Notes\n");
    assert_eq!(result["permission_denials"], json!([]), "{result}");
    let results = tool_results(&world.model);
    assert!(results.iter().any(|(error, text)| !error && text.contains("File created successfully")), "{results:?}");
}

#[tokio::test]
async fn a_bash_call_that_switches_the_sandbox_off_says_so_and_keeps_it_in_the_request() {
    let Some(binary) = claude_code() else { return };
    let world = World::start(|_| {
        json!({"when": "greet without the sandbox", "turns": [
            {"text": "Running it.", "tool_calls": [{"name": "Bash", "arguments": {
                "command": "echo hi > greeting.txt", "description": "Write a greeting",
                "dangerouslyDisableSandbox": true}}]},
            {"text": "Done.", "echo_tool_results": true}
        ]})
    })
    .await;
    let mut claude = world.claude(&binary, "please greet without the sandbox");

    let request = world.pending(&mut claude).await;
    assert_eq!(request["request"]["code"], "echo hi > greeting.txt");
    assert_eq!(request["request"]["metadata"]["other_input"]["dangerouslyDisableSandbox"], true, "{request}");
    let explanation = request["request"]["explanation"].as_str().unwrap_or_default();
    assert!(explanation.contains("Also in this call: dangerouslyDisableSandbox = true"), "{explanation}");
    assert_eq!(request["warden_risk"], "high");
    let (status, _) = decide(
        &world.served.base,
        request["id"].as_str().expect("id"),
        json!({"decision": "rejected", "reason": "not without the sandbox"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    finished(claude).await;
    assert!(!world.work.path().join("greeting.txt").exists(), "the command did not run");
}
