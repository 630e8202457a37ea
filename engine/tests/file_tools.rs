//! The built-in file tools through the real engine, on real files: they never touch Warden's own
//! files when the workspace holds the data dir, never write through a hard link, name the file a
//! symbolic link leads to on the card, and never read a multi-GB file for a card.

use crate::common::*;
use serde_json::{json, Value};
use warden_engine::config::Config;
use warden_engine::{Engine, Error};
use warden_testkit::{FixtureModel, Scenario, Script, ScriptedCall, Turn};
use warden_tools::Preview;
use warden_types::approval::DecisionInput;

fn script(when: &str, turns: Vec<Turn>) -> Script {
    Script { scenarios: vec![Scenario::new(when, turns)], default_title: None }
}

fn call(name: &str, arguments: Value) -> ScriptedCall {
    ScriptedCall::new(name, arguments)
}

fn write_call(path: &str, content: &str) -> Turn {
    Turn::calls(vec![call("write_file", json!({"path": path, "content": content}))])
}

#[track_caller]
fn diff_of(preview: &Option<Preview>) -> (String, String) {
    match preview {
        Some(Preview::Diff { path, diff }) => (path.clone(), diff.clone()),
        other => panic!("expected a diff, got {other:?}"),
    }
}

/// Warden's data dir at `<workspace>/data`, as `WARDEN_WORKSPACE=.` with the default `./data` lays it out.
fn data_inside_the_workspace(config: &mut Config) {
    let workspace = config.data_dir.clone();
    let data = workspace.join("data");
    std::fs::create_dir_all(&data).unwrap();
    config.database_url = format!("sqlite://{}?mode=rwc", data.join("warden.db").display());
    config.data_dir = data;
    config.workspace = workspace;
}

#[tokio::test]
async fn warden_files_in_the_workspace_are_neither_read_nor_listed() {
    let probes = [
        ("read_file", "data/access-token"),
        ("read_file", "data/warden.db"),
        ("read_file", "data/warden.db-wal"),
        ("read_file", "data/warden.db-shm"),
        ("read_file", "token-link"),
        ("read_file", "data-link/access-token"),
        ("read_file", "notes/../data/access-token"),
        ("list_dir", "data"),
        ("list_dir", "data-link"),
    ];
    let mut calls: Vec<ScriptedCall> = probes.iter().map(|(tool, path)| call(tool, json!({ "path": path }))).collect();
    calls.push(call("list_dir", json!({"path": "."})));
    calls.push(call("read_file", json!({"path": "notes/today.md"})));
    let h =
        Harness::start_with(script("peek", vec![Turn::calls(calls), Turn::text("done")]), data_inside_the_workspace)
            .await;
    let ws = h.workspace();
    let data = ws.join("data");
    // What the server keeps there: the access token (the engine made the database and its WAL).
    std::fs::write(data.join("access-token"), "secret-access-token\n").unwrap();
    std::fs::create_dir(ws.join("notes")).unwrap();
    std::fs::write(ws.join("notes/today.md"), "buy milk\n").unwrap();
    std::os::unix::fs::symlink("data/access-token", ws.join("token-link")).unwrap();
    std::os::unix::fs::symlink(&data, ws.join("data-link")).unwrap();

    let (_, run_id) = h.send("peek").await;
    let events = run_to_end(&h.engine, &run_id).await;
    assert!(of_kind(&events, "approval_request").is_empty(), "read-only calls run without a card");
    assert!(data.join("warden.db-wal").exists(), "the engine's database has its WAL beside it");
    let told: Vec<String> =
        tool_messages(&h.model, 1).iter().map(|m| m["content"].as_str().unwrap_or_default().to_string()).collect();
    assert_eq!(told.len(), probes.len() + 2, "{told:?}");
    for ((tool, path), result) in probes.iter().zip(&told) {
        assert!(
            result.contains("is one of Warden's own private files") && result.contains(path),
            "{tool} {path}: {result}"
        );
        assert!(!result.contains("secret-access-token"), "{tool} {path}: {result}");
    }
    let listing = &told[probes.len()];
    assert!(listing.contains("notes/") && listing.contains("token-link"), "{listing}");
    assert!(!listing.lines().any(|l| l.starts_with("data/")), "the data dir is not listed: {listing}");
    assert_eq!(told[probes.len() + 1], "buy milk\n", "the rest of the workspace is as open as before");
}

