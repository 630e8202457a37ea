//! What runs between `fork` and `exec`: only system calls on data prepared before the fork (no
//! allocation, no locks), as a forked child of a threaded process must.
//!
//! The forked child opens a user, PID, mount and (without network) network namespace, maps its own uid
//! and gid into it, and forks again. It stays outside as a supervisor that waits and exits as its child
//! did. The grandchild is PID 1 of the new PID namespace: it dies with the supervisor
//! (`PR_SET_PDEATHSIG`), mounts a `/proc` that shows only the sandbox's processes (no other process's
//! command line or environment to read), drops every capability, enforces the Landlock ruleset and
//! returns to `exec` the command. When PID 1 of a
//! namespace ends, the kernel kills every process left in it, so nothing (`setsid`, double forks)
//! outlives the command.

use std::ffi::CStr;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};

use landlock::RulesetCreated;

use crate::shared_ns::SharedNamespaces;
use crate::sockets::Masks;

/// `close_range` flag: mark the descriptors close-on-exec instead of closing them (Linux 5.11).
const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
/// `_LINUX_CAPABILITY_VERSION_3`: 64-bit capability sets in two `CapData` words.
const CAPABILITY_VERSION_3: u32 = 0x2008_0522;
/// Highest capability number tried when emptying the bounding set (the kernel has about 41).
const LAST_CAPABILITY: libc::c_ulong = 63;
/// Exit code of PID 1 when its supervisor was gone before it could tie its life to it.
const SUPERVISOR_GONE: libc::c_int = 125;

/// Maps the current uid and gid to themselves in a new user namespace, so files keep their owners.
pub(crate) struct IdMaps {
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
}

impl IdMaps {
    pub(crate) fn current() -> io::Result<Self> {
        // SAFETY: geteuid and getegid cannot fail.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        Ok(Self { uid_map: format!("{uid} {uid} 1\n").into_bytes(), gid_map: format!("{gid} {gid} 1\n").into_bytes() })
    }

    /// Writes the maps for the calling process, which has just entered a new user namespace.
    /// `setgroups` must be denied before an unprivileged process may write its `gid_map`.
    pub(crate) fn write(&self) -> io::Result<()> {
        write_file(c"/proc/self/setgroups", b"deny")?;
        write_file(c"/proc/self/uid_map", &self.uid_map)?;
        write_file(c"/proc/self/gid_map", &self.gid_map)
    }
}

/// Everything the child needs, made before the fork.
pub(crate) struct Prepared {
    ruleset: OwnedFd,
    namespaces: libc::c_int,
    maps: IdMaps,
    /// Namespaces to join instead of making a user and a network namespace (see `shared_ns`).
    shared: Option<&'static SharedNamespaces>,
    network: bool,
    /// Landlock access bits granted on the sandbox's own `/proc` (0: none). Landlock skips mount points
    /// when it walks up a path, so the grant on the host's `/proc` does not reach a `/proc` mounted over
    /// it: the rule is added after the mount, on the new one.
    proc_access: u64,
    /// Where the supervisor writes the command's wait status before it exits (-1: nowhere). See
    /// [`Prepared::report_exit_to`].
    report: libc::c_int,
    /// The machine's unix sockets to cover in the command's mount namespace (see `sockets`).
    masks: Masks,
}

impl Prepared {
    pub(crate) fn new(
        ruleset: RulesetCreated,
        network: bool,
        proc_access: u64,
        shared: Option<&'static SharedNamespaces>,
        masks: Masks,
    ) -> Result<Self, crate::SandboxError> {
        let ruleset: Option<OwnedFd> = ruleset.into();
        let ruleset = ruleset.ok_or_else(|| crate::SandboxError::Unavailable("Landlock made no ruleset".into()))?;
        let mut namespaces = libc::CLONE_NEWUSER | libc::CLONE_NEWPID | libc::CLONE_NEWNS;
        if !network {
            namespaces |= libc::CLONE_NEWNET;
        }
        Ok(Self { ruleset, namespaces, maps: IdMaps::current()?, shared, network, proc_access, report: -1, masks })
    }

