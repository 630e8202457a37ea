//! A private, empty directory for one confined command, outside the workspace, removed with the value,
//! that is both its `HOME` and its `TMPDIR` (one directory to make and remove on the way to a command,
//! not three): whatever config a tool would read from `HOME` (git's, npm's) is not there, and nothing a
//! command leaves there outlives the call.
//!
//! Each lives in one directory per user under the system's temp dir (`warden-sandbox-<uid>`, mode
//! 0700), not directly in the temp dir: making one then changes only that directory, so the sandbox's
//! listing of the temp dir (kept while the temp dir is unchanged, see `rules`) stays good.

use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Holds the directory; dropping it removes it.
#[derive(Debug)]
pub struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    /// Makes a fresh directory (mode 0700) under this user's scratch directory (or, where that cannot
    /// be used, directly under the system's temp dir).
    pub fn new() -> std::io::Result<Self> {
        let private = std::fs::Permissions::from_mode(0o700);
        let dir = match parent() {
            Some(parent) => tempfile::Builder::new().prefix("call-").permissions(private).tempdir_in(parent)?,
            None => tempfile::Builder::new().prefix("warden-sandbox-").permissions(private).tempdir()?,
        };
        Ok(Self { dir })
    }

    /// The command's `HOME`.
    pub fn home(&self) -> &Path {
        self.dir.path()
    }

    /// The command's `TMPDIR`: the same directory.
    pub fn tmp(&self) -> &Path {
        self.dir.path()
    }

    /// The directory itself.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }
}

/// This user's scratch directory, made on first use; `None` if it cannot be made or is not this user's
/// own private directory (someone else made it first, or it is a link).
fn parent() -> Option<&'static Path> {
    static PARENT: OnceLock<Option<PathBuf>> = OnceLock::new();
    PARENT
        .get_or_init(|| {
            // SAFETY: geteuid cannot fail.
            let uid = unsafe { libc::geteuid() };
            let path = std::env::temp_dir().join(format!("warden-sandbox-{uid}"));
            match std::fs::DirBuilder::new().mode(0o700).create(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(_) => return None,
            }
            let meta = std::fs::symlink_metadata(&path).ok()?;
            let private = meta.is_dir() && meta.uid() == uid && meta.mode() & 0o077 == 0;
            private.then_some(path)
        })
        .as_deref()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_call_gets_its_own_private_directory_removed_with_it() {
        let (a, b) = (Scratch::new().unwrap(), Scratch::new().unwrap());
        assert_ne!(a.root(), b.root());
        assert_eq!(a.root().parent(), b.root().parent(), "both in this user's scratch directory");
        for scratch in [&a, &b] {
            assert!(scratch.home().is_dir() && scratch.tmp() == scratch.home());
            let mode = std::fs::metadata(scratch.root()).unwrap().mode();
            assert_eq!(mode & 0o077, 0, "private to its user");
        }
        let root = a.root().to_path_buf();
        drop(a);
        assert!(!root.exists());
        assert!(b.root().exists());
    }
}
