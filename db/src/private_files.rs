//! Warden's data dir and database hold provider keys, MCP secrets, executor tokens and every
//! conversation: they are for Warden's user alone. The data dir is made 0700, the database file 0600
//! before SQLite first opens it (SQLite gives its `-wal`, `-shm` and `-journal` the database file's
//! mode), and what an older Warden (or a default umask) left readable to others is tightened at start,
//! with a warning in the log naming how much was.

use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// What SQLite appends to a database file's name for the files it keeps beside it.
pub const DATABASE_SIDE_FILES: [&str; 3] = ["-wal", "-shm", "-journal"];

/// How deep the data dir is walked to tighten what is in it (Warden's own folders are one or two deep).
const MAX_DEPTH: usize = 16;

/// Makes the data dir (created if missing) and everything in it but the workspace readable by this
/// user only, and the database files too wherever they are. Returns each path it had to tighten
/// (after logging a warning that names how many).
pub fn make_private(data_dir: &Path, workspace: &Path, database: Option<&Path>) -> io::Result<Vec<PathBuf>> {
    let mut tightened = Vec::new();
    create_private_dir(data_dir)?;
    // The workspace is the person's: its files keep the modes they have (it is out of other users'
    // reach inside a 0700 data dir anyway).
    let workspace = workspace.canonicalize().ok();
    tighten_tree(data_dir, workspace.as_deref(), 0, &mut tightened)?;
    if let Some(database) = database {
        tighten_database(database, &mut tightened)?;
    }
    if !tightened.is_empty() {
        tracing::warn!(
            count = tightened.len(),
            data_dir = %data_dir.display(),
            first = %tightened[0].display(),
            "Warden's private files were open to other local users; their permissions are now the owner's only (folders 0700, files 0600)"
        );
    }
    Ok(tightened)
}

/// Makes the database file (0600) if it is not there yet, with its folder (0700) if that is missing
/// too, and tightens the file and those beside it if others could read them. SQLite then makes the
/// `-wal`, `-shm` and `-journal` with the file's own mode.
pub fn prepare_database_file(database: &Path) -> io::Result<Vec<PathBuf>> {
    if let Some(parent) = database.parent().filter(|p| !p.as_os_str().is_empty()) {
        create_private_dir(parent)?;
    }
    match std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(database) {
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let mut tightened = Vec::new();
    tighten_database(database, &mut tightened)?;
    Ok(tightened)
}

/// Creates `dir` and any missing folder on the way with mode 0700 (folders that exist keep theirs).
fn create_private_dir(dir: &Path) -> io::Result<()> {
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

fn tighten_database(database: &Path, tightened: &mut Vec<PathBuf>) -> io::Result<()> {
    tighten(database, tightened)?;
    for suffix in DATABASE_SIDE_FILES {
        let mut side = database.as_os_str().to_owned();
        side.push(suffix);
        tighten(Path::new(&side), tightened)?;
    }
    Ok(())
}

/// Takes every permission of the group and others off `path` and, below it, off each file and folder
/// but `skip` (links are left alone: their targets are not Warden's).
fn tighten_tree(path: &Path, skip: Option<&Path>, depth: usize, tightened: &mut Vec<PathBuf>) -> io::Result<()> {
    if skip.is_some_and(|skip| path.canonicalize().is_ok_and(|real| real == skip)) {
        return Ok(());
    }
    let meta = std::fs::symlink_metadata(path)?;
    if meta.file_type().is_symlink() {
        return Ok(());
    }
    tighten(path, tightened)?;
    if meta.is_dir() && depth < MAX_DEPTH {
        for entry in std::fs::read_dir(path)? {
            tighten_tree(&entry?.path(), skip, depth + 1, tightened)?;
        }
    }
    Ok(())
}

/// Takes every permission of the group and others off `path` if it has any; a path that is not there
/// is left so.
fn tighten(path: &Path, tightened: &mut Vec<PathBuf>) -> io::Result<()> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) if !meta.file_type().is_symlink() => meta,
        Ok(_) => return Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    let mode = meta.permissions().mode();
    if mode & 0o077 != 0 {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode & 0o7700))?;
        tightened.push(path.to_path_buf());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::symlink_metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn a_readable_data_dir_is_tightened_but_the_workspace_and_links_are_left_alone() {
        let root = tempfile::tempdir().unwrap();
        let data = root.path().join("data");
        std::fs::create_dir_all(data.join("workspace")).unwrap();
        std::fs::create_dir_all(data.join("mcp-results/server")).unwrap();
        std::fs::write(data.join("mcp-results/server/1.json"), "kept").unwrap();
        std::fs::write(data.join("workspace/notes.txt"), "mine").unwrap();
        let outside = root.path().join("outside.txt");
        std::fs::write(&outside, "not Warden's").unwrap();
        std::os::unix::fs::symlink(&outside, data.join("link")).unwrap();
        for path in [&data, &data.join("mcp-results"), &data.join("mcp-results/server"), &data.join("workspace")] {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        for path in [&data.join("mcp-results/server/1.json"), &data.join("workspace/notes.txt"), &outside] {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o644)).unwrap();
        }
        let private = || make_private(&data, &data.join("workspace"), Some(&data.join("warden.db")));
        let tightened = private().unwrap();
        assert_eq!(tightened.len(), 4, "{tightened:?}");
        assert_eq!(mode(&data), 0o700);
        assert_eq!(mode(&data.join("mcp-results")), 0o700);
        assert_eq!(mode(&data.join("mcp-results/server/1.json")), 0o600);
        assert_eq!(mode(&data.join("workspace")), 0o755);
        assert_eq!(mode(&data.join("workspace/notes.txt")), 0o644);
        assert_eq!(mode(&outside), 0o644);
        assert!(private().unwrap().is_empty(), "a second start has nothing to tighten");
    }
}