    /// Has the supervisor write the command's end to `fd` (a pipe's write end, close-on-exec) as soon
    /// as it knows it, before it exits itself: its exit takes the sandbox's mount namespace down first
    /// (about 0.1 ms here), and whoever waits for the command need not wait for that.
    pub(crate) fn report_exit_to(&mut self, fd: libc::c_int) {
        self.report = fd;
    }

    /// Runs in the forked child; returns (in the confined grandchild) to let `exec` go ahead.
    pub(crate) fn enter(&self) -> io::Result<()> {
        // SAFETY: getsid, getpid and setsid only change this process's session.
        unsafe { own_session()? };
        self.enter_namespaces()?;
        // SAFETY: as in `enter_namespaces`.
        unsafe { restrict(&self.ruleset, self.proc_access) }
    }

    /// Whether a sandbox made ahead of its command (`spawner::zygote`) with `masks` fits this one: it
    /// joins the shared namespaces without network, and covers the same sockets.
    pub(crate) fn fits_zygote(&self, masks: &Masks) -> bool {
        self.shared.is_some() && !self.network && self.masks == *masks
    }

    pub(crate) fn ruleset(&self) -> &OwnedFd {
        &self.ruleset
    }

    pub(crate) fn proc_access(&self) -> u64 {
        self.proc_access
    }

    /// The first half of `enter`, which does not depend on the command: the namespaces, the supervisor
    /// and, in PID 1, its own `/proc`. Returns in PID 1.
    fn enter_namespaces(&self) -> io::Result<()> {
        // SAFETY: plain system calls on memory owned by `self`, valid in the child after fork.
        unsafe {
            match self.shared {
                Some(shared) => enter_shared(shared, self.network, self.report, &self.masks),
                None => {
                    check(libc::unshare(self.namespaces))?;
                    self.maps.write()?;
                    become_pid_one(self.report, &self.masks)
                }
            }
        }
    }
}

/// `Prepared::enter_namespaces` where the user and network namespaces are the shared ones: joins them
/// (the network one only without `network`), makes new PID and mount namespaces and returns in PID 1,
/// with `masks` covered. `report`: see [`Prepared::report_exit_to`] (-1: none).
pub(crate) unsafe fn enter_shared(
    shared: &SharedNamespaces,
    network: bool,
    report: libc::c_int,
    masks: &Masks,
) -> io::Result<()> {
    // Joining the shared user namespace gives every capability in it, which the network namespace it
    // owns and the new PID and mount namespaces need.
    check(libc::setns(shared.user.as_raw_fd(), libc::CLONE_NEWUSER))?;
    if !network {
        check(libc::setns(shared.net.as_raw_fd(), libc::CLONE_NEWNET))?;
    }
    check(libc::unshare(libc::CLONE_NEWPID | libc::CLONE_NEWNS))?;
    become_pid_one(report, masks)
}

/// The second half of `enter`: in PID 1, drops every capability (`drop_privileges`) and enforces
/// `ruleset` (`enforce`).
pub(crate) unsafe fn restrict(ruleset: &OwnedFd, proc_access: u64) -> io::Result<()> {
    drop_privileges()?;
    enforce(ruleset, proc_access)
}

/// Empties every capability set and sets `no_new_privs`, so nothing this process executes gains a
/// privilege. Needs nothing of the command: a sandbox made ahead (`spawner::zygote`) does it while it
/// waits for one (65 system calls fewer on a command's way: 64 `prctl`s take about 12 µs here).
pub(crate) unsafe fn drop_privileges() -> io::Result<()> {
    drop_capabilities()?;
    check(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
}

/// After `drop_privileges`: grants its own `/proc` (`proc_access`, 0 for none) and enforces `ruleset`.
pub(crate) unsafe fn enforce(ruleset: &OwnedFd, proc_access: u64) -> io::Result<()> {
    if proc_access != 0 {
        grant_own_proc(ruleset, proc_access)?;
    }
    let restricted = libc::syscall(libc::SYS_landlock_restrict_self, ruleset.as_raw_fd(), 0u32);
    if restricted != 0 {
        return Err(io::Error::last_os_error());
    }
    // Nothing but stdin, stdout and stderr crosses `exec` (old kernels lack the flag: best effort,
    // std and tokio open their descriptors close-on-exec anyway).
    libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, CLOSE_RANGE_CLOEXEC);
    Ok(())
}

