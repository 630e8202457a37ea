//! Warden's private files stay out of an approved command's reach wherever they are: with
//! `WARDEN_DATABASE_URL` putting the database outside the data dir, the sandbox hides the database
//! and every file SQLite keeps beside it (`-wal`, `-shm`, `-journal`), which hold the same secrets.
//! Real engine on that real SQLite file, scripted model over HTTP, a real sandboxed `sh`.

use crate::common::*;
use serde_json::json;
use warden_testkit::{Scenario, Script, ScriptedCall, Turn};
use warden_types::approval::DecisionInput;

const SECRET: &str = "sk-warden-private-files-test-secret";

#[tokio::test]
async fn the_database_and_its_wal_shm_and_journal_outside_the_data_dir_are_unreadable() {
    if !warden_sandbox::status().available {
        panic!("!!! the sandbox is not available here: {}", warden_sandbox::status().detail);
    }
    let db_dir = tempfile::tempdir().unwrap();
    let db = db_dir.path().canonicalize().unwrap().join("warden.db");
    let files: Vec<String> =
        ["", "-wal", "-shm", "-journal"].iter().map(|suffix| format!("{}{suffix}", db.display())).collect();
    // Each file alone, so one refusal does not hide another's read.
    let command = files
        .iter()
        .map(|f| format!("if cat '{f}' > /dev/null; then echo 'READ {f}'; else echo 'REFUSED {f}'; fi"))
        .collect::<Vec<_>>()
        .join("; ");
    let script = Script {
        scenarios: vec![Scenario::new(
            "read the database",
            vec![Turn::calls(vec![ScriptedCall::new("shell", json!({ "command": command }))]), Turn::text("Done.")],
        )],
        default_title: None,
    };
    let url = format!("sqlite://{}?mode=rwc", db.display());
    let h = Harness::start_with(script, |config| config.database_url = url).await;
    // The message (with a key in it) is written through the WAL. A rollback journal is what SQLite
    // leaves beside the file outside WAL mode; the one made here starts with a zero byte, which SQLite
    // reads as "not hot" (else a new connection would try to roll the database back with it).
    let (_, run_id) = h.send(&format!("read the database; my key is {SECRET}")).await;
    std::fs::write(format!("{}-journal", db.display()), format!("\0{SECRET}")).unwrap();
    let ids = pending_approvals(&h.engine, &run_id, 1).await;
    for file in &files {
        assert!(std::fs::metadata(file).is_ok(), "{file} is not there to hide");
    }
    h.engine.decide(&ids[0], DecisionInput::approve(), &crate::common::owner()).await.unwrap();
    let events = run_to_end(&h.engine, &run_id).await;
    let output = of_kind(&events, "tool_result")[0]["output"].as_str().unwrap_or_default().to_string();
    for file in &files {
        assert!(output.contains(&format!("REFUSED {file}")), "{file} was not refused: {output}");
        assert!(!output.contains(&format!("READ {file}")), "{file} was readable: {output}");
    }
    assert!(!output.contains(SECRET), "{output}");
}
