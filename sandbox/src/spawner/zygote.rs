//! A sandbox made ahead of its command: the spawner keeps one process that has already joined the
//! shared namespaces, made its PID and mount namespaces, forked its supervisor, mounted its own
//! `/proc` and dropped its capabilities (about half of a confined command's start-up), and waits. A
//! request that fits (no network) hands it the command, its output descriptors and the Landlock
//! ruleset built for it; it enforces the ruleset and executes the command, as a freshly forked child
//! would (`child::restrict` is `drop_privileges` and then `enforce`, the same code). The spawner then
//! makes the next one.
//!
//! It is the command: the pid the server gets (and the process group it kills) is its supervisor's,
//! as for a forked child. It dies with the spawner (`PR_SET_PDEATHSIG`), and one whose spawner end
//! closes without a command exits.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::exec::{self, Exec};
use super::wire;
use crate::child::{self, Prepared};
use crate::shared_ns::SharedNamespaces;
use crate::sockets::Masks;

/// Largest command the zygote takes in one message (the spawner's own requests are capped alike).
const MAX_GO: usize = wire::MAX_MESSAGE;

/// The command: the request it came in (so it fits in one message as the request did), with its
/// program found on the `PATH`.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Go {
    pub program: PathBuf,
    /// The name it was asked for by (`argv[0]`).
    pub argv0: PathBuf,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub cwd: PathBuf,
    /// Landlock access granted on the sandbox's own `/proc` (0: none).
    pub proc_access: u64,
}

/// The spawner's handle on a waiting sandbox.
pub(super) struct Zygote {
    /// Its supervisor: the pid (and process group) the command will be known by.
    pid: libc::pid_t,
    /// The sockets it covered (see `sockets`): it fits only a command that would cover the same.
    pub(super) masks: Masks,
    control: OwnedFd,
    /// Closes when the command is executed; carries an errno when it could not be.
    status: OwnedFd,
    /// Where its supervisor tells the command's end (`child::Prepared::report_exit_to`).
    report: OwnedFd,
}

/// Why a zygote did not take a command.
pub(super) enum Refused {
    /// It never got it: start the command another way. `gone`: because it is no longer there.
    NotSent { gone: bool },
    /// It got it and could not execute it.
    Failed(String),
}

impl Zygote {
    /// Forks a new one into the shared namespaces. Runs in the spawner (a single thread). `close`:
    /// descriptors of the spawner the child closes at once (the server's socket, the signal one).
    pub(super) fn make(shared: &'static SharedNamespaces, close: &[libc::c_int]) -> io::Result<Self> {
        let (ours, theirs) = wire::pair()?;
        let (report, report_to) = exec::exit_report()?;
        let masks = crate::socket_masks_ahead();
        // SAFETY: the spawner has one thread.
        match unsafe { exec::fork_with_status() }? {
            exec::Forked::Child { status } => {
                drop(ours);
                drop(report);
                // SAFETY: the child: system calls, then it waits for its command or exits.
                unsafe {
                    for fd in close {
                        libc::close(*fd);
                    }
                    exec::fail(status, &wait_and_execute(shared, &theirs, &report_to, &masks));
                }
            }
            exec::Forked::Parent { pid, status } => {
                drop(theirs);
                drop(report_to);
                Ok(Self { pid, masks, control: ours, status, report })
            }
        }
    }

    /// Hands it `go`, the output descriptors and `prepared`'s ruleset; its pid, and where its end will
    /// be told, once the program was executed. Consumes it either way.
    pub(super) fn start(
        self,
        go: &Go,
        stdout: &OwnedFd,
        stderr: &OwnedFd,
        prepared: &Prepared,
    ) -> Result<(libc::pid_t, OwnedFd), Refused> {
        let fds = [stdout.as_raw_fd(), stderr.as_raw_fd(), prepared.ruleset().as_raw_fd()];
        if let Err(error) = wire::send(&self.control, go, &fds) {
            // Dropping `self` closes its end: a zygote still waiting then exits.
            let gone = matches!(error.raw_os_error(), Some(libc::EPIPE | libc::ECONNRESET | libc::ECONNREFUSED));
            return Err(Refused::NotSent { gone });
        }
        let pid = super::process::await_exec(self.status, self.pid).map_err(|e| Refused::Failed(e.to_string()))?;
        Ok((pid, self.report))
    }
}

/// In the zygote: enters the namespaces (returning in PID 1), waits for the command and executes it.
/// Returns only with the error that stopped it.
unsafe fn wait_and_execute(
    shared: &SharedNamespaces,
    control: &OwnedFd,
    report_to: &OwnedFd,
    masks: &Masks,
) -> io::Error {
    let steps = || -> io::Result<Exec> {
        exec::become_child()?;
        child::enter_shared(shared, false, report_to.as_raw_fd(), masks)?;
        child::drop_privileges()?;
        let mut buffer = vec![0u8; MAX_GO];
        let (go, fds) = match wire::recv::<Go>(control, &mut buffer)? {
            Some(received) => received,
            // The spawner let it go without a command.
            None => libc::_exit(0),
        };
        let [stdout, stderr, ruleset] = fds.as_slice() else {
            return Err(io::Error::other(format!("a command came with {} descriptors, not 3", fds.len())));
        };
        let exec = Exec::new(&go.program, &go.argv0, &go.args, &go.env, &go.cwd).map_err(io::Error::other)?;
        exec.take_stdio_and_dir(stdout, stderr)?;
        // The status pipe stays open until `exec` closes it: so the spawner learns that this worked.
        child::enforce(ruleset, go.proc_access)?;
        Ok(exec)
    };
    match steps() {
        Ok(exec) => exec.execute(),
        Err(error) => error,
    }
}
