//! The audit log over real HTTP: decisions made in a chat (a person, a thread rule) against the
//! scripted model, and on outside requests (a policy, a person, an edit) sent with a client's
//! token, come back merged newest first from `GET /api/audit`, `/api/audit.jsonl` and
//! `/api/audit.csv`, filtered, paged, CSV-quoted, and only for the person.

use crate::common;

use std::time::Duration;

use eventsource_stream::Eventsource;
use futures::StreamExt;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use tempfile::TempDir;
use warden_engine::config::{Config, ModelConfig};
use warden_testkit::{FixtureModel, Scenario, Script, ScriptedCall, Turn};

use crate::common::outside::{decide, evaluation, register, set_policy};
use crate::common::{anonymous, send_json, Served};

/// Code with everything CSV has to quote: a comma, double quotes and newlines.
const TRICKY_CODE: &str = "echo \"a, b\"\nprintf '%s\\n' \"x\"\n";
/// A person's reason with the same.
const TRICKY_REASON: &str = "not now, \"really\"\nask again tomorrow";

struct Log {
    _dir: TempDir,
    _model: FixtureModel,
    served: Served,
    /// The outside client's token.
    token: String,
}

impl Log {
    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.served.base)
    }

    async fn get_json(&self, path: &str) -> (StatusCode, Value) {
        send_json(&common::client(), Method::GET, self.url(path), None).await
    }

    async fn get_text(&self, path: &str) -> (StatusCode, String, String) {
        let res = common::client().get(self.url(path)).send().await.expect("request sent");
        let status = res.status();
        let content_type =
            res.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
        (status, content_type, res.text().await.expect("body read"))
    }

    /// Sends an outside request with the client's token; the answer frame.
    async fn ask(&self, frame: Value) -> Value {
        let res = anonymous()
            .post(self.url("/api/outside/requests"))
            .bearer_auth(&self.token)
            .json(&frame)
            .send()
            .await
            .expect("request sent");
        assert!(res.status().is_success(), "{}", res.status());
        res.json().await.expect("a frame")
    }

    /// Every entry of `/api/audit.jsonl` with `query`.
    async fn jsonl(&self, query: &str) -> Vec<Value> {
        let (status, content_type, body) = self.get_text(&format!("/api/audit.jsonl{query}")).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert!(content_type.starts_with("application/jsonl"), "{content_type}");
        body.lines().map(|line| serde_json::from_str(line).expect("each line is one JSON object")).collect()
    }
}

