//! Workspace files opened so that nothing can hang the caller: every open is non-blocking and
//! checked with `fstat` before a byte is read, so a FIFO, socket or device is refused by name
//! instead of blocking a thread for ever; reads stop at a cap; a file's state for an approval is
//! its SHA-256, read only up to `MAX_STATE_BYTES`; a file with more than one name (a hard link,
//! which may be a file outside the workspace) is never written. These functions block on disk I/O:
//! call them through `off_thread`, whose `stop` they check between reads.

use std::fs::{File, FileType, Metadata, OpenOptions};
use std::io::{self, Read, Seek, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;

use super::ToolError;

/// Runs blocking file work on Tokio's blocking pool, so the run thread stays free. The work gets a
/// `stop` token that fires when `cancel` does or when this future is dropped (a timeout elsewhere
/// gave up on it): long work (hashing a file, listing a folder) checks it between reads, so nothing
/// reads on in a detached thread after its caller has gone.
pub async fn off_thread<T: Send + 'static>(
    cancel: &CancellationToken,
    work: impl FnOnce(&CancellationToken) -> Result<T, ToolError> + Send + 'static,
) -> Result<T, ToolError> {
    if cancel.is_cancelled() {
        return Err(ToolError::Cancelled);
    }
    let stop = cancel.child_token();
    let _stop_when_dropped = stop.clone().drop_guard();
    let task = tokio::task::spawn_blocking(move || work(&stop));
    tokio::select! {
        _ = cancel.cancelled() => Err(ToolError::Cancelled),
        joined = task => joined.map_err(|e| ToolError::Failed(format!("the file operation failed unexpectedly ({e})")))?,
    }
}

/// Files larger than this are not hashed for an approval (nor previewed, nor written by
/// `write_file`): reading a multi-GB file for a card would hold the turn up for seconds.
pub const MAX_STATE_BYTES: u64 = 64 * 1024 * 1024;

/// The beginning of the state of a file over `MAX_STATE_BYTES` (never a state a write may bind to).
pub const TOO_LARGE: &str = "too-large";

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

/// Reads the whole file once: its state (`sha256:<hex>`) and its first `keep` bytes. A file that
/// turns out longer than `MAX_STATE_BYTES` (it may grow while it is read) gives the state
/// `too-large: ...`; `stop` ends the reading with `ToolError::Cancelled`.
pub fn hash_and_head(file: &mut File, keep: usize, stop: &CancellationToken) -> Result<(String, Vec<u8>), ToolError> {
    let mut hasher = Sha256::new();
    let mut head = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut read = 0u64;
    loop {
        if stop.is_cancelled() {
            return Err(ToolError::Cancelled);
        }
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        };
        read += n as u64;
        if read > MAX_STATE_BYTES {
            return Ok((too_large(read), head));
        }
        hasher.update(&buf[..n]);
        let room = keep.saturating_sub(head.len());
        head.extend_from_slice(&buf[..n.min(room)]);
    }
    Ok((state_of_digest(&hasher.finalize()[..]), head))
}

/// The state of a file of `len` bytes, over `MAX_STATE_BYTES`.
pub fn too_large(len: u64) -> String {
    format!("{TOO_LARGE}: {len} bytes")
}

/// `sha256:<hex>` of `bytes`: the state a file has once they are written to it.
pub fn state_of_bytes(bytes: &[u8]) -> String {
    state_of_digest(&Sha256::digest(bytes)[..])
}