/// Makes the calling process the leader of a new session (and of a new process group, whose id is its
/// pid), unless it already is one: it leaves the session of whoever started Warden, and with it that
/// session's controlling terminal (`/dev/tty` opens nothing, and no `TIOCSTI` can push keystrokes into
/// the person's shell), its job control and its hang-up. Then no descriptor of a terminal crosses
/// `exec`: a terminal on stdin, stdout or stderr is swapped for `/dev/null`, and every descriptor from 3
/// on is marked close-on-exec. Fails where the process leads a process group of another session (a
/// caller that asked for `process_group(0)` first): a session is a group too.
pub(crate) unsafe fn own_session() -> io::Result<()> {
    if libc::getsid(0) != libc::getpid() {
        check(libc::setsid())?;
    }
    for fd in 0..=2 {
        if libc::isatty(fd) == 1 {
            let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC);
            check(null)?;
            let swapped = libc::dup2(null, fd);
            libc::close(null);
            check(swapped)?;
        }
    }
    // Old kernels lack the flag: best effort, as in `enforce` (std and tokio open theirs close-on-exec).
    libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, CLOSE_RANGE_CLOEXEC);
    Ok(())
}

/// Forks, after the namespaces were entered: this process stays as the supervisor (and never
/// returns), the child returns as PID 1 of the new PID namespace, tied to the supervisor's life,
/// with its own `/proc` mounted and the machine's unix sockets (`masks`) covered. `report`: where the
/// supervisor tells the command's end (-1: nowhere).
unsafe fn become_pid_one(report: libc::c_int, masks: &Masks) -> io::Result<()> {
    let mut alive = [-1 as libc::c_int; 2];
    check(libc::pipe2(alive.as_mut_ptr(), libc::O_CLOEXEC))?;
    let pid = libc::fork();
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    if pid > 0 {
        supervise(pid, alive, report);
    }
    // PID 1 of the new namespace from here on: the report is the supervisor's alone.
    if report >= 0 {
        libc::close(report);
    }
    libc::close(alive[1]);
    check(libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0))?;
    // The supervisor holds the pipe's write end for life: a hang-up now means it died before
    // PDEATHSIG was set, and nobody would end this process.
    let mut poll = libc::pollfd { fd: alive[0], events: libc::POLLIN, revents: 0 };
    if libc::poll(&mut poll, 1, 0) != 0 {
        libc::_exit(SUPERVISOR_GONE);
    }
    libc::close(alive[0]);
    mount_own_proc()?;
    masks.apply()
}

/// Adds a rule for the `/proc` just mounted to `ruleset` (not enforced yet).
unsafe fn grant_own_proc(ruleset: &OwnedFd, access: u64) -> io::Result<()> {
    const LANDLOCK_RULE_PATH_BENEATH: libc::c_int = 1;
    let fd = libc::open(c"/proc".as_ptr(), libc::O_PATH | libc::O_CLOEXEC | libc::O_DIRECTORY);
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    let attr = PathBeneathAttr { allowed_access: access, parent_fd: fd };
    let added = libc::syscall(
        libc::SYS_landlock_add_rule,
        ruleset.as_raw_fd(),
        LANDLOCK_RULE_PATH_BENEATH,
        &attr as *const PathBeneathAttr,
        0u32,
    );
    let error = io::Error::last_os_error();
    libc::close(fd);
    if added != 0 {
        return Err(error);
    }
    Ok(())
}

/// `struct landlock_path_beneath_attr` (packed in the kernel's UAPI).
#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

