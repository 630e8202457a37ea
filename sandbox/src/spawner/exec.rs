//! A command as a child of the spawner executes it, and the steps every such child takes around its
//! sandbox: shared by a freshly forked child (`process`) and a sandbox made ahead (`zygote`).

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// Exit code of a child that could not execute its program (as a shell's "command not found" is).
pub(super) const NOT_STARTED: libc::c_int = 127;

/// The command as C strings.
pub(super) struct Exec {
    program: CString,
    argv: Vec<CString>,
    envp: Vec<CString>,
    cwd: CString,
}

impl Exec {
    /// `program` is the file to execute (already found on the `PATH`), `argv0` the name it was asked
    /// for by; `env` is its whole environment. Refuses text holding a NUL byte.
    pub(super) fn new(
        program: &Path,
        argv0: &Path,
        args: &[String],
        env: &[(String, String)],
        cwd: &Path,
    ) -> Result<Self, String> {
        Ok(Self {
            program: c_string("program", program.as_os_str().as_bytes())?,
            argv: std::iter::once(c_string("program", argv0.as_os_str().as_bytes()))
                .chain(args.iter().map(|a| c_string("argument", a.as_bytes())))
                .collect::<Result<_, _>>()?,
            envp: env
                .iter()
                .map(|(k, v)| c_string("environment", format!("{k}={v}").as_bytes()))
                .collect::<Result<_, _>>()?,
            cwd: c_string("directory", cwd.as_os_str().as_bytes())?,
        })
    }

    /// In the child: stdin from `/dev/null`, `stdout` and `stderr`, and the command's directory.
    pub(super) unsafe fn take_stdio_and_dir(&self, stdout: &OwnedFd, stderr: &OwnedFd) -> io::Result<()> {
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
        check(null)?;
        check(libc::dup2(null, 0))?;
        check(libc::dup2(stdout.as_raw_fd(), 1))?;
        check(libc::dup2(stderr.as_raw_fd(), 2))?;
        check(libc::chdir(self.cwd.as_ptr()))
    }

    /// In the child: executes the program; returns only with the error that stopped it. (The
    /// spawner has one thread, so its children may allocate.)
    pub(super) unsafe fn execute(&self) -> io::Error {
        let mut argv: Vec<*const libc::c_char> = self.argv.iter().map(|a| a.as_ptr()).collect();
        argv.push(std::ptr::null());
        let mut envp: Vec<*const libc::c_char> = self.envp.iter().map(|e| e.as_ptr()).collect();
        envp.push(std::ptr::null());
        libc::execve(self.program.as_ptr(), argv.as_ptr(), envp.as_ptr());
        io::Error::last_os_error()
    }
}

/// In a new child of the spawner: the signals a command expects (none blocked, Ctrl-C and `SIGPIPE`
/// at their defaults: Rust's runtime ignores `SIGPIPE`, as std's `Command` also undoes), death with
/// its parent, and a session (so a process group too) of its own, away from the server's terminal.
pub(super) unsafe fn become_child() -> io::Result<()> {
    let empty: libc::sigset_t = std::mem::zeroed();
    libc::sigprocmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());
    libc::signal(libc::SIGINT, libc::SIG_DFL);
    libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    check(libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0))?;
    crate::child::own_session()
}

/// The two sides of `fork_with_status`.
pub(super) enum Forked {
    /// The child, holding the write end of the status pipe (for `fail`; closed by a successful exec).
    Child { status: libc::c_int },
    /// The parent, holding the read end (for `process::await_exec`).
    Parent { pid: libc::pid_t, status: OwnedFd },
}

/// Forks with a close-on-exec status pipe between parent and child, each side closing the end that is
/// not its own.
///
/// # Safety
/// The calling process has one thread, so the child may run any code.
pub(super) unsafe fn fork_with_status() -> io::Result<Forked> {
    let mut status = [-1 as libc::c_int; 2];
    check(libc::pipe2(status.as_mut_ptr(), libc::O_CLOEXEC))?;
    let pid = libc::fork();
    if pid < 0 {
        let error = io::Error::last_os_error();
        libc::close(status[0]);
        libc::close(status[1]);
        return Err(error);
    }
    if pid == 0 {
        libc::close(status[0]);
        return Ok(Forked::Child { status: status[1] });
    }
    libc::close(status[1]);
    Ok(Forked::Parent { pid, status: OwnedFd::from_raw_fd(status[0]) })
}

/// A pipe for a supervisor to tell its command's end through (`child::Prepared::report_exit_to`): the
/// spawner's read end, and the write end for the child to keep. Both close-on-exec, so the command
/// itself never holds either.
pub(super) fn exit_report() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [-1 as libc::c_int; 2];
    // SAFETY: pipe2 fills the array it is given; the descriptors are owned from here on.
    unsafe {
        check(libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC))?;
        Ok((OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])))
    }
}

/// In a child that could not execute its program: tells the spawner why through `status` (the pipe
/// whose closing at `exec` means success) and exits.
pub(super) unsafe fn fail(status: libc::c_int, error: &io::Error) -> ! {
    let code = error.raw_os_error().unwrap_or(libc::EINVAL);
    libc::write(status, (&code as *const libc::c_int).cast(), std::mem::size_of::<libc::c_int>());
    libc::_exit(NOT_STARTED)
}

fn c_string(what: &str, bytes: &[u8]) -> Result<CString, String> {
    CString::new(bytes).map_err(|_| format!("the {what} holds a NUL byte"))
}

fn check(result: libc::c_int) -> io::Result<()> {
    if result < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}
