//! The spawner process: forked from the server before its first thread, so it is small and forking it
//! is cheap, where a fork of the running server copies the page tables of its whole heap (and makes
//! the server fault on every page it writes afterwards). It takes requests one at a time: prepares the
//! sandbox, forks, and the child confines itself and executes the program; then it answers with the
//! pid, and with the wait status once the process ends: as the confined command's supervisor tells it
//! (`Exits`), or as `waitpid` does. It ends with the server (`PR_SET_PDEATHSIG`,
//! and when the server's end of the socket closes), and each command's supervisor ends with it.

use std::ffi::{CString, OsStr};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::exec::{self, Exec};
use super::wire::{self, Reply, Request, MAX_MESSAGE};
use super::zygote::{self, Refused, Zygote};

/// Serves `socket` until the server is gone. Runs in the freshly forked, single-threaded spawner.
pub(crate) fn serve(socket: OwnedFd, server: libc::pid_t) -> ! {
    // SAFETY: plain system calls; this process has one thread.
    let signals = unsafe { prepare_self(&socket, server) };
    let signals = match signals {
        Ok(fd) => fd,
        Err(error) => {
            eprintln!("warden spawner: cannot start: {error}");
            // SAFETY: ends this process without running the server's exit handlers.
            unsafe { libc::_exit(1) }
        }
    };
    let mut buffer = vec![0u8; MAX_MESSAGE];
    let mut zygotes = Zygotes::new(&socket, &signals);
    let mut exits = Exits::default();
    let mut ahead = RulesetAhead::default();
    let mut fds = Vec::new();
    loop {
        fds.clear();
        fds.push(libc::pollfd { fd: socket.as_raw_fd(), events: libc::POLLIN, revents: 0 });
        fds.push(libc::pollfd { fd: signals.as_raw_fd(), events: libc::POLLIN, revents: 0 });
        fds.extend(exits.running.iter().map(|(_, report)| libc::pollfd {
            fd: report.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        }));
        // SAFETY: poll on descriptors this process owns, `fds.len()` of them.
        let polled = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ahead.wait_ms()) };
        if polled == 0 {
            ahead.build();
            continue;
        }
        if polled < 0 {
            if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                continue;
            }
            break;
        }
        // Ends told by supervisors first: the reaping below then knows them as told.
        let told: Vec<libc::c_int> = fds[2..].iter().filter(|p| p.revents != 0).map(|p| p.fd).collect();
        for fd in told {
            exits.read_report(fd, &socket);
        }
        if fds[1].revents != 0 {
            drain(&signals);
            reap(&socket, &mut exits);
        }
        if fds[0].revents != 0 {
            match wire::recv::<Request>(&socket, &mut buffer) {
                Ok(Some((request, out))) => {
                    let reply = match start(&request, &out, &mut zygotes, &mut ahead) {
                        Ok((pid, report)) => {
                            if let Some(report) = report {
                                exits.running.push((pid, report));
                            }
                            Reply::Started { id: request.id, pid }
                        }
                        Err(error) => Reply::Failed { id: request.id, error },
                    };
                    drop(out);
                    if wire::send(&socket, &reply, &[]).is_err() {
                        break;
                    }
                    zygotes.refill();
                    ahead.want(request.policy.as_ref());
                }
                Err(error) if error.kind() == io::ErrorKind::InvalidData => {
                    eprintln!("warden spawner: a request it cannot read: {error}");
                }
                Ok(None) | Err(_) => break,
            }
        }
    }
    // SAFETY: as above. Children's supervisors die with this process (their PDEATHSIG).
    unsafe { libc::_exit(0) }
}