fn state_of_digest(digest: &[u8]) -> String {
    let mut s = String::with_capacity(7 + digest.len() * 2);
    s.push_str("sha256:");
    for b in digest {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// The state of `path` as an approval records it: `absent`, `sha256:<hex>`, `too-large: N bytes`,
/// or the kind of a thing that is not a regular file (a write there is refused anyway).
pub fn state(path: &Path, stop: &CancellationToken) -> Result<String, ToolError> {
    Ok(match open_for_read(path)? {
        Opened::Missing => ABSENT.to_string(),
        Opened::NotRegular(kind) => format!("not-a-file: {kind}"),
        Opened::File(_, meta) if meta.len() > MAX_STATE_BYTES => too_large(meta.len()),
        Opened::File(mut file, _) => hash_and_head(&mut file, 0, stop)?.0,
    })
}

/// Why a write did not happen.
pub enum WriteRefused {
    /// The target is there but is not a regular file.
    NotRegular(&'static str),
    /// The target is no longer in the state the approval saw; `now` is its current state.
    Changed { now: String },
    /// The target has this many names (hard links): writing it would change the file under its other
    /// names too, which may lie outside the workspace.
    HardLinked(u64),
    /// The target is this many bytes, over `MAX_STATE_BYTES`.
    TooLarge(u64),
}

/// Replaces (or creates) the file at `path` with `content`. With `expected`, the write happens only
/// if the file is still in that state, checked on the same descriptor that is then written. A file
/// with more than one link, or over `MAX_STATE_BYTES`, is not written. Nothing is written once
/// `stop` has fired. Returns whether a file was there before.
pub fn write(
    path: &Path,
    content: &[u8],
    expected: Option<&str>,
    stop: &CancellationToken,
) -> Result<Result<bool, WriteRefused>, ToolError> {
    let options = |create_new: bool| {
        let mut o = OpenOptions::new();
        o.read(true).write(true).create_new(create_new).custom_flags(flags());
        o
    };
    let changed = || -> Result<Result<bool, WriteRefused>, ToolError> {
        Ok(Err(WriteRefused::Changed { now: state(path, stop)? }))
    };
    let may_create = expected.is_none_or(|e| e == ABSENT);
    let may_replace = expected.is_none_or(|e| e != ABSENT);
    if stop.is_cancelled() {
        return Err(ToolError::Cancelled);
    }
    if may_create {
        match options(true).open(path) {
            Ok(file) => return finish(file, content, false, stop),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && !may_replace => return changed(),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e.into()),
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
        Err(e) => return Err(e.into()),
    };
    // Checked on the descriptor that is written: the file as it is, not as its path was.
    let meta = file.metadata()?;
    if meta.file_type().is_file() {
        if meta.nlink() > 1 {
            return Ok(Err(WriteRefused::HardLinked(meta.nlink())));
        }
        if meta.len() > MAX_STATE_BYTES {
            return Ok(Err(WriteRefused::TooLarge(meta.len())));
        }
        if let Some(expected) = expected {
            let now = hash_and_head(&mut file, 0, stop)?.0;
            if now != expected {
                return Ok(Err(WriteRefused::Changed { now }));
            }
            file.rewind()?;
        }
    }
    finish(file, content, true, stop)
}

fn finish(
    file: File,
    content: &[u8],
    existed: bool,
    stop: &CancellationToken,
) -> Result<Result<bool, WriteRefused>, ToolError> {
    let (mut file, _) = match regular(file)? {
        Ok(ok) => ok,
        Err(kind) => return Ok(Err(WriteRefused::NotRegular(kind))),
    };
    // The caller may have given up (a timeout) while the state was read: then nothing is written.
    if stop.is_cancelled() {
        return Err(ToolError::Cancelled);
    }
    file.set_len(0)?;
    file.write_all(content)?;
    Ok(Ok(existed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn go() -> CancellationToken {
        CancellationToken::new()
    }

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
        assert!(matches!(write(&fifo, b"x", None, &go()).unwrap(), Err(WriteRefused::NotRegular(_))));
        assert!(state(&fifo, &go()).unwrap().starts_with("not-a-file"));
    }

    #[test]
    fn state_is_the_content_hash_or_absent() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f.txt");
        assert_eq!(state(&f, &go()).unwrap(), ABSENT);
        std::fs::write(&f, "abc").unwrap();
        assert_eq!(
            state(&f, &go()).unwrap(),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn a_write_expecting_an_old_state_does_not_happen() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f.txt");
        std::fs::write(&f, "old").unwrap();
        let seen = state(&f, &go()).unwrap();
        std::fs::write(&f, "changed by someone").unwrap();
        assert!(matches!(write(&f, b"new", Some(&seen), &go()).unwrap(), Err(WriteRefused::Changed { .. })));
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "changed by someone");
        let now = state(&f, &go()).unwrap();
        assert!(matches!(write(&f, b"new", Some(&now), &go()).unwrap(), Ok(true)));
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "new");

        let g = dir.path().join("g.txt");
        std::fs::write(&g, "appeared").unwrap();
        assert!(matches!(write(&g, b"x", Some(ABSENT), &go()).unwrap(), Err(WriteRefused::Changed { .. })));
        let h = dir.path().join("h.txt");
        assert!(matches!(write(&h, b"x", Some("sha256:00"), &go()).unwrap(), Err(WriteRefused::Changed { .. })));
        assert!(!h.exists(), "a refused write leaves no file behind");
    }

    #[test]
    fn a_file_with_another_name_outside_is_never_written() {
        let dir = tempfile::tempdir().unwrap();
        let (outside, workspace) = (dir.path().join("store"), dir.path().join("ws"));
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::create_dir_all(&workspace).unwrap();
        std::fs::write(outside.join("pkg.js"), "the store's copy").unwrap();
        std::fs::hard_link(outside.join("pkg.js"), workspace.join("pkg.js")).unwrap();
        let seen = state(&workspace.join("pkg.js"), &go()).unwrap();
        for expected in [None, Some(seen.as_str())] {
            let refused = write(&workspace.join("pkg.js"), b"rewritten", expected, &go()).unwrap();
            assert!(matches!(refused, Err(WriteRefused::HardLinked(2))), "expected {expected:?}");
        }
        assert_eq!(std::fs::read_to_string(outside.join("pkg.js")).unwrap(), "the store's copy");
    }

    #[test]
    fn a_multi_gigabyte_file_is_neither_hashed_nor_written() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.bin");
        // Sparse: 8 GiB long, no disk used; reading it all would take seconds.
        File::create(&big).unwrap().set_len(8 << 30).unwrap();
        assert_eq!(state(&big, &go()).unwrap(), format!("{TOO_LARGE}: {} bytes", 8u64 << 30));
        let refused = write(&big, b"small", None, &go()).unwrap();
        assert!(matches!(refused, Err(WriteRefused::TooLarge(len)) if len == 8 << 30));
        assert_eq!(big.metadata().unwrap().len(), 8 << 30, "the file is left as it was");
    }

    #[test]
    fn a_file_that_grows_past_the_cap_while_it_is_read_is_too_large() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.bin");
        File::create(&big).unwrap().set_len(MAX_STATE_BYTES + 1).unwrap();
        // As if it had been small when its size was looked at: the reading itself stops at the cap.
        let (state, _) = hash_and_head(&mut File::open(&big).unwrap(), 0, &go()).unwrap();
        assert!(state.starts_with(TOO_LARGE), "{state}");
    }

    #[test]
    fn a_stopped_hash_reads_no_further() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f.bin");
        File::create(&f).unwrap().set_len(MAX_STATE_BYTES).unwrap();
        let stop = go();
        stop.cancel();
        let mut file = File::open(&f).unwrap();
        assert!(matches!(hash_and_head(&mut file, 0, &stop), Err(ToolError::Cancelled)));
        assert_eq!(file.stream_position().unwrap(), 0, "not a byte was read");
        assert!(matches!(write(&f, b"x", None, &stop), Err(ToolError::Cancelled)));
        assert_eq!(f.metadata().unwrap().len(), MAX_STATE_BYTES, "nothing was written");
    }

    #[tokio::test]
    async fn work_whose_caller_gave_up_is_told_to_stop() {
        let (started_tx, started_rx) = tokio::sync::oneshot::channel();
        let (ended_tx, ended_rx) = std::sync::mpsc::channel();
        let cancel = go();
        let waiting = off_thread(&cancel, move |stop| {
            let _ = started_tx.send(());
            // A read loop that only ends when told to (as `hash_and_head` checks between reads).
            while !stop.is_cancelled() {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            let _ = ended_tx.send("stopped");
            Ok(())
        });
        // The caller gives up once the work is under way (as a preview's timeout does): the future is dropped.
        tokio::select! {
            _ = waiting => panic!("the work only ends when stopped"),
            _ = started_rx => {}
        }
        let ended = tokio::task::spawn_blocking(move || ended_rx.recv_timeout(std::time::Duration::from_secs(30)));
        assert_eq!(ended.await.unwrap(), Ok("stopped"), "the work stopped instead of running on");
    }
}
