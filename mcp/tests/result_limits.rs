//! Tool results have a size cap: what is over the limit is cut for the model with a note saying how
//! much and where the whole result is kept (on disk, up to its own limit), against the real
//! fixture over stdio and Streamable HTTP.

use std::path::{Path, PathBuf};

use crate::common::*;
use serde_json::json;
use warden_mcp::{McpHub, ResultLimits};
use warden_tools::ToolContent;

fn note_of(content: &[ToolContent]) -> &str {
    match content.last() {
        Some(ToolContent::Text { text }) => text,
        other => panic!("no note at the end: {other:?}"),
    }
}

/// The path a note names as where the full result is kept.
fn kept_path(note: &str) -> PathBuf {
    let start = note.find("kept at ").expect("the note names a path") + "kept at ".len();
    let rest = &note[start..];
    PathBuf::from(rest.strip_suffix(".]").expect("path ends the note"))
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            files.push(path);
        }
    }
    files
}

async fn connected_fixture(hub: &McpHub) {
    hub.upsert(stdio_config("fx", &[])).await.expect("saved");
    wait_connected(hub, "fx").await;
}

#[tokio::test]
async fn a_huge_result_is_cut_for_the_model_and_kept_whole_on_disk() {
    let (hub, dir) = hub().await;
    let results = dir.path().join("mcp-results");
    let hub = hub.with_results_dir(&results);
    connected_fixture(&hub).await;

    let whole = 1024 * 1024 + 13;
    let output = call(&hub, "fx__big", json!({ "text_bytes": whole })).await.expect("big answers");
    let limit = ResultLimits::default().text_bytes;
    let ToolContent::Text { text } = &output.content[0] else { panic!("text first: {:?}", output.content[0]) };
    assert_eq!(text.len(), limit, "exactly the limit is shown");
    assert!(text.starts_with("line 0000000001\n"));
    let note = note_of(&output.content);
    assert!(
        note.starts_with("[Warden cut this tool result: 768 KiB of its 1 MiB of text (the limit is 256 KiB) were cut."),
        "{note}"
    );

    // The whole MCP result as received, in Warden's data dir, not anywhere the model chose.
    let path = kept_path(note);
    assert!(path.starts_with(results.join("fx")), "{}", path.display());
    let kept: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).expect("kept file")).expect("JSON");
    let kept_text = kept["content"][0]["text"].as_str().expect("text kept");
    assert_eq!(kept_text.len(), whole);
    assert!(kept_text.ends_with(&text_line_at(whole)), "the end is kept too");

    // A result within the limit is given as it is, with no note and nothing written.
    let small = call(&hub, "fx__big", json!({ "text_bytes": 100 })).await.expect("big answers");
    assert_eq!(small.content.len(), 1);
    assert_eq!(files_under(&results).len(), 1);
    hub.shutdown().await;
}

/// The last (partial) line of the fixture's numbered text of `bytes` bytes.
fn text_line_at(bytes: usize) -> String {
    let line = bytes / 16 + 1;
    let full = format!("line {line:010}\n");
    full[..bytes % 16].to_owned()
}

#[tokio::test]
async fn a_result_over_the_kept_limit_is_dropped_with_a_note_and_images_have_their_own_cap() {
    let (hub, dir) = hub().await;
    let results = dir.path().join("mcp-results");
    let hub = hub.with_results_dir(&results).with_result_limits(ResultLimits {
        text_bytes: 1024,
        image_bytes: 2048,
        kept_bytes: 8 * 1024,
    });
    connected_fixture(&hub).await;

    let output = call(&hub, "fx__big", json!({ "text_bytes": 100, "image_bytes": 20_000 })).await.expect("big answers");
    assert!(
        matches!(&output.content[0], ToolContent::Text { text } if text.len() == 100),
        "text within its limit is whole"
    );
    assert!(
        matches!(&output.content[1], ToolContent::Text { text } if text.starts_with("[image (image/png, 19.5 KiB base64) left out")),
        "{:?}",
        output.content[1]
    );
    assert!(!output.content.iter().any(|c| matches!(c, ToolContent::Image { .. })));
    let note = note_of(&output.content);
    assert!(note.contains("19.5 KiB of its 19.5 KiB of images (the limit is 2 KiB)"), "{note}");
    assert!(note.contains("is larger than the 8 KiB Warden keeps, so it was dropped"), "{note}");
    assert!(files_under(&results).is_empty(), "nothing kept");
    hub.shutdown().await;
}

#[tokio::test]
async fn without_a_results_dir_a_cut_result_says_it_was_not_kept() {
    let (hub, _dir) = hub().await;
    let hub = hub.with_result_limits(ResultLimits { text_bytes: 64, ..ResultLimits::default() });
    connected_fixture(&hub).await;
    let output = call(&hub, "fx__big", json!({ "text_bytes": 1000 })).await.expect("big answers");
    let note = note_of(&output.content);
    assert!(note.contains("936 bytes of its 1000 bytes of text"), "{note}");
    assert!(note.contains("not kept: no results directory is set"), "{note}");
    hub.shutdown().await;
}

#[tokio::test]
async fn results_over_http_are_capped_the_same_way() {
    let token = "limits-token-2468";
    let fixture = http_fixture(token).await;
    let (hub, dir) = hub().await;
    let results = dir.path().join("mcp-results");
    let hub = hub.with_results_dir(&results);
    hub.upsert(http_config("remote", &fixture.url, token)).await.expect("saved");
    wait_connected(&hub, "remote").await;
    let output = call(&hub, "remote__big", json!({ "text_bytes": 300 * 1024 })).await.expect("big answers");
    let note = note_of(&output.content);
    assert!(note.contains("44 KiB of its 300 KiB of text"), "{note}");
    assert!(kept_path(note).exists());
    hub.shutdown().await;
}

#[tokio::test]
async fn a_message_over_rmcps_16_mib_bound_ends_in_the_calls_timeout_and_the_session_lives_on() {
    let (hub, _dir) = hub().await;
    let mut config = stdio_config("fx", &[]);
    config.call_timeout_secs = 5;
    hub.upsert(config).await.expect("saved");
    wait_connected(&hub, "fx").await;
    // rmcp drops a line over 16 MiB unread rather than buffering it: no answer arrives.
    let result = call(&hub, "fx__big", json!({ "text_bytes": 17 * 1024 * 1024 })).await;
    assert!(matches!(result, Err(warden_tools::ToolError::Timeout(5))), "{result:?}");
    let output = call(&hub, "fx__echo", json!({ "text": "still here" })).await.expect("the session survives");
    assert_eq!(text_of(&output), "still here");
    hub.shutdown().await;
}