/// Ties this process to the server, leaves the server's session, keeps only stdio and `socket`,
/// ignores Ctrl-C (the server ends it by going away) and reads `SIGCHLD` from the descriptor it returns.
unsafe fn prepare_self(socket: &OwnedFd, server: libc::pid_t) -> io::Result<OwnedFd> {
    use std::os::fd::FromRawFd;
    libc::prctl(libc::PR_SET_NAME, c"warden-spawner".as_ptr() as libc::c_ulong, 0, 0, 0);
    check(libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0))?;
    if libc::getppid() != server {
        libc::_exit(0);
    }
    // Out of the server's session too (it ends with the server, not with the server's terminal); its
    // children each make a session of their own as well (`exec::become_child`).
    check(libc::setsid())?;
    let keep = socket.as_raw_fd() as libc::c_uint;
    if keep > 3 {
        libc::syscall(libc::SYS_close_range, 3u32, keep - 1, 0u32);
    }
    libc::syscall(libc::SYS_close_range, keep + 1, u32::MAX, 0u32);
    libc::signal(libc::SIGINT, libc::SIG_IGN);
    let mut mask: libc::sigset_t = std::mem::zeroed();
    libc::sigemptyset(&mut mask);
    libc::sigaddset(&mut mask, libc::SIGCHLD);
    check(libc::sigprocmask(libc::SIG_BLOCK, &mask, std::ptr::null_mut()))?;
    let fd = libc::signalfd(-1, &mask, libc::SFD_CLOEXEC | libc::SFD_NONBLOCK);
    check(fd)?;
    Ok(OwnedFd::from_raw_fd(fd))
}

/// Empties the signal descriptor (several `SIGCHLD`s may have merged into one).
fn drain(signals: &OwnedFd) {
    let mut info = [0u8; 128];
    // SAFETY: reads into a buffer of the size given, from a non-blocking descriptor.
    while unsafe { libc::read(signals.as_raw_fd(), info.as_mut_ptr().cast(), info.len()) } > 0 {}
}

/// Tells the server of every child that has ended, unless its supervisor already did.
fn reap(socket: &OwnedFd, exits: &mut Exits) {
    loop {
        let mut status = 0;
        // SAFETY: waitpid with a valid pointer.
        let pid = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
        if pid <= 0 {
            return;
        }
        if exits.told.remove(&pid) {
            continue;
        }
        exits.running.retain(|(running, _)| *running != pid);
        let _ = wire::send(socket, &Reply::Exited { pid, status }, &[]);
    }
}

/// Confined commands whose end their supervisor will tell (`child::Prepared::report_exit_to`): it
/// writes the status it is about to end with, then ends, and its end (taking the sandbox's mount
/// namespace down) no longer stands between the command's end and the server hearing of it. Each end
/// is told to the server once: by the supervisor's report, or by `reap` when there was none (a
/// supervisor killed with its process group).
#[derive(Default)]
struct Exits {
    /// Supervisors still running, with the read end of their report pipe.
    running: Vec<(libc::pid_t, OwnedFd)>,
    /// Supervisors whose report was sent to the server, not reaped yet.
    told: std::collections::HashSet<libc::pid_t>,
}

impl Exits {
    /// Reads the report on `fd`: its status is sent to the server as the command's end; a pipe that
    /// closed without one leaves the end to `reap`.
    fn read_report(&mut self, fd: libc::c_int, socket: &OwnedFd) {
        let Some(at) = self.running.iter().position(|(_, report)| report.as_raw_fd() == fd) else { return };
        let (pid, report) = self.running.swap_remove(at);
        let mut status: libc::c_int = 0;
        // SAFETY: reads into an int from a descriptor owned here, which poll found readable.
        let n = unsafe {
            libc::read(report.as_raw_fd(), (&mut status as *mut libc::c_int).cast(), std::mem::size_of::<libc::c_int>())
        };
        if n == std::mem::size_of::<libc::c_int>() as isize {
            self.told.insert(pid);
            let _ = wire::send(socket, &Reply::Exited { pid, status }, &[]);
        }
    }
}

/// The Landlock ruleset of the last confined command's policy, built again ahead of the next command
/// (see `rules::Ahead`): that one, if its policy is the same but for its scratch, only adds its
/// scratch, about 0.2 ms less on its way. It is built once the spawner has had nothing to do for
/// [`RulesetAhead::QUIET_MS`], so the work does not hold up the command's own start or the telling of
/// its end; a command that comes sooner builds its own, as without it.
#[derive(Default)]
struct RulesetAhead {
    ready: Option<crate::rules::Ahead>,
    /// The policy to build for, while it is not built.
    wanted: Option<crate::Policy>,
}

impl RulesetAhead {
    const QUIET_MS: libc::c_int = 2;

