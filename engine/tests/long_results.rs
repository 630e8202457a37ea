//! Long tool results: the model sees a summary made by the run's model (one `complete` request, made
//! once and kept), the ids it left out, and a handle it pages through with `read_result`; a failed
//! summary falls back to the cut result with the handle; another thread's handle reads nothing.

use serde_json::{json, Value};
use warden_testkit::Script;

use crate::common::*;

/// The start of the engine's summarisation request, which the scripts answer.
const SUMMARISE: &str = "Summarise this output of the tool";
const UUID: &str = "0192e8f4-7a3b-7c1d-9e2f-0123456789ab";
const URL: &str = "https://api.example.com/v2/orders/77";
const PATH: &str = "/srv/data/exports/report-q3.csv";
const SUMMARY: &str = "SUMMARY: a list of 1,000 orders; the first is 0192e8f4-7a3b-7c1d-9e2f-0123456789ab.";

/// About 40 KB of numbered lines, above the default 24 KiB: a UUID near the start, a URL in the
/// middle next to a marker, a path at the end.
fn big_file() -> String {
    let mut text = String::new();
    for i in 0..1000 {
        match i {
            2 => text.push_str(&format!("order {UUID} opened\n")),
            500 => text.push_str(&format!("MIDDLE-MARKER see {URL}\n")),
            998 => text.push_str(&format!("exported to {PATH}\n")),
            _ => text.push_str(&format!("line {i:04}: nothing to see\n")),
        }
    }
    text
}

/// The handle pattern scripted calls fill `read_result`'s handle from.
const HANDLE: &str = r#""handle": "([0-9a-f-]{36})""#;

fn script(summariser: Value, main: Value) -> Script {
    Script::from_json(&json!({ "scenarios": [summariser, main] }).to_string()).unwrap()
}

fn summariser_answers(summary: &str) -> Value {
    json!({ "when": SUMMARISE, "title": summary })
}

fn summariser_fails() -> Value {
    json!({ "when": SUMMARISE, "turns": [ { "error": { "status": 500, "message": "summariser down" } } ] })
}

fn read_big_file_then(more: Vec<Value>) -> Value {
    let mut turns = vec![json!({ "tool_calls": [ { "name": "read_file", "arguments": { "path": "big.txt" } } ] })];
    turns.extend(more);
    json!({ "when": "big file", "title": "Big file", "turns": turns })
}

fn streamed(h: &Harness) -> Vec<Value> {
    h.model.requests().into_iter().filter(|r| r["stream"] == true).collect()
}

/// The summarisation requests the model got.
fn summarisations(h: &Harness) -> Vec<Value> {
    h.model
        .requests()
        .into_iter()
        .filter(|r| r["stream"] != true && r["messages"].to_string().contains(SUMMARISE))
        .collect()
}

/// The content of the tool messages of a streamed request.
fn tool_texts(request: &Value) -> Vec<String> {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .collect()
}

async fn harness(script: Script) -> Harness {
    let h = Harness::start(script).await;
    std::fs::write(h.workspace().join("big.txt"), big_file()).unwrap();
    h
}

