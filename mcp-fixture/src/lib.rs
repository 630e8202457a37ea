//! How tests start the fixture server: its binary (built with the cargo that runs the tests, since
//! `CARGO_BIN_EXE_*` only exists for binaries of the test's own package) and a Streamable HTTP
//! instance behind a bearer token. Used by warden-mcp's and warden-server's integration tests.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};

/// Upper bound for anything a test waits for; a failure guard, not a timing assertion.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// The fixture binary: `cargo build` of this package (same profile and target dir, a no-op once
/// built), asking cargo where the executable is.
pub fn binary() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut cmd = std::process::Command::new(env!("CARGO"));
        cmd.current_dir(&workspace).args([
            "build",
            "-p",
            "warden-mcp-fixture",
            "--bin",
            "warden-mcp-fixture",
            "--message-format=json",
        ]);
        if !cfg!(debug_assertions) {
            cmd.arg("--release");
        }
        let output = cmd.stderr(Stdio::inherit()).output().expect("cargo runs");
        assert!(output.status.success(), "building warden-mcp-fixture failed");
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|msg| msg["reason"] == "compiler-artifact" && msg["target"]["name"] == "warden-mcp-fixture")
            .find_map(|msg| msg["executable"].as_str().map(PathBuf::from))
            .expect("cargo reports the fixture executable")
    })
}

/// The fixture serving Streamable HTTP behind a bearer token; killed when dropped.
pub struct HttpFixture {
    pub url: String,
    _child: tokio::process::Child,
}

/// Starts the fixture on a free port with `token` and waits for the address it prints.
pub async fn serve_http(token: &str) -> HttpFixture {
    let mut child = tokio::process::Command::new(binary())
        .args(["--http", "0", "--token", token])
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("fixture starts");
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut lines = BufReader::new(stdout).lines();
    let line = tokio::time::timeout(PATIENCE, lines.next_line())
        .await
        .expect("fixture prints its address")
        .expect("stdout readable")
        .expect("a line");
    let url = line.strip_prefix("listening on ").expect("address line").to_owned();
    HttpFixture { url, _child: child }
}
