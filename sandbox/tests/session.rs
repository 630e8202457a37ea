//! Commands leave the session of whoever started Warden, and its terminal. This test makes a real
//! pseudo-terminal its own controlling terminal and stdin (as when Warden is started from a shell),
//! with one more descriptor of it left open (as a careless server might), and only then forks the
//! spawner. Every way a command starts (forked from here or by the spawner, confined or not, from a
//! sandbox made ahead or a fresh one) runs this binary again as a probe, which reports what it can do
//! with a terminal; the test reads the session and controlling terminal of each process from the
//! host's `/proc`, and whether anything was pushed into the terminal's input.
//!
//! Its own `main`: the terminal and the spawner must come before the runtime's threads.
#![allow(
    clippy::unwrap_used,
    reason = "test code: a test fails where it unwraps; clippy.toml's allow-unwrap-in-tests covers only #[test] fns, not the helpers"
)]

use std::ffi::CString;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncBufReadExt;
use warden_sandbox::spawner::{self, Launch};
use warden_sandbox::{confine, own_session, status, Policy, Scratch};

/// The first argument that makes this binary the probe.
const PROBE: &str = "--warden-session-probe";

/// The probe: tries to reach a terminal every way a command could, prints what worked on one line
/// (`OPENED`, `tty-fd=`, `=OK` mark a way in), closes its output and waits to be killed, so the test
/// can read its session from the host's `/proc` while it runs.
fn probe(slave: &str, try_path: bool) -> ! {
    let mut report = Vec::new();
    // SAFETY: open, ioctl and close on NUL-terminated paths and descriptors this process owns.
    unsafe {
        for (name, flags) in [("rdwr", libc::O_RDWR), ("rdonly", libc::O_RDONLY)] {
            let fd = libc::open(c"/dev/tty".as_ptr(), flags | libc::O_CLOEXEC);
            if fd < 0 {
                report.push(format!("dev-tty-{name}=refused({})", std::io::Error::last_os_error()));
            } else {
                report.push(format!("dev-tty-{name}=OPENED"));
                report.push(format!("tiocsti-dev-tty-{name}={}", push_key(fd)));
                libc::close(fd);
            }
        }
        let fds: Vec<i32> = std::fs::read_dir("/proc/self/fd")
            .map(|entries| entries.flatten().filter_map(|e| e.file_name().to_str()?.parse().ok()).collect())
            .unwrap_or_default();
        for fd in fds {
            if libc::isatty(fd) == 1 {
                report.push(format!("tty-fd={fd}"));
                report.push(format!("tiocsti-fd-{fd}={}", push_key(fd)));
            }
        }
        if try_path {
            let path = CString::new(slave).unwrap();
            let fd = libc::open(path.as_ptr(), libc::O_RDONLY | libc::O_NOCTTY | libc::O_CLOEXEC);
            if fd < 0 {
                report.push(format!("pts-open=refused({})", std::io::Error::last_os_error()));
            } else {
                report.push(format!("tiocsti-pts={}", push_key(fd)));
                libc::close(fd);
            }
        }
        println!("{}", report.join(" "));
        libc::close(1);
        libc::close(2);
        libc::sleep(120);
        libc::_exit(0)
    }
}

/// Tries to push a key into the input of the terminal `fd` is open on: `OK`, or why not.
unsafe fn push_key(fd: i32) -> String {
    let key = b'x';
    if libc::ioctl(fd, libc::TIOCSTI, &key as *const u8) == 0 {
        "OK".into()
    } else {
        format!("refused({})", std::io::Error::last_os_error())
    }
}

/// A pseudo-terminal that is this process's controlling terminal and stdin.
struct Terminal {
    /// Kept open: a terminal whose master is closed hangs up.
    _master: OwnedFd,
    /// A descriptor of the terminal left open, not close-on-exec.
    slave: OwnedFd,
    slave_path: String,
}

