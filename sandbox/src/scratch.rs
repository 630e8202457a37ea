//! A private, empty `HOME` and `TMPDIR` for one confined command, outside the workspace, removed with
//! the value: whatever config a tool would read from `HOME` (git's, npm's) is not there, and nothing a
//! command leaves there outlives the call.

use std::path::{Path, PathBuf};

/// Holds the directories; dropping it removes them.
#[derive(Debug)]
pub struct Scratch {
    dir: tempfile::TempDir,
    home: PathBuf,
    tmp: PathBuf,
}

impl Scratch {
    /// Makes `home/` and `tmp/` in a fresh directory (mode 0700) under the system's temp dir.
    pub fn new() -> std::io::Result<Self> {
        let dir = tempfile::Builder::new().prefix("warden-sandbox-").tempdir()?;
        let home = dir.path().join("home");
        let tmp = dir.path().join("tmp");
        std::fs::create_dir(&home)?;
        std::fs::create_dir(&tmp)?;
        Ok(Self { dir, home, tmp })
    }

    pub fn home(&self) -> &Path {
        &self.home
    }

    pub fn tmp(&self) -> &Path {
        &self.tmp
    }

    /// The directory holding both.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }
}