/// A chat with two write_file calls (the person allows the first for the thread, so a thread rule
/// approves the second) and one with a shell call the person denies with a reason; an outside client
/// whose low-risk request the policy approves, a high-risk one a person approves with edited code,
/// and a medium-risk one a person rejects with a reason.
async fn log_with_decisions() -> Log {
    let write = || Turn::calls(vec![ScriptedCall::new("write_file", json!({"path": "a.txt", "content": "one\n"}))]);
    let shell = Turn::calls(vec![ScriptedCall::new("shell", json!({"command": "rm -rf build"}))]);
    let model = FixtureModel::start(Script {
        scenarios: vec![
            Scenario::new("write twice", vec![write(), write(), Turn::text("written twice")]),
            Scenario::new("clean up", vec![shell, Turn::text("left alone")]),
        ],
        default_title: None,
    })
    .await
    .expect("fixture model");
    let dir = tempfile::tempdir().expect("temp dir");
    let mut config = Config::with_data_dir(dir.path());
    config.model = Some(ModelConfig { base_url: model.base_url(), api_key: None, model: "fixture".into() });
    let served = common::serve_api(config).await;
    let (_, token) = register(&served.base, "runner, the \"first\"", Value::Null).await;
    let log = Log { _dir: dir, _model: model, served, token };

    // Chat: allowed for the thread by a person, then the same call again by the rule.
    let (thread, events) = log.start_run("write twice").await;
    let approval = wait_for(events, "approval_request").await;
    let approval_id = approval["approval"]["id"].as_str().expect("approval id");
    let decision = json!({"decision": "approve", "scope": "thread"});
    let (status, body) =
        send_json(&common::client(), Method::POST, log.url(&format!("/api/approvals/{approval_id}")), Some(decision))
            .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    log.wait_until_done(&thread).await;

    // Chat: denied with a reason.
    let (thread, events) = log.start_run("clean up").await;
    let approval = wait_for(events, "approval_request").await;
    let approval_id = approval["approval"]["id"].as_str().expect("approval id");
    let decision = json!({"decision": "deny", "reason": TRICKY_REASON});
    let (status, body) =
        send_json(&common::client(), Method::POST, log.url(&format!("/api/approvals/{approval_id}")), Some(decision))
            .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    log.wait_until_done(&thread).await;

    // Outside: approved by the policy on arrival.
    set_policy(&log.served.base, json!({"security_evaluation": "low"})).await;
    let answer = log.ask(evaluation("auto", TRICKY_CODE, "low")).await;
    assert_eq!(answer["decided_by"]["kind"], "policy", "{answer}");
    // Outside: approved by a person after editing, and rejected by a person.
    let ack = log.ask(evaluation("edited", "rm -rf /tmp/cache\n", "high")).await;
    let decision = json!({"decision": "approved", "edited_code": "rm -rf /tmp/cache/old\n"});
    let (status, body) = decide(&log.served.base, ack["request_id"].as_str().expect("id"), decision).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let ack = log.ask(evaluation("rejected", "curl example.com", "medium")).await;
    let decision = json!({"decision": "rejected", "reason": TRICKY_REASON});
    let (status, body) = decide(&log.served.base, ack["request_id"].as_str().expect("id"), decision).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    log
}

impl Log {
    /// Creates a thread and posts `prompt`; the thread id and the run's event stream.
    async fn start_run(&self, prompt: &str) -> (String, reqwest::Response) {
        let (status, thread) =
            send_json(&common::client(), Method::POST, self.url("/api/threads"), Some(json!({}))).await;
        assert_eq!(status, StatusCode::CREATED);
        let id = thread["id"].as_str().expect("thread id").to_string();
        let res = common::client()
            .post(self.url(&format!("/api/threads/{id}/messages")))
            .json(&json!({ "content": prompt }))
            .send()
            .await
            .expect("message sent");
        assert_eq!(res.status(), StatusCode::OK);
        (id, res)
    }

    /// Waits until the thread has no active run.
    async fn wait_until_done(&self, thread: &str) {
        let done = async {
            loop {
                let (_, detail) = self.get_json(&format!("/api/threads/{thread}")).await;
                if detail["active_run"].is_null() {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        };
        tokio::time::timeout(Duration::from_secs(30), done).await.expect("the run ended in time");
    }
}

/// Reads the run's events until one of `kind`; its data.
async fn wait_for(res: reqwest::Response, kind: &str) -> Value {
    let mut stream = res.bytes_stream().eventsource();
    let read = async {
        while let Some(Ok(event)) = stream.next().await {
            if event.event == kind {
                return serde_json::from_str(&event.data).expect("JSON event");
            }
        }
        panic!("the stream ended without `{kind}`");
    };
    tokio::time::timeout(Duration::from_secs(30), read).await.expect("the event came in time")
}

fn field<'a>(entries: &'a [Value], key: &str) -> Vec<&'a str> {
    entries.iter().map(|e| e[key].as_str().unwrap_or("<none>")).collect()
}

