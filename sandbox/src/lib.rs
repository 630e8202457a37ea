//! Confines a command Warden runs (the shell tool, a sandboxed MCP server): Landlock lets it write only
//! where the policy says and read nothing that is hidden; user, PID, mount and (without network) network
//! namespaces keep it from the network, from other processes (its `/proc` shows only its own) and from
//! outliving its call; and it runs with no capabilities. The user and network namespaces are made once
//! and shared where Landlock can keep commands apart in them (`shared_ns`).
//!
//! Use: make a [`Policy`], keep a [`Scratch`] (private `HOME` and `TMPDIR`) alive for the call, and call
//! [`confine`] on the `tokio::process::Command` before spawning it, or hand the command to the
//! [`spawner`] (a small process forked at start-up, so a command does not cost a fork of the server).
//! [`status`] says whether this kernel can do all of it; where it cannot, `confine` refuses rather than
//! run the command unconfined.

mod child;
mod rules;
mod scratch;
mod shared_ns;
mod sockets;
pub mod spawner;
mod status;

use std::path::{Path, PathBuf};

pub use scratch::Scratch;
pub use status::{status, SandboxStatus};

/// Device files every command may write (and read): what shells and tools expect to find.
pub const WRITABLE_DEVICES: [&str; 3] = ["/dev/null", "/dev/zero", "/dev/full"];

/// What a confined command may touch.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Policy {
    /// Read (and execute) access beneath each path; `/` for "everything that is not hidden".
    pub readable: Vec<PathBuf>,
    /// Read and write access beneath each path. A writable path inside a hidden one is granted anyway
    /// (the workspace inside Warden's data dir).
    pub writable: Vec<PathBuf>,
    /// Neither readable nor writable, even beneath a readable path (Warden's data dir). Landlock grants
    /// rather than denies, so a readable path that holds a hidden one is granted entry by entry around it.
    pub hidden: Vec<PathBuf>,
    /// TCP, UDP and every other network access; off means a network namespace with no interfaces and,
    /// where the kernel has them (Landlock ABI 4+), TCP connect and bind rules that allow nothing.
    pub network: bool,
    /// The call's own scratch directory (its `HOME` and `TMPDIR`, see [`Scratch`]), writable. Kept
    /// apart from `writable` as the one path that differs from one call to the next: the spawner
    /// builds the ruleset for the rest ahead of the next command.
    #[serde(default)]
    pub scratch: Option<PathBuf>,
}

impl Policy {
    /// The shell's policy: read everything but `hidden`, write only in `writable` (and
    /// [`WRITABLE_DEVICES`]), no network.
    pub fn new(writable: Vec<PathBuf>, hidden: Vec<PathBuf>) -> Self {
        Self { readable: vec![PathBuf::from("/")], writable, hidden, network: false, scratch: None }
    }

    /// The same policy with `scratch` (the command's private `HOME` and `TMPDIR`) writable.
    pub fn with_scratch(mut self, scratch: &Scratch) -> Self {
        self.scratch = Some(scratch.root().to_path_buf());
        self
    }

    pub fn with_network(mut self, network: bool) -> Self {
        self.network = network;
        self
    }
}

/// Why a command cannot be confined.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The kernel lacks Landlock or user namespaces; the detail says which.
    #[error("no sandbox is available on this machine: {0}")]
    Unavailable(String),
    #[error("the sandbox could not grant `{path}`: {source}")]
    Path { path: PathBuf, source: std::io::Error },
    #[error("the sandbox's Landlock rules could not be built: {0}")]
    Landlock(#[from] landlock::RulesetError),
    #[error("the sandbox could not be prepared: {0}")]
    Io(#[from] std::io::Error),
}

/// Confines `cmd` by `policy`: everything is prepared here, before `fork`, and the child only makes
/// system calls (see `child`). Errors without touching `cmd` when [`status`] is not available.
/// The caller sets the environment (`env_clear` and what the command needs). The command starts in a
/// session of its own (as [`own_session`] does), which is also a process group of its own: do not ask
/// `cmd` for a `process_group` as well (a group leader cannot start a session).
pub fn confine(cmd: &mut tokio::process::Command, policy: &Policy) -> Result<(), SandboxError> {
    let prepared = prepare(policy)?;
    // SAFETY: `enter` makes only async-signal-safe system calls on data prepared above (no allocation,
    // no locks), as `pre_exec` requires between fork and exec.
    unsafe {
        cmd.pre_exec(move || prepared.enter());
    }
    Ok(())
}

/// Starts `cmd` (a command that runs unconfined) in a session of its own, as every confined command
/// is: away from the terminal Warden was started on (no `/dev/tty`, no `TIOCSTI` into the person's
/// shell), its job control and its hang-up. The session is also a process group of its own, whose id
/// is the child's pid: do not ask `cmd` for a `process_group` as well.
pub fn own_session(cmd: &mut tokio::process::Command) {
    // SAFETY: `own_session` makes only async-signal-safe system calls (getsid, getpid, setsid).
    unsafe {
        cmd.pre_exec(|| child::own_session());
    }
}

/// Everything a child needs to confine itself by `policy`, made before the fork.
fn prepare(policy: &Policy) -> Result<child::Prepared, SandboxError> {
    prepare_with(policy, None)
}

/// `prepare`, with the ruleset built `ahead` for an earlier policy (see `rules::Ahead`) where it fits.
fn prepare_with(policy: &Policy, ahead: Option<rules::Ahead>) -> Result<child::Prepared, SandboxError> {
    let status = status();
    if !status.available {
        return Err(SandboxError::Unavailable(status.detail.clone()));
    }
    let abi = landlock_abi();
    let ruleset = rules::ruleset_with(policy, abi, ahead)?;
    let proc_readable = policy.readable.iter().any(|r| Path::new("/proc").starts_with(r));
    let proc_access = if proc_readable { landlock::AccessFs::from_read(abi).bits() } else { 0 };
    let shared = shared_ns::get(status.landlock_abi.unwrap_or(0));
    child::Prepared::new(ruleset, policy.network, proc_access, shared, socket_masks(policy, abi))
}

/// The ruleset for `policy` (but its scratch), built ahead of a command that may need it (see
/// `rules::Ahead`); `None` where there is no sandbox or it could not be built (the command then builds
/// its own, and says why if it cannot).
fn build_ahead(policy: &Policy) -> Option<rules::Ahead> {
    if !status().available {
        return None;
    }
    rules::Ahead::build(policy, &rules::hidden_paths(policy), landlock_abi()).ok()
}

/// The machine's unix sockets to cover in a command's mount namespace (see `sockets`), but those in
/// or around a path `policy` makes writable; none where Landlock itself refuses connecting to them
/// (ABI 9+: `rules` handles that access and grants it only where a command may write).
fn socket_masks(policy: &Policy, abi: landlock::ABI) -> sockets::Masks {
    if abi >= landlock::ABI::V9 {
        return sockets::Masks::default();
    }
    let mut allowed = policy.writable.clone();
    allowed.extend(policy.scratch.clone());
    sockets::Masks::leaving(&allowed)
}

/// The socket masks of a sandbox made before its command's policy is known (`spawner::zygote`): all
/// of them, which fits a command whose writable paths are nowhere near one.
pub(crate) fn socket_masks_ahead() -> sockets::Masks {
    socket_masks(&Policy::new(Vec::new(), Vec::new()), landlock_abi())
}

fn landlock_abi() -> landlock::ABI {
    landlock::ABI::from(status().landlock_abi.unwrap_or(0) as i32)
}