/// The id of the run's first tool call: the handle of its result.
fn first_call_id(events: &[warden_engine::RunEventRecord]) -> String {
    of_kind(events, "tool_call")[0]["id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn the_model_sees_a_summary_with_the_ids_it_dropped_and_pages_the_whole_by_handle() {
    let page = json!({ "text": "Reading on.", "tool_calls": [ {
        "name": "read_result", "arguments": { "offset": 100, "length": 50 }, "fill": { "handle": HANDLE } } ] });
    let done = json!({ "text": "Done.", "echo_tool_results": true });
    let mut h = harness(script(summariser_answers(SUMMARY), read_big_file_then(vec![page, done]))).await;
    let (thread_id, run_id) = h.send("read the big file").await;
    let events = run_to_end(&h.engine, &run_id).await;
    assert!(of_kind(&events, "run_failed").is_empty(), "{:?}", kinds(&events));
    let handle = first_call_id(&events);

    // One summarisation request: the run's model through `complete`, not a chat turn.
    let asked = summarisations(&h);
    assert_eq!(asked.len(), 1, "three model turns saw the result; it was summarised once");
    assert!(asked[0]["tools"].as_array().is_none_or(Vec::is_empty), "{}", asked[0]["tools"]);
    assert!(asked[0]["messages"][0]["content"].as_str().unwrap().contains("exactly as written"));
    assert!(asked[0]["messages"][1]["content"].as_str().unwrap().contains("MIDDLE-MARKER"), "it reads the result");

    // The next turn sees the summary, the handle and what the summary left out, not the result.
    let requests = streamed(&h);
    assert_eq!(requests.len(), 3);
    let seen = &tool_texts(&requests[1])[0];
    assert!(seen.contains(SUMMARY), "{seen}");
    assert!(seen.contains(&format!(r#"read_result {{"handle": "{handle}", "offset": 0}}"#)), "{seen}");
    let kept = seen.split("Kept verbatim").nth(1).unwrap_or_else(|| panic!("no kept list in {seen}"));
    assert!(kept.contains(URL) && kept.contains(PATH), "{kept}");
    assert!(!kept.contains(UUID), "the summary has the UUID: {kept}");
    assert!(!seen.contains("MIDDLE-MARKER") && !seen.contains("line 0700"), "{seen}");
    assert!(seen.len() < 4096, "{} bytes", seen.len());

    // read_result answers with that slice of the stored result.
    let expected: String = big_file().chars().skip(100).take(50).collect();
    let total = big_file().chars().count();
    let slice = &tool_texts(&requests[2])[1];
    assert_eq!(
        slice,
        &format!("[Result `{handle}` of `read_file`: chars 100-150 of {total}. Continue with offset 150.]\n{expected}")
    );
    assert!(text_of(&events).contains(&expected), "the model's echo carries the slice");

    // The page still has the whole result.
    let call = h.engine.tool_call(&handle.as_str().into()).await.unwrap();
    let stored = call.output.unwrap();
    assert!(serde_json::to_string(&stored).unwrap().contains("MIDDLE-MARKER"));

    // After a restart the next run of the thread reuses the stored summary.
    h.restart(|_| {}).await;
    let run = h.engine.send_message(&thread_id, "thanks".into(), &crate::common::owner()).await.unwrap();
    run_to_end(&h.engine, &run.run_id).await;
    assert_eq!(summarisations(&h).len(), 1, "not summarised again");
    let last = streamed(&h).pop().unwrap();
    assert!(tool_texts(&last)[0].contains(SUMMARY));
}

#[tokio::test]
async fn a_failed_summary_leaves_the_cut_result_with_the_handle_and_is_not_retried() {
    let list = json!({ "tool_calls": [ { "name": "list_dir", "arguments": { "path": "." } } ] });
    let done = json!({ "text": "Done." });
    let h = harness(script(summariser_fails(), read_big_file_then(vec![list, done]))).await;
    let (_, run_id) = h.send("read the big file").await;
    let events = run_to_end(&h.engine, &run_id).await;
    assert!(of_kind(&events, "run_failed").is_empty(), "the run goes on without a summary: {:?}", kinds(&events));
    let handle = first_call_id(&events);
    assert_eq!(summarisations(&h).len(), 1, "two turns after the result, one attempt");

    let requests = streamed(&h);
    for request in &requests[1..] {
        let seen = &tool_texts(request)[0];
        let limit = h.engine.config().tool_output_limit;
        assert!(seen.starts_with(&big_file()[..limit]), "the result cut, as before summaries");
        assert!(seen.contains("[output truncated"), "{seen}");
        assert!(seen.ends_with(&format!(r#"read_result {{"handle": "{handle}", "offset": {limit}}}.]"#)), "{seen}");
        assert!(!seen.contains("Summary:"));
    }
}

#[tokio::test]
async fn a_handle_of_another_thread_reads_nothing() {
    let peek = json!({ "when": "peek at", "turns": [
        { "tool_calls": [ { "name": "read_result", "fill": { "handle": HANDLE } } ] },
        { "text": "Done.", "echo_tool_results": true } ] });
    let mut script = script(summariser_answers(SUMMARY), read_big_file_then(vec![json!({ "text": "Read." })]));
    script.scenarios.push(serde_json::from_value(peek).unwrap());
    let h = harness(script).await;
    let (_, run_id) = h.send("read the big file").await;
    let handle = first_call_id(&run_to_end(&h.engine, &run_id).await);

    let (_, other_run) = h.send(&format!(r#"peek at {{"handle": "{handle}"}}"#)).await;
    let events = run_to_end(&h.engine, &other_run).await;
    let said = text_of(&events);
    assert!(said.contains(&format!("There is no result with the handle `{handle}` in this conversation")), "{said}");
    assert!(!said.contains("nothing to see") && !said.contains(UUID), "{said}");
}

#[tokio::test]
async fn results_below_the_threshold_or_with_summaries_off_are_not_summarised() {
    let done = json!({ "text": "Done." });
    let h = Harness::start_with(script(summariser_answers(SUMMARY), read_big_file_then(vec![done])), |c| {
        c.summarize_results_above = 0
    })
    .await;
    std::fs::write(h.workspace().join("big.txt"), big_file()).unwrap();
    let (_, run_id) = h.send("read the big file").await;
    let handle = first_call_id(&run_to_end(&h.engine, &run_id).await);
    assert!(summarisations(&h).is_empty());
    let seen = &tool_texts(&streamed(&h)[1])[0];
    assert!(seen.contains("[output truncated") && seen.contains(&handle), "cut, with the handle: {seen}");

    let small = json!({ "when": "small file", "turns": [
        { "tool_calls": [ { "name": "read_file", "arguments": { "path": "small.txt" } } ] }, { "text": "Done." } ] });
    let h = Harness::start(script(summariser_answers(SUMMARY), small)).await;
    std::fs::write(h.workspace().join("small.txt"), "short and whole").unwrap();
    let (_, run_id) = h.send("read the small file").await;
    run_to_end(&h.engine, &run_id).await;
    assert!(summarisations(&h).is_empty());
    assert_eq!(tool_texts(&streamed(&h)[1]), ["short and whole"]);
}