#[tokio::test]
async fn the_log_holds_every_decision_of_both_sources_newest_first_with_how_each_was_made() {
    let log = log_with_decisions().await;
    let entries = log.jsonl("").await;
    // Newest first: the three outside decisions (rejected, edited, policy), then the chat's
    // denial, the rule's approval and the person's approval that made the rule.
    assert_eq!(field(&entries, "decided_by"), ["person", "person", "policy", "person", "rule", "person"]);
    assert_eq!(field(&entries, "source"), ["outside", "outside", "outside", "chat", "chat", "chat"]);
    assert_eq!(field(&entries, "outcome"), ["denied", "approved", "approved", "denied", "approved", "approved"]);
    let decided: Vec<&str> = field(&entries, "decided_at");
    assert!(decided.windows(2).all(|w| w[0] >= w[1]), "newest first: {decided:?}");

    let (policy, rule, thread_allow) = (&entries[2], &entries[4], &entries[5]);
    assert_eq!(
        policy["how"], "global policy: security evaluations up to low risk are approved automatically",
        "the policy's rule is named"
    );
    assert_eq!(
        (policy["code"].as_str(), policy["client_name"].as_str()),
        (Some(TRICKY_CODE), Some("runner, the \"first\""))
    );
    assert_eq!(rule["what"], "write_file");
    assert!(rule["how"].as_str().unwrap().starts_with("thread rule: write_file (with exactly"), "{}", rule["how"]);
    assert!(thread_allow["how"].as_str().unwrap().contains("for the rest of the thread"), "{}", thread_allow["how"]);
    assert_eq!(entries[3]["reason"], TRICKY_REASON);
    assert_eq!(entries[3]["code"], "rm -rf build", "a shell call's command is its code");
    assert_eq!(entries[1]["edited"], "rm -rf /tmp/cache/old\n");
    assert_eq!(entries[1]["how"], "approved by Owner, after editing the code");
}

#[tokio::test]
async fn the_csv_quotes_commas_quotes_and_newlines_and_matches_the_json_lines() {
    let log = log_with_decisions().await;
    let (status, content_type, body) = log.get_text("/api/audit.csv").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(content_type.starts_with("text/csv"), "{content_type}");
    let mut reader = csv::Reader::from_reader(body.as_bytes());
    let headers = reader.headers().expect("a header row").clone();
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("a well-formed row")).collect();
    let column = |name: &str| headers.iter().position(|h| h == name).unwrap_or_else(|| panic!("column {name}"));
    let entries = log.jsonl("").await;
    assert_eq!(rows.len(), entries.len());
    for (row, entry) in rows.iter().zip(&entries) {
        assert_eq!(row.len(), headers.len());
        assert_eq!(&row[column("id")], entry["id"].as_str().unwrap());
        assert_eq!(&row[column("how")], entry["how"].as_str().unwrap());
    }
    // Read back exactly, across commas, quotes and newlines.
    assert_eq!(&rows[2][column("code")], TRICKY_CODE);
    assert_eq!(&rows[2][column("client_name")], "runner, the \"first\"");
    assert_eq!(&rows[0][column("reason")], TRICKY_REASON);
    assert_eq!(&rows[3][column("reason")], TRICKY_REASON);
    let arguments: Value = serde_json::from_str(&rows[2][column("arguments")]).expect("arguments are JSON");
    assert_eq!(arguments["code"], TRICKY_CODE);
    assert_eq!(&rows[1][column("edited")], "rm -rf /tmp/cache/old\n");
}

#[tokio::test]
async fn filters_narrow_the_page_and_both_downloads_alike() {
    let log = log_with_decisions().await;
    let outside = log.jsonl("?source=outside").await;
    assert_eq!(field(&outside, "source"), ["outside", "outside", "outside"]);
    let automatic = log.jsonl("?decided_by=policy").await;
    assert_eq!(field(&automatic, "id").len(), 1);
    assert_eq!(automatic[0]["what"], "security_evaluation");
    let rules = log.jsonl("?source=chat&decided_by=rule&outcome=approved").await;
    assert_eq!(field(&rules, "decided_by"), ["rule"]);
    let denied = log.jsonl("?outcome=denied").await;
    assert_eq!(field(&denied, "source"), ["outside", "chat"]);
    assert!(log.jsonl("?source=outside&decided_by=rule").await.is_empty(), "no outside decision is a thread rule's");
    // "all" and empty mean no filter, as the page's form sends them.
    assert_eq!(log.jsonl("?source=all&outcome=&decided_by=all").await.len(), 6);

    let (_, _, csv_body) = log.get_text("/api/audit.csv?outcome=denied").await;
    let rows = csv::Reader::from_reader(csv_body.as_bytes()).records().count();
    assert_eq!(rows, 2);
    let (_, page) = log.get_json("/api/audit?outcome=denied").await;
    assert_eq!(page["rows"].as_array().map(Vec::len), Some(2));

    for bad in ["/api/audit.csv?source=mars", "/api/audit.jsonl?outcome=maybe", "/api/audit?decided_by=fate"] {
        let (status, body) = log.get_json(bad).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}: {body}");
    }
    let (status, body) = log.get_json("/api/audit?before=garbage").await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("invalid_request")));
}