impl Terminal {
    /// Makes this process the leader of a new session with a new pseudo-terminal as its controlling
    /// terminal, on its stdin. Call it in a process that leads no process group (a fresh fork).
    fn open_as_controlling() -> Terminal {
        // SAFETY: the pty calls on descriptors owned here; setsid and ioctl on this process.
        unsafe {
            let master = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC);
            assert!(master >= 0, "posix_openpt: {}", std::io::Error::last_os_error());
            let master = OwnedFd::from_raw_fd(master);
            assert_eq!(libc::grantpt(master.as_raw_fd()), 0);
            assert_eq!(libc::unlockpt(master.as_raw_fd()), 0);
            let mut name = [0 as libc::c_char; 128];
            assert_eq!(libc::ptsname_r(master.as_raw_fd(), name.as_mut_ptr(), name.len()), 0);
            let slave_path = std::ffi::CStr::from_ptr(name.as_ptr()).to_string_lossy().into_owned();
            assert!(libc::setsid() > 0, "setsid: {}", std::io::Error::last_os_error());
            let slave = libc::open(name.as_ptr(), libc::O_RDWR);
            assert!(slave >= 0, "open {slave_path}: {}", std::io::Error::last_os_error());
            let slave = OwnedFd::from_raw_fd(slave);
            assert_eq!(libc::ioctl(slave.as_raw_fd(), libc::TIOCSCTTY, 0), 0, "TIOCSCTTY");
            assert_eq!(libc::dup2(slave.as_raw_fd(), 0), 0);
            Terminal { _master: master, slave, slave_path }
        }
    }

    /// Bytes waiting in the terminal's input (what a `TIOCSTI` would have put there).
    fn pending_input(&self) -> i32 {
        let mut n: libc::c_int = 0;
        // SAFETY: FIONREAD writes an int.
        unsafe { libc::ioctl(self.slave.as_raw_fd(), libc::FIONREAD, &mut n) };
        n
    }
}

/// How a case starts its command.
#[derive(Debug, Clone, Copy)]
enum Start {
    /// Forked from this process with `confine` (or `own_session` when unconfined), stdin inherited.
    Fork,
    Spawner,
}

#[derive(Debug, Clone, Copy)]
struct Case {
    start: Start,
    confined: bool,
    network: bool,
}

/// `session` and `tty_nr` of `pid`, from the host's `/proc/<pid>/stat`.
fn session_and_tty(pid: u32) -> Option<(i32, i32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<&str> = stat.rsplit(')').next()?.split_whitespace().collect();
    Some((fields.get(3)?.parse().ok()?, fields.get(4)?.parse().ok()?))
}

/// `pid` and every process below it.
fn tree(pid: u32) -> Vec<u32> {
    let mut all = vec![pid];
    let mut at = 0;
    while at < all.len() {
        let p = all[at];
        let children = std::fs::read_to_string(format!("/proc/{p}/task/{p}/children")).unwrap_or_default();
        all.extend(children.split_whitespace().filter_map(|c| c.parse::<u32>().ok()));
        at += 1;
    }
    all
}