#[tokio::test]
async fn a_write_into_warden_files_in_the_workspace_is_refused() {
    let h = Harness::start_with(
        script("plant", vec![write_call("data/access-token", "the model's token\n"), Turn::text("ok")]),
        data_inside_the_workspace,
    )
    .await;
    let token = h.workspace().join("data/access-token");
    std::fs::write(&token, "secret-access-token\n").unwrap();
    let (_, run_id) = h.send("plant").await;
    let id = pending_approvals(&h.engine, &run_id, 1).await.remove(0);
    let card = h.engine.approval(&id).await.unwrap();
    assert!(card.summary.contains("one of Warden's private files; will be refused"), "{}", card.summary);
    assert!(card.preview.is_none(), "nothing of the file is shown: {:?}", card.preview);
    h.engine.decide(&id, DecisionInput::approve(), &crate::common::owner()).await.unwrap();
    run_to_end(&h.engine, &run_id).await;
    assert_eq!(std::fs::read_to_string(&token).unwrap(), "secret-access-token\n");
    let told = tool_messages(&h.model, 1);
    assert!(told[0]["content"].as_str().unwrap().contains("Warden's own private files"), "{told:?}");
}

#[tokio::test]
async fn a_workspace_that_is_the_data_dir_itself_is_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let model = FixtureModel::start(script("x", vec![])).await.unwrap();
    let mut config = config_for(&dir, &model);
    config.workspace = config.data_dir.clone();
    match Engine::open(config).await {
        Err(Error::Invalid(why)) => assert!(why.contains("WARDEN_WORKSPACE"), "{why}"),
        Err(other) => panic!("expected a clear refusal, got {other:?}"),
        Ok(_) => panic!("an engine whose workspace is its data dir opened"),
    }
}

#[tokio::test]
async fn a_hard_link_to_a_file_outside_the_workspace_is_never_written() {
    let h = Harness::start(script(
        "edit",
        vec![
            Turn::calls(vec![call("list_dir", json!({"path": "."}))]),
            write_call("linked.txt", "written by the model\n"),
            Turn::text("ok"),
        ],
    ))
    .await;
    // As pnpm's store or uv's cache links a file into a project: one file, a name outside too.
    let store = tempfile::tempdir().unwrap();
    let outside = store.path().join("package-file.txt");
    std::fs::write(&outside, "the store's copy\n").unwrap();
    std::fs::hard_link(&outside, h.workspace().join("linked.txt")).unwrap();

    let (_, run_id) = h.send("edit").await;
    let id = pending_approvals(&h.engine, &run_id, 1).await.remove(0);
    let listing = tool_messages(&h.model, 1)[0]["content"].as_str().unwrap().to_string();
    assert!(listing.contains("linked.txt (17 bytes; hard link, 2 names)"), "{listing}");
    let card = h.engine.approval(&id).await.unwrap();
    assert!(card.summary.contains("a hard link with 2 names; will be refused"), "{}", card.summary);
    let (_, diff) = diff_of(&card.preview);
    assert!(diff.contains("is a hard link") && diff.contains("the write will be refused"), "{diff}");

    h.engine.decide(&id, DecisionInput::approve(), &crate::common::owner()).await.unwrap();
    run_to_end(&h.engine, &run_id).await;
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "the store's copy\n", "the outside file is untouched");
    assert_eq!(std::fs::read_to_string(h.workspace().join("linked.txt")).unwrap(), "the store's copy\n");
    let told = tool_messages(&h.model, 2);
    let result = told.last().unwrap()["content"].as_str().unwrap();
    assert!(result.contains("is a hard link") && result.contains("nothing was written"), "{result}");
}