#[tokio::test]
async fn pages_follow_one_another_without_gaps_or_repeats_and_show_edits_as_diffs() {
    let log = log_with_decisions().await;
    let all = log.jsonl("").await;
    let mut seen = Vec::new();
    let mut before = String::new();
    loop {
        let (status, page) = log.get_json(&format!("/api/audit?limit=4&before={before}")).await;
        assert_eq!(status, StatusCode::OK, "{page}");
        for row in page["rows"].as_array().expect("rows") {
            seen.push(row["entry"]["id"].as_str().expect("id").to_string());
        }
        match page["next"].as_str() {
            Some(next) => before = next.to_string(),
            None => break,
        }
    }
    assert_eq!(seen, field(&all, "id"));

    let (_, page) = log.get_json("/api/audit?source=outside&decided_by=person&outcome=approved").await;
    let diff = &page["rows"][0]["diff"];
    assert_eq!(diff[0], json!({"change": "removed", "text": "rm -rf /tmp/cache"}));
    assert_eq!(diff[1], json!({"change": "added", "text": "rm -rf /tmp/cache/old"}));
}

#[tokio::test]
async fn only_the_person_may_read_the_log() {
    let log = log_with_decisions().await;
    for path in ["/api/audit", "/api/audit.jsonl", "/api/audit.csv"] {
        let res = anonymous().get(log.url(path)).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "{path} without credentials");
        // An outside client's token is not the person's.
        let res = anonymous().get(log.url(path)).bearer_auth(&log.token).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "{path} with a client token");
    }
}

#[tokio::test]
async fn a_download_longer_than_one_read_holds_every_entry_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let served = common::serve_api(Config::with_data_dir(dir.path())).await;
    // More than one read of the export (500 entries), all decided by the policy on arrival, from
    // several clients: each stays within the per-client rate (120 a minute).
    const COUNT: usize = 1_203;
    const PER_CLIENT: usize = 100;
    let mut tokens = Vec::new();
    for n in 0..COUNT.div_ceil(PER_CLIENT) {
        tokens.push(register(&served.base, &format!("busy runner {n}"), Value::Null).await.1);
    }
    set_policy(&served.base, json!({"security_evaluation": "high"})).await;
    let http = anonymous();
    for chunk in (0..COUNT).collect::<Vec<_>>().chunks(50) {
        let sends = chunk.iter().map(|i| {
            http.post(format!("{}/api/outside/requests", served.base))
                .bearer_auth(&tokens[i / PER_CLIENT])
                .json(&evaluation(&format!("r{i}"), "true", "low"))
                .send()
        });
        for res in futures::future::join_all(sends).await {
            assert_eq!(res.expect("request sent").status(), StatusCode::OK);
        }
    }
    let body =
        common::client().get(format!("{}/api/audit.jsonl", served.base)).send().await.unwrap().text().await.unwrap();
    let mut ids: Vec<String> = body
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("JSON")["arguments"]["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), COUNT);
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), COUNT, "no entry twice");
    let csv_body =
        common::client().get(format!("{}/api/audit.csv", served.base)).send().await.unwrap().text().await.unwrap();
    assert_eq!(csv::Reader::from_reader(csv_body.as_bytes()).records().count(), COUNT);
    // A page of the largest size says there is more.
    let (_, page) =
        send_json(&common::client(), Method::GET, format!("{}/api/audit?limit=500", served.base), None).await;
    assert_eq!(page["rows"].as_array().map(Vec::len), Some(500));
    assert!(page["next"].is_string(), "more after 500");
}
