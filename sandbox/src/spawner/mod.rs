//! Starts commands from a small process forked when the server starts, instead of forking the server.
//! A fork copies the page tables of the whole process, and the running server is large: that copy, the
//! exec that throws it away and the copy-on-write faults the server takes afterwards were most of the
//! time between a person approving a command and its result (see issue 11's note). The spawner is
//! forked before the server has a second thread, so it may use anything std offers in its children.
//!
//! [`start`] it first thing in `main`; [`get`] answers `None` where it was not started (tests of the
//! engine, a binary that did not start it) or could not be, and callers then spawn from their own
//! process ([`crate::confine`]). Confinement is the same either way: the spawner's child calls the same
//! code before it executes the program. A command without network starts in a sandbox the spawner
//! made ahead of it (`zygote`: namespaces, supervisor and `/proc` ready, the command's own Landlock
//! ruleset enforced when it arrives), which takes about half of a confined start off the path; and
//! that ruleset is built ahead as well, while the spawner is idle, from the last command's policy
//! (`process::RulesetAhead`), so a command whose policy is the same but for its scratch only adds that.

mod client;
mod exec;
mod process;
mod wire;
mod zygote;

use std::io;
use std::sync::OnceLock;

pub use client::{Launch, SpawnError, Spawned, Spawner};

static SPAWNER: OnceLock<Spawner> = OnceLock::new();

/// Set to `off`, no spawner is started (each command is forked from the server, as before it existed):
/// for comparing the two, or a kernel where the spawner misbehaves.
pub const SWITCH: &str = "WARDEN_SPAWNER";

/// Forks the spawner. Refuses (and changes nothing) once this process has a second thread, since the
/// forked copy of a threaded process may not allocate.
pub fn start() -> io::Result<()> {
    if SPAWNER.get().is_some() {
        return Ok(());
    }
    if std::env::var(SWITCH).is_ok_and(|v| v == "off") {
        return Err(io::Error::other(format!("{SWITCH}=off")));
    }
    let threads = std::fs::read_dir("/proc/self/task")?.count();
    if threads != 1 {
        return Err(io::Error::other(format!("the process already has {threads} threads")));
    }
    let (ours, theirs) = wire::pair()?;
    // SAFETY: getpid cannot fail.
    let server = unsafe { libc::getpid() };
    // SAFETY: this process has a single thread (checked above), so the child may run any code.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    if pid == 0 {
        drop(ours);
        process::serve(theirs, server);
    }
    drop(theirs);
    let _ = SPAWNER.set(Spawner::new(ours)?);
    Ok(())
}

/// The spawner, if [`start`] started it.
pub fn get() -> Option<&'static Spawner> {
    SPAWNER.get()
}
