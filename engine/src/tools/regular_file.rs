//! Workspace files opened so that nothing can hang the caller: every open is non-blocking and
//! checked with `fstat` before a byte is read, so a FIFO, socket or device is refused by name
//! instead of blocking a thread for ever; reads stop at a cap; a file's state for an approval is
//! its SHA-256. These functions block on disk I/O: call them inside `spawn_blocking`.

use std::fs::{File, FileType, Metadata, OpenOptions};
use std::io::{self, Read, Seek, Write};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;

use super::ToolError;

/// Runs blocking file work on Tokio's blocking pool, so the run thread stays free, and gives up
/// waiting when `cancel` fires (the work itself is short and bounded: no call here can block on a
/// FIFO or read past a cap).
pub async fn off_thread<T: Send + 'static>(
    cancel: &CancellationToken,
    work: impl FnOnce() -> Result<T, ToolError> + Send + 'static,
) -> Result<T, ToolError> {
    if cancel.is_cancelled() {
        return Err(ToolError::Cancelled);
    }
    let task = tokio::task::spawn_blocking(work);
    tokio::select! {
        _ = cancel.cancelled() => Err(ToolError::Cancelled),
        joined = task => joined.map_err(|e| ToolError::Failed(format!("the file operation failed unexpectedly ({e})")))?,
    }
}

/// The state of a target that does not exist yet.
pub const ABSENT: &str = "absent";

/// What opening a path for reading came to.
pub enum Opened {
    File(File, Metadata),
    Missing,
    /// There is something, but not a regular file: its kind in words ("a folder", "a FIFO"...).
    NotRegular(&'static str),
}

/// Flags for every open: never block on a FIFO or device, never follow a link swapped in after
/// `Workspace::resolve` checked the path, never leak the descriptor into a child process.
fn flags() -> i32 {
    libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_CLOEXEC
}

pub fn kind(file_type: FileType) -> &'static str {
    if file_type.is_dir() {
        "a folder"
    } else if file_type.is_fifo() {
        "a FIFO (named pipe)"
    } else if file_type.is_socket() {
        "a socket"
    } else if file_type.is_block_device() || file_type.is_char_device() {
        "a device"
    } else if file_type.is_symlink() {
        "a symbolic link"
    } else if file_type.is_file() {
        "a file"
    } else {
        "not a regular file"
    }
}

fn regular(file: File) -> io::Result<Result<(File, Metadata), &'static str>> {
    let meta = file.metadata()?;
    if meta.file_type().is_file() {
        Ok(Ok((file, meta)))
    } else {
        Ok(Err(kind(meta.file_type())))
    }
}

/// Opens `path` for reading if it is a regular file. The type is checked before opening (so a
/// socket or device is never touched) and again on the open descriptor (so a swap in between is
/// caught); the open itself cannot block.
pub fn open_for_read(path: &Path) -> io::Result<Opened> {
    match path.symlink_metadata() {
        Ok(meta) if !meta.file_type().is_file() => return Ok(Opened::NotRegular(kind(meta.file_type()))),
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Opened::Missing),
        Err(e) => return Err(e),
    }
    let file = match OpenOptions::new().read(true).custom_flags(flags()).open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Opened::Missing),
        Err(e) => return Err(e),
    };
    Ok(match regular(file)? {
        Ok((file, meta)) => Opened::File(file, meta),
        Err(kind) => Opened::NotRegular(kind),
    })
}

/// Reads at most `cap` bytes from the start of `file`.
pub fn read_capped(file: &mut File, cap: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    file.take(cap).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Reads the whole file once: its state (`sha256:<hex>`) and its first `keep` bytes.
pub fn hash_and_head(file: &mut File, keep: usize) -> io::Result<(String, Vec<u8>)> {
    let mut hasher = Sha256::new();
    let mut head = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&buf[..n]);
        let room = keep.saturating_sub(head.len());
        head.extend_from_slice(&buf[..n.min(room)]);
    }
    Ok((state_of_digest(&hasher.finalize()[..]), head))
}