/// The supervisor: keeps only stdio, its end of the liveness pipe (so the spawning process sees `exec`
/// succeed as soon as the grandchild's copy of std's status pipe closes) and `report`, waits for PID 1,
/// writes to `report` the status it is about to end with, and ends the same way. When PID 1 ends the
/// kernel has already ended every other process of its namespace, so the command is over then.
unsafe fn supervise(pid: libc::pid_t, alive: [libc::c_int; 2], report: libc::c_int) -> ! {
    libc::close(alive[0]);
    close_all_but(alive[1], report);
    let status = wait_status(pid);
    if report >= 0 {
        let ending = if libc::WIFSIGNALED(status) {
            libc::WTERMSIG(status)
        } else if libc::WIFEXITED(status) {
            libc::WEXITSTATUS(status) << 8
        } else {
            127 << 8
        };
        libc::write(report, (&ending as *const libc::c_int).cast(), std::mem::size_of::<libc::c_int>());
    }
    if libc::WIFSIGNALED(status) {
        let signal = libc::WTERMSIG(status);
        libc::signal(signal, libc::SIG_DFL);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, signal);
        libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::kill(libc::getpid(), signal);
        libc::_exit(128 + signal);
    }
    libc::_exit(if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { 127 })
}

/// Closes every descriptor from 3 on but `a` and `b` (-1: none), without allocating.
unsafe fn close_all_but(a: libc::c_int, b: libc::c_int) {
    let (low, high) = if a <= b { (a, b) } else { (b, a) };
    let mut from: libc::c_uint = 3;
    for keep in [low, high] {
        let Ok(keep) = libc::c_uint::try_from(keep) else { continue };
        if keep < from {
            continue;
        }
        if keep > from {
            libc::syscall(libc::SYS_close_range, from, keep - 1, 0u32);
        }
        from = keep + 1;
    }
    libc::syscall(libc::SYS_close_range, from, u32::MAX, 0u32);
}

/// `waitpid` until `pid` has ended; its raw status (or a failure status if waiting failed).
unsafe fn wait_status(pid: libc::pid_t) -> libc::c_int {
    let mut status = 0;
    loop {
        let waited = libc::waitpid(pid, &mut status, 0);
        if waited == pid {
            return status;
        }
        if waited < 0 && *libc::__errno_location() != libc::EINTR {
            return 127 << 8;
        }
    }
}

/// The exit code of `pid` once it ends (1 if it was killed or could not be waited for).
pub(crate) unsafe fn wait_exit_code(pid: libc::pid_t) -> libc::c_int {
    let status = wait_status(pid);
    if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        1
    }
}

/// Keeps mounts of this namespace to itself, then mounts a fresh `/proc` for the new PID namespace over
/// the host's (Landlock forbids mounts only after `landlock_restrict_self`).
pub(crate) unsafe fn mount_own_proc() -> io::Result<()> {
    let none = std::ptr::null();
    check(libc::mount(none, c"/".as_ptr(), none, libc::MS_REC | libc::MS_PRIVATE, std::ptr::null()))?;
    let flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
    check(libc::mount(c"proc".as_ptr(), c"/proc".as_ptr(), c"proc".as_ptr(), flags, std::ptr::null()))
}

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// Empties the bounding, ambient, inheritable, permitted and effective sets, so even uid 0 gains no
/// capability at `exec` (inside its user namespace, where it had all of them).
unsafe fn drop_capabilities() -> io::Result<()> {
    for cap in 0..=LAST_CAPABILITY {
        // EINVAL past the kernel's last capability.
        libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0);
    }
    libc::prctl(libc::PR_CAP_AMBIENT, libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong, 0, 0, 0);
    let header = CapHeader { version: CAPABILITY_VERSION_3, pid: 0 };
    let data = [CapData { effective: 0, permitted: 0, inheritable: 0 }; 2];
    if libc::syscall(libc::SYS_capset, &header as *const CapHeader, data.as_ptr()) != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn write_file(path: &CStr, data: &[u8]) -> io::Result<()> {
    // SAFETY: open, write and close on a NUL-terminated path and a borrowed buffer.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let written = libc::write(fd, data.as_ptr().cast(), data.len());
        let error = io::Error::last_os_error();
        libc::close(fd);
        if written != data.len() as isize {
            return Err(error);
        }
    }
    Ok(())
}

fn check(result: libc::c_int) -> io::Result<()> {
    if result < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}