    /// How long to wait for something to do before building (-1: nothing to build).
    fn wait_ms(&self) -> libc::c_int {
        if self.wanted.is_some() {
            Self::QUIET_MS
        } else {
            -1
        }
    }

    fn build(&mut self) {
        self.ready = self.wanted.take().as_ref().and_then(crate::build_ahead);
    }

    /// After a command started with `policy` (`None`: unconfined, which wants nothing).
    fn want(&mut self, policy: Option<&crate::Policy>) {
        if let Some(policy) = policy {
            self.wanted = Some(policy.clone());
        }
    }

    /// The ruleset built, for the next command (which checks it fits).
    fn take(&mut self) -> Option<crate::rules::Ahead> {
        self.ready.take()
    }
}

/// The sandbox made ahead of the next confined command (see `zygote`), where this kernel shares
/// namespaces between commands.
struct Zygotes {
    shared: Option<&'static crate::shared_ns::SharedNamespaces>,
    /// The spawner's own descriptors, which a zygote closes.
    close: [libc::c_int; 2],
    ready: Option<Zygote>,
}

impl Zygotes {
    fn new(socket: &OwnedFd, signals: &OwnedFd) -> Self {
        let status = crate::status();
        let shared = if status.available { crate::shared_ns::get(status.landlock_abi.unwrap_or(0)) } else { None };
        let mut zygotes = Self { shared, close: [socket.as_raw_fd(), signals.as_raw_fd()], ready: None };
        zygotes.refill();
        zygotes
    }

    fn refill(&mut self) {
        if let (None, Some(shared)) = (&self.ready, self.shared) {
            match Zygote::make(shared, &self.close) {
                Ok(zygote) => self.ready = Some(zygote),
                Err(error) => {
                    eprintln!("warden spawner: no sandbox made ahead ({error}); each command makes its own");
                    self.shared = None;
                }
            }
        }
    }

    /// The waiting sandbox, if there is one and it fits. One that covers other sockets than the
    /// command would (a socket came or went since it was made) is let go, and the next is made anew.
    fn take(&mut self, prepared: &crate::child::Prepared) -> Option<Zygote> {
        let ready = self.ready.take()?;
        if prepared.fits_zygote(&ready.masks) {
            return Some(ready);
        }
        if !prepared.fits_zygote(&crate::socket_masks_ahead()) {
            // It does not fit this command, but may fit the next.
            self.ready = Some(ready);
        }
        None
    }

    /// A zygote that could not take its command is gone: stop making them (each would go the same way).
    fn lost(&mut self) {
        eprintln!("warden spawner: a sandbox made ahead was gone when needed; each command makes its own");
        self.shared = None;
    }
}

/// Starts `request` with `out` as its stdout and stderr; its pid once the program was executed, and
/// where its supervisor will tell its end (a confined command).
/// A confined one takes the ruleset built `ahead`, which it uses if it fits its policy.
fn start(
    request: &Request,
    out: &[OwnedFd],
    zygotes: &mut Zygotes,
    ahead: &mut RulesetAhead,
) -> Result<(i32, Option<OwnedFd>), String> {
    let [stdout, stderr] = out else {
        return Err(format!("a request came with {} descriptors, not 2", out.len()));
    };
    let mut prepared = request
        .policy
        .as_ref()
        .map(|policy| crate::prepare_with(policy, ahead.take()))
        .transpose()
        .map_err(|e| e.to_string())?;
    let program = resolve(&request.program, &request.env)?;
    let exec = Exec::new(&program, &request.program, &request.args, &request.env, &request.cwd)?;
    if let Some((prepared, zygote)) = prepared.as_ref().and_then(|p| Some((p, zygotes.take(p)?))) {
        let go = zygote::Go {
            program,
            argv0: request.program.clone(),
            args: request.args.clone(),
            env: request.env.clone(),
            cwd: request.cwd.clone(),
            proc_access: prepared.proc_access(),
        };
        match zygote.start(&go, stdout, stderr, prepared) {
            Ok((pid, report)) => return Ok((pid, Some(report))),
            Err(Refused::Failed(error)) => {
                return Err(format!("cannot start `{}`: {error}", request.program.display()))
            }
            Err(Refused::NotSent { gone: true }) => zygotes.lost(),
            Err(Refused::NotSent { gone: false }) => {}
        }
    }

    let report = match prepared.as_mut() {
        Some(prepared) => {
            let (report, report_to) = exec::exit_report().map_err(|error| format!("cannot make a pipe: {error}"))?;
            prepared.report_exit_to(report_to.as_raw_fd());
            Some((report, report_to))
        }
        None => None,
    };
    // SAFETY: this process has one thread.
    let forked = unsafe { exec::fork_with_status() }.map_err(|error| format!("cannot fork: {error}"))?;
    let (pid, status) = match forked {
        // SAFETY: the child: system calls on data made above, then exec or _exit.
        exec::Forked::Child { status } => unsafe {
            // The spawner's end closes here; the supervisor keeps the other (this process never returns).
            if let Some((ours, theirs)) = report {
                drop(ours);
                std::mem::forget(theirs);
            }
            exec::fail(status, &launch(&exec, stdout, stderr, prepared.as_ref()))
        },
        exec::Forked::Parent { pid, status } => (pid, status),
    };
    let report = report.map(|(ours, _theirs)| ours);
    let pid =
        await_exec(status, pid).map_err(|error| format!("cannot start `{}`: {error}", request.program.display()))?;
    Ok((pid, report))
}