fn state_of_digest(digest: &[u8]) -> String {
    let mut s = String::with_capacity(7 + digest.len() * 2);
    s.push_str("sha256:");
    for b in digest {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// The state of `path` as an approval records it: `absent`, `sha256:<hex>`, or the kind of a
/// thing that is not a regular file (a write there is refused anyway).
pub fn state(path: &Path) -> io::Result<String> {
    Ok(match open_for_read(path)? {
        Opened::Missing => ABSENT.to_string(),
        Opened::NotRegular(kind) => format!("not-a-file: {kind}"),
        Opened::File(mut file, _) => hash_and_head(&mut file, 0)?.0,
    })
}

/// Why a write did not happen.
pub enum WriteRefused {
    /// The target is there but is not a regular file.
    NotRegular(&'static str),
    /// The target is no longer in the state the approval saw; `now` is its current state.
    Changed { now: String },
}

/// Replaces (or creates) the file at `path` with `content`. With `expected`, the write happens only
/// if the file is still in that state, checked on the same descriptor that is then written.
/// Returns whether a file was there before.
pub fn write(path: &Path, content: &[u8], expected: Option<&str>) -> io::Result<Result<bool, WriteRefused>> {
    let options = |create_new: bool| {
        let mut o = OpenOptions::new();
        o.read(true).write(true).create_new(create_new).custom_flags(flags());
        o
    };
    let changed = || -> io::Result<Result<bool, WriteRefused>> { Ok(Err(WriteRefused::Changed { now: state(path)? })) };
    let may_create = expected.is_none_or(|e| e == ABSENT);
    let may_replace = expected.is_none_or(|e| e != ABSENT);
    if may_create {
        match options(true).open(path) {
            Ok(file) => return finish(file, content, false),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && !may_replace => return changed(),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    if let Ok(meta) = path.symlink_metadata() {
        if !meta.file_type().is_file() {
            return Ok(Err(WriteRefused::NotRegular(kind(meta.file_type()))));
        }
    }
    // O_NONBLOCK: a FIFO swapped in now fails to open (no reader) instead of blocking.
    let mut file = match options(false).open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return changed(),
        Err(e) if e.raw_os_error() == Some(libc::ENXIO) => return Ok(Err(WriteRefused::NotRegular("a FIFO"))),
        Err(e) => return Err(e),
    };
    if let Some(expected) = expected {
        if file.metadata()?.file_type().is_file() {
            let now = hash_and_head(&mut file, 0)?.0;
            if now != expected {
                return Ok(Err(WriteRefused::Changed { now }));
            }
            file.rewind()?;
        }
    }
    finish(file, content, true)
}

fn finish(file: File, content: &[u8], existed: bool) -> io::Result<Result<bool, WriteRefused>> {
    let (mut file, _) = match regular(file)? {
        Ok(ok) => ok,
        Err(kind) => return Ok(Err(WriteRefused::NotRegular(kind))),
    };
    file.set_len(0)?;
    file.write_all(content)?;
    Ok(Ok(existed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mkfifo(path: &Path) {
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        mkfifo(&fifo);
        assert!(matches!(open_for_read(&fifo).unwrap(), Opened::NotRegular(k) if k.contains("FIFO")));
        assert!(matches!(write(&fifo, b"x", None).unwrap(), Err(WriteRefused::NotRegular(_))));
        assert!(state(&fifo).unwrap().starts_with("not-a-file"));
    }

    #[test]
    fn state_is_the_content_hash_or_absent() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f.txt");
        assert_eq!(state(&f).unwrap(), ABSENT);
        std::fs::write(&f, "abc").unwrap();
        assert_eq!(state(&f).unwrap(), "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    #[test]
    fn a_write_expecting_an_old_state_does_not_happen() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f.txt");
        std::fs::write(&f, "old").unwrap();
        let seen = state(&f).unwrap();
        std::fs::write(&f, "changed by someone").unwrap();
        assert!(matches!(write(&f, b"new", Some(&seen)).unwrap(), Err(WriteRefused::Changed { .. })));
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "changed by someone");
        let now = state(&f).unwrap();
        assert!(matches!(write(&f, b"new", Some(&now)).unwrap(), Ok(true)));
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "new");

        let g = dir.path().join("g.txt");
        std::fs::write(&g, "appeared").unwrap();
        assert!(matches!(write(&g, b"x", Some(ABSENT)).unwrap(), Err(WriteRefused::Changed { .. })));
        let h = dir.path().join("h.txt");
        assert!(matches!(write(&h, b"x", Some("sha256:00")).unwrap(), Err(WriteRefused::Changed { .. })));
        assert!(!h.exists(), "a refused write leaves no file behind");
    }
}