#[tokio::test]
async fn the_write_card_names_the_file_a_symbolic_link_leads_to() {
    let h = Harness::start(script("note", vec![write_call("notes.txt", "[alias]\n"), Turn::text("ok")])).await;
    let ws = h.workspace();
    std::fs::create_dir(ws.join(".git")).unwrap();
    std::fs::write(ws.join(".git/config"), "[core]\n").unwrap();
    std::os::unix::fs::symlink(".git/config", ws.join("notes.txt")).unwrap();

    let (thread_id, run_id) = h.send("note").await;
    let id = pending_approvals(&h.engine, &run_id, 1).await.remove(0);
    let card = h.engine.approval(&id).await.unwrap();
    assert_eq!(
        card.summary,
        "Write 8 bytes to `.git/config` through the symbolic link `notes.txt` (overwrites existing file)"
    );
    let (path, diff) = diff_of(&card.preview);
    assert_eq!(path, ".git/config", "the card's file is the one written");
    assert!(diff.contains("`notes.txt` is a symbolic link: this writes `.git/config`"), "{diff}");
    assert!(diff.contains("--- a/.git/config") && diff.contains("-[core]") && diff.contains("+[alias]"), "{diff}");
    // What the inbox and the thread read back is the stored request: the same.
    let stored = h.engine.thread(&thread_id).await.unwrap().approvals.remove(0);
    assert_eq!((stored.summary, stored.preview), (card.summary, card.preview));

    h.engine.decide(&id, DecisionInput::approve(), &crate::common::owner()).await.unwrap();
    run_to_end(&h.engine, &run_id).await;
    assert_eq!(std::fs::read_to_string(ws.join(".git/config")).unwrap(), "[alias]\n");
    let result = tool_messages(&h.model, 1)[0]["content"].as_str().unwrap().to_string();
    assert!(result.contains("to `.git/config` through the symbolic link `notes.txt`"), "{result}");
}

#[tokio::test]
async fn a_multi_gigabyte_file_gets_its_card_without_being_read_and_is_not_written() {
    let h = Harness::start(script("shrink", vec![write_call("big.bin", "small\n"), Turn::text("ok")])).await;
    let big = h.workspace().join("big.bin");
    // Sparse: 8 GiB long, no disk used. Hashing it for the card would read 8 GiB.
    std::fs::File::create(&big).unwrap().set_len(8 << 30).unwrap();

    let (_, run_id) = h.send("shrink").await;
    let id = pending_approvals(&h.engine, &run_id, 1).await.remove(0);
    let card = h.engine.approval(&id).await.unwrap();
    let (_, diff) = diff_of(&card.preview);
    assert!(diff.contains("is 8589934592 bytes, over the 64 MiB") && diff.contains("will be refused"), "{diff}");
    assert!(card.summary.contains("too large; will be refused"), "{}", card.summary);

    h.engine.decide(&id, DecisionInput::approve(), &crate::common::owner()).await.unwrap();
    run_to_end(&h.engine, &run_id).await;
    assert_eq!(big.metadata().unwrap().len(), 8 << 30, "the file is left as it was");
    let result = tool_messages(&h.model, 1)[0]["content"].as_str().unwrap().to_string();
    assert!(result.contains("over the 64 MiB") && result.contains("nothing was written"), "{result}");
}

#[tokio::test]
async fn a_sandboxed_command_cannot_link_a_file_from_outside_into_the_workspace() {
    // The file outside the workspace is readable to commands (only Warden's private paths are hidden),
    // but making a second name for it inside the workspace needs Landlock's `REFER` right on its folder.
    let store = tempfile::tempdir().unwrap();
    let outside = store.path().join("package-file.txt");
    std::fs::write(&outside, "the store's copy\n").unwrap();
    let command = format!("cat {0} && ln {0} linked.txt; echo linked=$?", outside.display());
    let h = Harness::start(script(
        "link",
        vec![Turn::calls(vec![call("shell", json!({ "command": command }))]), Turn::text("ok")],
    ))
    .await;
    let (_, run_id) = h.send("link").await;
    let id = pending_approvals(&h.engine, &run_id, 1).await.remove(0);
    h.engine.decide(&id, DecisionInput::approve(), &crate::common::owner()).await.unwrap();
    run_to_end(&h.engine, &run_id).await;
    let result = tool_messages(&h.model, 1)[0]["content"].as_str().unwrap().to_string();
    assert!(result.contains("the store's copy"), "the outside file is readable: {result}");
    assert!(result.contains("linked=1") && !result.contains("WITHOUT a sandbox"), "{result}");
    assert!(!h.workspace().join("linked.txt").exists(), "no second name was made: {result}");
}