/// Waits until child `pid` has executed its program (its copy of `status`, close-on-exec, closes)
/// or reported the errno that stopped it (then reaps it).
pub(super) fn await_exec(status: OwnedFd, pid: libc::pid_t) -> io::Result<i32> {
    let mut code: libc::c_int = 0;
    // SAFETY: reads into an int from a descriptor owned here; waitpid with a valid pointer.
    unsafe {
        let read = loop {
            let n = libc::read(
                status.as_raw_fd(),
                (&mut code as *mut libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>(),
            );
            if n < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                continue;
            }
            break n;
        };
        drop(status);
        if read == 0 {
            return Ok(pid);
        }
        let mut ignored = 0;
        libc::waitpid(pid, &mut ignored, 0);
        Err(if read == std::mem::size_of::<libc::c_int>() as isize {
            io::Error::from_raw_os_error(code)
        } else {
            io::Error::other("the child ended before saying why")
        })
    }
}

/// In the child: the process group, stdio, the directory and the sandbox, then the program. Returns
/// only with the error that stopped it.
unsafe fn launch(
    exec: &Exec,
    stdout: &OwnedFd,
    stderr: &OwnedFd,
    prepared: Option<&crate::child::Prepared>,
) -> io::Error {
    let steps = || -> io::Result<()> {
        exec::become_child()?;
        exec.take_stdio_and_dir(stdout, stderr)?;
        if let Some(prepared) = prepared {
            prepared.enter()?;
        }
        Ok(())
    };
    match steps() {
        Ok(()) => exec.execute(),
        Err(error) => error,
    }
}

/// The program to execute: as given when it names a path, else the first executable file of that
/// name on the request's `PATH` (as `execvp` would search it, but in the command's environment).
fn resolve(program: &Path, env: &[(String, String)]) -> Result<PathBuf, String> {
    if program.as_os_str().as_bytes().contains(&b'/') {
        return Ok(program.to_path_buf());
    }
    let path = env.iter().find(|(k, _)| k == "PATH").map(|(_, v)| v.as_str()).unwrap_or("/usr/bin:/bin");
    for dir in path.split(':').filter(|d| !d.is_empty()) {
        let candidate = Path::new(dir).join(program);
        if is_executable(&candidate) {
            return Ok(candidate);
        }
    }
    Err(format!(
        "cannot start `{}`: not found on PATH ({})",
        program.display(),
        io::Error::from_raw_os_error(libc::ENOENT)
    ))
}

fn is_executable(path: &Path) -> bool {
    let Ok(c) = CString::new(OsStr::as_bytes(path.as_os_str())) else {
        return false;
    };
    // SAFETY: access on a NUL-terminated path.
    path.is_file() && unsafe { libc::access(c.as_ptr(), libc::X_OK) } == 0
}

fn check(result: libc::c_int) -> io::Result<()> {
    if result < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}
