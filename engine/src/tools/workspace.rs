//! The folder the built-in tools are confined to. Every path a model gives is resolved here first:
//! relative to the root, `..` handled lexically, symbolic links followed through the longest existing
//! ancestor, and anything that ends up outside the root is refused.

use std::io;
use std::path::{Component, Path, PathBuf};

use super::ToolError;

/// A canonical root folder; the only place built-in tools may read, write or run commands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workspace {
    root: PathBuf,
}

impl Workspace {
    /// Creates the folder if needed and keeps its canonical path.
    pub fn new(root: impl AsRef<Path>) -> io::Result<Workspace> {
        std::fs::create_dir_all(root.as_ref())?;
        Ok(Workspace { root: root.as_ref().canonicalize()? })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Maps a path given by the model to a path inside the workspace, which need not exist yet.
    ///
    /// The returned path has no symbolic links in its existing part, so opening it cannot leave the
    /// workspace (short of someone swapping in a link between this check and the use).
    pub fn resolve(&self, path: &str) -> Result<PathBuf, ToolError> {
        let escapes = |why: &str| ToolError::PathEscapesWorkspace(format!("{path} ({why})"));
        if path.contains('\0') {
            return Err(escapes("contains a NUL byte"));
        }
        let lexical = normalize(&self.root.join(path));
        if !lexical.starts_with(&self.root) {
            return Err(escapes("outside the workspace"));
        }
        // Canonicalize the longest existing ancestor; the rest are plain names still to be created.
        let mut existing = lexical.as_path();
        let mut missing: Vec<&std::ffi::OsStr> = Vec::new();
        let canonical = loop {
            match existing.canonicalize() {
                Ok(canonical) => break canonical,
                Err(err) if err.kind() == io::ErrorKind::NotFound => {
                    // A link that points nowhere would be followed when the file is created.
                    if existing.symlink_metadata().is_ok() {
                        return Err(escapes("dangling symbolic link"));
                    }
                    let (Some(parent), Some(name)) = (existing.parent(), existing.file_name()) else {
                        return Err(escapes("no existing ancestor"));
                    };
                    missing.push(name);
                    existing = parent;
                }
                Err(err) if err.kind() == io::ErrorKind::NotADirectory => {
                    return Err(ToolError::Failed(format!("`{path}`: a part of the path is a file, not a folder")));
                }
                Err(err) => return Err(ToolError::Io(err)),
            }
        };
        if !canonical.starts_with(&self.root) {
            return Err(escapes("a symbolic link leads outside the workspace"));
        }
        Ok(missing.iter().rev().fold(canonical, |acc, name| acc.join(name)))
    }
}

/// Removes `.` and resolves `..` against the components before it, without touching the disk.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path().join("ws")).unwrap();
        (dir, ws)
    }

    fn assert_escapes(ws: &Workspace, path: &str) {
        match ws.resolve(path) {
            Err(ToolError::PathEscapesWorkspace(_)) => {}
            other => panic!("`{path:?}` should be refused, got {other:?}"),
        }
    }

    #[test]
    fn new_creates_the_folder_and_keeps_it_canonical() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path().join("a/../b")).unwrap();
        assert!(ws.root().is_dir());
        assert_eq!(ws.root(), dir.path().canonicalize().unwrap().join("b"));
    }

    #[test]
    fn relative_paths_resolve_under_the_root_even_when_missing() {
        let (_dir, ws) = workspace();
        assert_eq!(ws.resolve("notes/todo.md").unwrap(), ws.root().join("notes/todo.md"));
        assert_eq!(ws.resolve("./a/./b/../c").unwrap(), ws.root().join("a/c"));
        assert_eq!(ws.resolve("").unwrap(), ws.root());
        assert_eq!(ws.resolve(".").unwrap(), ws.root());
    }

    #[test]
    fn absolute_paths_inside_the_root_are_allowed() {
        let (_dir, ws) = workspace();
        let inside = ws.root().join("x.txt");
        assert_eq!(ws.resolve(inside.to_str().unwrap()).unwrap(), inside);
    }

    #[test]
    fn escapes_are_refused() {
        let (_dir, ws) = workspace();
        for path in ["../x", "..", "a/../../x", "/etc/passwd", "/", "a/../../ws-sibling/x", "x\0y"] {
            assert_escapes(&ws, path);
        }
    }

    #[test]
    fn dot_dot_that_comes_back_inside_is_allowed() {
        let (_dir, ws) = workspace();
        assert_eq!(ws.resolve("../ws/x").unwrap(), ws.root().join("x"));
    }

    #[test]
    fn symlinks_leading_outside_are_refused() {
        let (dir, ws) = workspace();
        let outside = dir.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("secret"), "s").unwrap();
        std::os::unix::fs::symlink(&outside, ws.root().join("out")).unwrap();
        std::os::unix::fs::symlink(outside.join("secret"), ws.root().join("secret-link")).unwrap();
        std::os::unix::fs::symlink(outside.join("not-yet"), ws.root().join("dangling")).unwrap();
        for path in ["out", "out/secret", "out/new/file.txt", "secret-link", "dangling"] {
            assert_escapes(&ws, path);
        }
    }

    #[test]
    fn symlinks_inside_the_workspace_resolve_to_their_target() {
        let (_dir, ws) = workspace();
        std::fs::create_dir(ws.root().join("real")).unwrap();
        std::os::unix::fs::symlink(ws.root().join("real"), ws.root().join("alias")).unwrap();
        assert_eq!(ws.resolve("alias/new.txt").unwrap(), ws.root().join("real/new.txt"));
    }
}
