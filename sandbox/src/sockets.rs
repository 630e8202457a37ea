//! Pathname unix sockets of the machine, covered in the sandbox's own mount namespace. Connecting to
//! one needs no more than reading its directory, so a read-only sandbox could still ask the person's
//! session bus to start a unit (`systemd-run --user`), type into a tmux session, drive an X display or
//! Docker's daemon, or use an ssh agent. Landlock checks that connect only from ABI 9
//! (`LANDLOCK_ACCESS_FS_RESOLVE_UNIX`, handled with every other access in `rules`); below it, the
//! command's mount namespace gets:
//! - an empty, read-only tmpfs over every user's runtime directory (`/run/user`: session bus, systemd,
//!   gpg and ssh agents, Wayland, PipeWire, rootless Docker and Podman) and over each directory of the
//!   temp dir that holds sockets by name (`.X11-unix`, `.ICE-unix`, `.XIM-unix`, `.font-unix`, `tmux-*`,
//!   `ssh-*`) or holds a socket now;
//! - `/dev/null` bound over every socket directly in the temp dir, in `/run` or one directory down
//!   (`/run/docker.sock`, `/run/dbus/system_bus_socket`, `/run/containerd/containerd.sock`, …), and
//!   over the sockets Warden's own environment names (`SSH_AUTH_SOCK`, `DOCKER_HOST`).
//!
//! A path the person made writable (the workspace, an MCP server's `sandbox_paths`), or one that holds
//! one, is left as it is. A socket elsewhere (deeper, or in a home directory) stays reachable below
//! ABI 9: docs/SECURITY.md says so.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::rules::{stamp, DirStamp};

/// Names of temp-dir directories that hold sockets (X11 and its kin, tmux, ssh-agent), covered even
/// while they hold none yet.
const SOCKET_DIR_NAMES: [&str; 4] = [".X11-unix", ".ICE-unix", ".XIM-unix", ".font-unix"];
const SOCKET_DIR_PREFIXES: [&str; 2] = ["tmux-", "ssh-"];

/// What covers a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cover {
    /// An empty read-only tmpfs over a directory.
    EmptyDir,
    /// `/dev/null` bound over a socket file.
    Null,
}

/// The paths to cover, as C strings made before the fork (the child only makes system calls).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Masks(Vec<(CString, Cover)>);

impl Masks {
    /// The machine's sockets as [`found`] now, less each path that is, holds or lies in one of
    /// `allowed` (the paths the person made writable).
    pub(crate) fn leaving(allowed: &[PathBuf]) -> Self {
        let allowed: Vec<PathBuf> = allowed.iter().map(|p| p.canonicalize().unwrap_or_else(|_| p.clone())).collect();
        let touches = |path: &Path| allowed.iter().any(|a| a.starts_with(path) || path.starts_with(a));
        let found = found();
        let masks = found
            .dirs
            .iter()
            .map(|d| (d, Cover::EmptyDir))
            .chain(found.files.iter().map(|f| (f, Cover::Null)))
            .filter(|(path, _)| !touches(path))
            .filter_map(|(path, cover)| Some((CString::new(path.as_os_str().as_bytes()).ok()?, cover)))
            .collect();
        Self(masks)
    }

    /// In the child, in its own mount namespace, before Landlock is enforced: covers each path. One
    /// gone since it was found (or out of reach) needs no cover; anything else is an error, and the
    /// command does not start.
    pub(crate) unsafe fn apply(&self) -> std::io::Result<()> {
        for (path, cover) in &self.0 {
            let none = std::ptr::null();
            let done = match cover {
                Cover::EmptyDir => {
                    let flags = libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
                    libc::mount(c"none".as_ptr(), path.as_ptr(), c"tmpfs".as_ptr(), flags, c"mode=0555".as_ptr().cast())
                }
                Cover::Null => libc::mount(c"/dev/null".as_ptr(), path.as_ptr(), none, libc::MS_BIND, std::ptr::null()),
            };
            if done != 0 {
                let error = std::io::Error::last_os_error();
                if !matches!(error.raw_os_error(), Some(libc::ENOENT | libc::ENOTDIR | libc::EACCES)) {
                    return Err(error);
                }
            }
        }
        Ok(())
    }
}

/// The sockets and socket directories found, and the directories listed to find them (the finding is
/// kept while each is unchanged: an entry added, removed or renamed changes its directory's stamp).
#[derive(Debug, Clone)]
pub(crate) struct Found {
    pub dirs: Vec<PathBuf>,
    pub files: Vec<PathBuf>,
    listed: Vec<(PathBuf, Option<DirStamp>)>,
}

static FOUND: Mutex<Option<Found>> = Mutex::new(None);

/// The sockets to cover, found again only when a directory listed to find them has changed.
pub(crate) fn found() -> Found {
    let mut kept = FOUND.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(found) = kept.as_ref() {
        if found.listed.iter().all(|(path, was)| stamp(path) == *was) {
            return found.clone();
        }
    }
    let found = find();
    *kept = Some(found.clone());
    found
}

fn find() -> Found {
    let mut found = Found { dirs: Vec::new(), files: Vec::new(), listed: Vec::new() };
    let run = Path::new("/run");
    let run_user = run.join("user");
    if run_user.is_dir() {
        found.dirs.push(run_user.clone());
    }
    // `/run` and each directory in it but `/run/user` (covered whole).
    for entry in list(run, &mut found) {
        if entry.is_socket {
            found.files.push(entry.path);
        } else if entry.is_dir && entry.path != run_user {
            for inner in list(&entry.path, &mut found) {
                if inner.is_socket {
                    found.files.push(inner.path);
                }
            }
        }
    }
    let mut temps = vec![PathBuf::from("/tmp")];
    temps.extend(std::env::temp_dir().canonicalize().ok());
    temps.dedup();
    for temp in temps {
        for entry in list(&temp, &mut found) {
            let name = entry.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if entry.is_socket {
                found.files.push(entry.path);
            } else if entry.is_dir
                && (SOCKET_DIR_NAMES.contains(&name.as_str())
                    || SOCKET_DIR_PREFIXES.iter().any(|prefix| name.starts_with(prefix)))
            {
                found.dirs.push(entry.path);
            }
        }
    }
    // The sockets Warden's own environment names (an agent or a daemon the person uses).
    for name in ["SSH_AUTH_SOCK", "DOCKER_HOST"] {
        let Some(value) = std::env::var_os(name) else { continue };
        let value = value.to_string_lossy().into_owned();
        let path = value.strip_prefix("unix://").unwrap_or(&value);
        let Ok(path) = Path::new(path).canonicalize() else { continue };
        let is_socket = std::fs::metadata(&path).is_ok_and(|m| m.file_type().is_socket());
        if is_socket && !found.dirs.iter().any(|d| path.starts_with(d)) && !found.files.contains(&path) {
            found.files.push(path);
        }
    }
    found
}

struct Entry {
    path: PathBuf,
    is_dir: bool,
    is_socket: bool,
}

/// The entries of `dir` (not following links), with `dir` stamped as listed; none if it cannot be read.
fn list(dir: &Path, found: &mut Found) -> Vec<Entry> {
    // Stamped before the listing: a change during it makes the stamp stale, never the listing.
    found.listed.push((dir.to_path_buf(), stamp(dir)));
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|entry| {
            let kind = entry.file_type().ok()?;
            Some(Entry { path: entry.path(), is_dir: kind.is_dir(), is_socket: kind.is_socket() })
        })
        .collect()
}
