//! The folder the built-in tools are confined to. Every path a model gives is resolved here first:
//! relative to the root, `..` handled lexically, symbolic links followed through the longest existing
//! ancestor, and anything that ends up outside the root is refused. So is anything that ends up in one
//! of Warden's private paths (its data dir, database, MCP config: the list the sandbox hides from
//! commands, `Config::private_paths`), which a workspace may hold (`WARDEN_WORKSPACE=.` with `./data`).

use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use super::ToolError;

/// A canonical root folder; the only place built-in tools may read, write or run commands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workspace {
    root: PathBuf,
    /// Paths the built-in tools never touch, as given (resolved at each use: they may not exist yet,
    /// or be links). The same list the sandbox hides from commands.
    private: Arc<[PathBuf]>,
}

impl Workspace {
    /// Creates the folder if needed and keeps its canonical path.
    pub fn new(root: impl AsRef<Path>) -> io::Result<Workspace> {
        std::fs::create_dir_all(root.as_ref())?;
        Ok(Workspace { root: root.as_ref().canonicalize()?, private: Arc::new([]) })
    }

    /// The same workspace with `private` paths refused, and left out of listings, wherever they lie.
    /// A private path that holds the whole workspace (the default workspace inside the data dir)
    /// leaves the workspace open, as the sandbox does.
    pub fn hiding(mut self, private: Vec<PathBuf>) -> Workspace {
        self.private = private.into();
        self
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The private paths as they resolve now (links followed, `..` handled, a name not yet created
    /// such as `warden.db-wal` kept as it will be), but those that hold the whole workspace.
    pub fn private_now(&self) -> Vec<PathBuf> {
        self.private
            .iter()
            .map(|private| canonical(private).unwrap_or_else(|| normalize(private)))
            .filter(|private| !self.root.starts_with(private))
            .collect()
    }

    /// A private path that is the workspace itself (`WARDEN_WORKSPACE` set to the data dir): then
    /// Warden's own files would be the workspace's, and nothing could keep the tools from them.
    pub fn is_itself_private(&self) -> Option<PathBuf> {
        self.private.iter().find(|private| canonical(private).is_some_and(|p| p == self.root)).cloned()
    }

    /// Whether `resolved` (a path `resolve` returned) is, or lies in, one of the private paths.
    pub fn is_private(&self, resolved: &Path) -> bool {
        self.private_now().iter().any(|private| resolved.starts_with(private))
    }

    /// The path relative to the root, for messages and cards (`.` for the root itself).
    pub fn relative(&self, resolved: &Path) -> String {
        match resolved.strip_prefix(&self.root) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
            Ok(rel) => rel.display().to_string(),
            Err(_) => resolved.display().to_string(),
        }
    }

    /// `resolve`, and the path relative to the root when a symbolic link took it somewhere other
    /// than where its name says (`notes.txt -> .git/config` gives `Some(".git/config")`).
    pub fn resolve_shown(&self, path: &str) -> Result<(PathBuf, Option<String>), ToolError> {
        let resolved = self.resolve(path)?;
        let lexical = normalize(&self.root.join(path));
        let through_link = (resolved != lexical).then(|| self.relative(&resolved));
        Ok((resolved, through_link))
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
        let resolved = missing.iter().rev().fold(canonical, |acc, name| acc.join(name));
        if self.is_private(&resolved) {
            return Err(ToolError::PrivatePath(path.to_string()));
        }
        Ok(resolved)
    }
}

/// `path` with `..` handled and links followed through its longest existing ancestor (the rest are
/// names still to be created); `None` if that cannot be told.
fn canonical(path: &Path) -> Option<PathBuf> {
    let lexical = normalize(&std::env::current_dir().ok()?.join(path));
    let mut existing = lexical.as_path();
    let mut missing: Vec<&std::ffi::OsStr> = Vec::new();
    loop {
        match existing.canonicalize() {
            Ok(canonical) => return Some(missing.iter().rev().fold(canonical, |acc, name| acc.join(name))),
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                missing.push(existing.file_name()?);
                existing = existing.parent()?;
            }
            Err(_) => return None,
        }
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

    #[test]
    fn private_paths_are_refused_through_links_and_dot_dot_even_before_they_exist() {
        let (dir, ws) = workspace();
        let data = ws.root().join("data");
        std::fs::create_dir(&data).unwrap();
        std::fs::write(data.join("access-token"), "t").unwrap();
        let outside_db = dir.path().join("elsewhere/warden.db");
        std::fs::create_dir_all(outside_db.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&data, ws.root().join("alias")).unwrap();
        let wal = ws.root().join("warden.db-wal");
        let ws = ws.hiding(vec![data.clone(), wal, outside_db]);
        for path in ["data", "data/access-token", "data/new.txt", "alias/access-token", "x/../data", "warden.db-wal"] {
            assert!(matches!(ws.resolve(path), Err(ToolError::PrivatePath(p)) if p == path), "{path}");
        }
        assert!(ws.resolve("database").is_ok() && ws.resolve("warden.db").is_ok());
        assert_eq!(ws.private_now()[0], data);
    }

    #[test]
    fn a_private_path_that_holds_the_workspace_leaves_it_open() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().canonicalize().unwrap().join("data");
        let ws = Workspace::new(data.join("workspace")).unwrap().hiding(vec![data.clone(), data.join("warden.db")]);
        assert_eq!(ws.resolve("notes.txt").unwrap(), data.join("workspace/notes.txt"));
        assert!(ws.is_itself_private().is_none());
        let itself = Workspace::new(&data).unwrap().hiding(vec![data.clone()]);
        assert_eq!(itself.is_itself_private(), Some(data));
    }
}