/// Starts the probe as `case` says; checks its report and the session of every process it is made of.
async fn check(case: Case, terminal: &Terminal, workspace: &PathBuf, policy: &Policy) {
    let exe = std::env::current_exe().unwrap();
    // As root, an unconfined process may push keys into any terminal (CAP_SYS_ADMIN): not a way in
    // that a session can close, so only confined probes try the terminal by its path.
    // SAFETY: geteuid cannot fail.
    let try_path = case.confined || unsafe { libc::geteuid() } != 0;
    let args = vec![PROBE.to_string(), terminal.slave_path.clone(), try_path.to_string()];
    let policy = policy.clone().with_network(case.network);
    let policy = case.confined.then_some(&policy);
    let (reader, writer) = std::io::pipe().unwrap();
    let (pid, mut ender): (u32, Box<dyn FnMut()>) = match case.start {
        Start::Fork => {
            let mut cmd = tokio::process::Command::new(&exe);
            // No `stdin`: the child inherits this process's, the terminal.
            cmd.args(&args).current_dir(workspace).env_clear().stdout(Stdio::from(writer)).kill_on_drop(true);
            match policy {
                Some(policy) => confine(&mut cmd, policy).unwrap(),
                None => own_session(&mut cmd),
            }
            let mut child = cmd.spawn().unwrap();
            let pid = child.id().unwrap();
            (
                pid,
                Box::new(move || {
                    let _ = child.start_kill();
                }),
            )
        }
        Start::Spawner => {
            let launch = Launch {
                program: &exe,
                args: &args,
                env: &[],
                cwd: workspace,
                stdout: writer.as_fd(),
                stderr: writer.as_fd(),
                policy,
            };
            let spawned = spawner::get().expect("the spawner runs").spawn(launch).await.unwrap();
            drop(writer);
            let pid = spawned.id();
            // SAFETY: kills the process group the spawner made for this command.
            (
                pid,
                Box::new(move || unsafe {
                    libc::killpg(pid as i32, libc::SIGKILL);
                }),
            )
        }
    };
    let mut lines = tokio::io::BufReader::new(tokio::net::unix::pipe::Receiver::from_owned_fd(reader.into()).unwrap());
    let mut report = String::new();
    let read = tokio::time::timeout(Duration::from_secs(30), lines.read_line(&mut report)).await;
    assert!(read.is_ok_and(|r| r.is_ok()), "{case:?}: the probe said nothing");

    // SAFETY: getsid on this process.
    let ours = unsafe { libc::getsid(0) };
    let mut processes = tree(pid);
    if matches!(case.start, Start::Spawner) {
        // The spawner itself (the command's parent) is out of Warden's session too.
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let parent: Option<u32> = stat.rsplit(')').next().and_then(|rest| rest.split_whitespace().nth(1)?.parse().ok());
        processes.extend(parent);
    }
    let sessions: Vec<(u32, Option<(i32, i32)>)> = processes.iter().map(|&p| (p, session_and_tty(p))).collect();
    ender();
    for (p, seen) in &sessions {
        let (sid, tty) = seen.unwrap_or_else(|| panic!("{case:?}: process {p} vanished while it was checked"));
        assert_ne!(sid, ours, "{case:?}: process {p} is in Warden's session ({sessions:?}); report: {report}");
        assert_eq!(tty, 0, "{case:?}: process {p} has a controlling terminal ({sessions:?}); report: {report}");
    }
    assert!(
        !report.contains("OPENED") && !report.contains("tty-fd=") && !report.contains("=OK"),
        "{case:?}: the command reached the terminal: {report}"
    );
    assert_eq!(terminal.pending_input(), 0, "{case:?}: keys were pushed into the terminal: {report}");
    let expected = if case.confined { 2 } else { 1 };
    assert!(processes.len() >= expected, "{case:?}: {processes:?}");
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some(PROBE) {
        probe(&args[2], args.get(3).is_some_and(|a| a == "true"));
    }
    // A fresh fork leads no process group, so it can lead a session of its own whatever started the
    // test; this process waits and ends as it does.
    // SAFETY: this process has one thread; fork and waitpid.
    unsafe {
        let pid = libc::fork();
        assert!(pid >= 0, "fork: {}", std::io::Error::last_os_error());
        if pid > 0 {
            let mut status = 0;
            libc::waitpid(pid, &mut status, 0);
            let code = if libc::WIFEXITED(status) {
                libc::WEXITSTATUS(status)
            } else {
                eprintln!("the test process ended by signal {}", libc::WTERMSIG(status));
                101
            };
            std::process::exit(code);
        }
    }
    let terminal = Terminal::open_as_controlling();
    // After the terminal, before any other thread: the spawner starts with the terminal as Warden's.
    spawner::start().expect("the spawner starts");
    let available = status();
    if !available.available {
        eprintln!("\n!!! SKIPPED: no sandbox on this machine: {} !!!\n", available.detail);
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let root = tempfile::tempdir().unwrap();
        let data = root.path().canonicalize().unwrap().join("data");
        let workspace = data.join("workspace");
        std::fs::create_dir_all(&workspace).unwrap();
        let scratch = Scratch::new().unwrap();
        let policy = Policy::new(vec![workspace.clone()], vec![data.clone()]).with_scratch(&scratch);
        for case in [
            Case { start: Start::Fork, confined: true, network: false },
            Case { start: Start::Fork, confined: true, network: true },
            Case { start: Start::Fork, confined: false, network: false },
            Case { start: Start::Spawner, confined: true, network: false },
            Case { start: Start::Spawner, confined: true, network: true },
            Case { start: Start::Spawner, confined: false, network: false },
        ] {
            check(case, &terminal, &workspace, &policy).await;
            println!("test a_command_has_a_session_of_its_own_and_no_way_to_the_terminal ({case:?}) ... ok");
        }
    });
    // Closing the terminal hangs it up, which signals its session's leader: this process.
    // SAFETY: sets a signal's disposition.
    unsafe { libc::signal(libc::SIGHUP, libc::SIG_IGN) };
    drop(terminal);
}
