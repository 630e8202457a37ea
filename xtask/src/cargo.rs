//! Runs `cargo build` and finds what it built in cargo's JSON messages, instead of guessing paths
//! from profile and target names.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};
use serde_json::Value;

/// One artifact cargo reported: the target's name and kinds, its files and executable.
pub struct Artifact<'a>(&'a Value);

impl Artifact<'_> {
    pub fn target_name(&self) -> Option<&str> {
        self.0["target"]["name"].as_str()
    }

    pub fn has_kind(&self, kind: &str) -> bool {
        self.0["target"]["kind"].as_array().is_some_and(|kinds| kinds.iter().any(|k| k.as_str() == Some(kind)))
    }

    pub fn filenames(&self) -> impl Iterator<Item = PathBuf> + '_ {
        self.0["filenames"].as_array().into_iter().flatten().filter_map(Value::as_str).map(PathBuf::from)
    }

    pub fn executable(&self) -> Option<PathBuf> {
        self.0["executable"].as_str().map(PathBuf::from)
    }
}

/// Runs `command` (a `cargo build …`, or a `cargo rustc …` whose `rustc_args` go to the last crate's
/// compiler) with diagnostics and progress on the terminal and returns the one file `pick` chooses
/// among the artifacts it reports.
pub fn build(
    mut command: Command,
    rustc_args: &[&str],
    what: &str,
    pick: impl Fn(&Artifact) -> Option<PathBuf>,
) -> Result<PathBuf> {
    command.arg("--message-format=json-render-diagnostics").stdout(Stdio::piped());
    if !rustc_args.is_empty() {
        command.arg("--").args(rustc_args);
    }
    let mut child = command.spawn().context("cannot run cargo")?;
    let stdout = child.stdout.take().context("cargo's output is not readable")?;
    let mut found = None;
    for line in BufReader::new(stdout).lines() {
        let line = line.context("cannot read cargo's output")?;
        let Ok(message) = serde_json::from_str::<Value>(&line) else { continue };
        if message["reason"] == "compiler-artifact" {
            found = pick(&Artifact(&message)).or(found);
        }
    }
    let status = child.wait().context("cannot wait for cargo")?;
    if !status.success() {
        bail!("building {what} failed (cargo exited with {status})");
    }
    found.with_context(|| format!("cargo built {what} but reported no file for it"))
}
