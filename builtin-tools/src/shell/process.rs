//! Runs one command line for the shell tool (its program directly when the line is plain, else through
//! `sh -c`: see `argv`), started by the sandbox's spawner where the server runs one (else forked from
//! here): confined by `warden-sandbox` (which also ends every
//! process it started when it exits), in a session (and process group) of its own, away from the
//! terminal Warden was started on, with a minimal environment and a fresh
//! `HOME`; stdout and stderr merged into one capped buffer; the whole group killed on timeout, on cancel,
//! or when the call is dropped, so nothing the command started outlives the call.

use std::os::fd::{AsFd, OwnedFd};
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio_util::sync::CancellationToken;
use warden_sandbox::spawner::{Launch, SpawnError, Spawned};
use warden_sandbox::{Policy, Scratch};

use crate::ToolError;

const PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Git reads no system or global config (a planted `~/.gitconfig` cannot turn `git show` into code), and
/// `core.fsmonitor` (a command git runs on `git status`) is off even when the repository's own config
/// sets it. Other repository settings that run code (`diff.<driver>.textconv`, hooks) stay the repo's:
/// what they run is confined like the command itself.
const GIT_ENV: [(&str, &str); 6] = [
    ("GIT_CONFIG_NOSYSTEM", "1"),
    ("GIT_CONFIG_GLOBAL", "/dev/null"),
    ("GIT_CONFIG_COUNT", "1"),
    ("GIT_CONFIG_KEY_0", "core.fsmonitor"),
    ("GIT_CONFIG_VALUE_0", "false"),
    ("GIT_TERMINAL_PROMPT", "0"),
];

/// After the shell exits, how long leftover background jobs may keep the output pipe open.
const LINGER: Duration = Duration::from_millis(200);

/// Limits for one command.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub timeout: Duration,
    pub output_cap: usize,
}

/// What a command left behind.
#[derive(Debug)]
pub(crate) struct Finished {
    pub status: ExitStatus,
    /// Combined stdout and stderr, at most `output_cap` bytes.
    pub output: Vec<u8>,
    /// How many bytes were dropped beyond the cap.
    pub dropped: usize,
}

/// Where a command runs and what confines it.
pub(crate) struct Setup<'a> {
    pub cwd: &'a Path,
    /// Private `HOME` and `TMPDIR`; the caller removes them after the call.
    pub scratch: &'a Scratch,
    /// `None`: no sandbox on this machine, and a person approved running without one.
    pub policy: Option<&'a Policy>,
}

pub(crate) async fn run(
    command: &str,
    setup: Setup<'_>,
    limits: Limits,
    cancel: &CancellationToken,
) -> Result<Finished, ToolError> {
    // One pipe for both streams keeps their interleaving as the command wrote it.
    let (reader, writer) = std::io::pipe()?;
    let (program, args) = super::argv::argv(command, PATH);
    let env = environment(&setup);
    let mut child = match warden_sandbox::spawner::get() {
        Some(spawner) => {
            let launch = Launch {
                program: &program,
                args: &args,
                env: &env,
                cwd: setup.cwd,
                stdout: writer.as_fd(),
                stderr: writer.as_fd(),
                policy: setup.policy,
            };
            match spawner.spawn(launch).await {
                Ok(spawned) => {
                    drop(writer);
                    Child::Spawned(spawned)
                }
                Err(SpawnError::Start(why)) => return Err(ToolError::Failed(why)),
                Err(SpawnError::Unavailable(why)) => {
                    tracing::debug!(%why, "starting the command from the server itself");
                    Child::Forked(fork(&program, &args, &env, &setup, writer)?)
                }
            }
        }
        None => Child::Forked(fork(&program, &args, &env, &setup, writer)?),
    };
    // Our copy of the write end is gone (dropped above, or with the forked command's `Command`), so
    // the pipe ends when the command's copies do.
    let group = GroupKiller(child.id().and_then(|pid| i32::try_from(pid).ok()));
    let mut pipe = tokio::net::unix::pipe::Receiver::from_owned_fd(OwnedFd::from(reader))?;

    let deadline = tokio::time::sleep(limits.timeout);
    tokio::pin!(deadline);
    let linger = tokio::time::sleep(Duration::MAX);
    tokio::pin!(linger);

    let mut output = Vec::new();
    let mut dropped = 0usize;
    let mut chunk = vec![0u8; 8192];
    let mut status = None;
    let mut eof = false;
    while status.is_none() || !eof {
        tokio::select! {
            _ = &mut deadline => return Err(ToolError::Timeout(whole_seconds(limits.timeout))),
            _ = cancel.cancelled() => return Err(ToolError::Cancelled),
            exited = child.wait(), if status.is_none() => {
                status = Some(exited?);
                linger.as_mut().reset(tokio::time::Instant::now() + LINGER);
            }
            read = pipe.read(&mut chunk), if !eof => match read? {
                0 => eof = true,
                n => {
                    let room = limits.output_cap.saturating_sub(output.len());
                    output.extend_from_slice(&chunk[..n.min(room)]);
                    dropped += n.saturating_sub(room);
                }
            },
            // The shell is done but something it started still holds the pipe: stop waiting for it.
            _ = &mut linger, if status.is_some() => break,
        }
    }
    drop(group);
    match status {
        Some(status) => Ok(Finished { status, output, dropped }),
        None => Err(ToolError::Failed("the command's exit status was lost".into())),
    }
}

/// The command's whole environment: a minimal one, with a private `HOME` and `TMPDIR`.
fn environment(setup: &Setup<'_>) -> Vec<(String, String)> {
    let mut env = vec![
        ("PATH".to_string(), PATH.to_string()),
        ("HOME".to_string(), setup.scratch.home().to_string_lossy().into_owned()),
        ("TMPDIR".to_string(), setup.scratch.tmp().to_string_lossy().into_owned()),
        ("LANG".to_string(), "C.UTF-8".to_string()),
        ("TERM".to_string(), "dumb".to_string()),
    ];
    env.extend(GIT_ENV.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    // Git looks for a repository no higher than the workspace (not in a repo around Warden's data).
    if let Some(parent) = setup.cwd.parent() {
        env.push(("GIT_CEILING_DIRECTORIES".to_string(), parent.to_string_lossy().into_owned()));
    }
    env
}

/// Starts the command by forking this process (where no spawner runs: see `warden_sandbox::spawner`).
fn fork(
    program: &Path,
    args: &[String],
    env: &[(String, String)],
    setup: &Setup<'_>,
    writer: std::io::PipeWriter,
) -> Result<tokio::process::Child, ToolError> {
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(args)
        .current_dir(setup.cwd)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::from(writer.try_clone()?))
        .stderr(Stdio::from(writer))
        .kill_on_drop(true);
    // A session of its own (also a process group of its own, which `GroupKiller` ends), confined or not.
    match setup.policy {
        Some(policy) => warden_sandbox::confine(&mut cmd, policy).map_err(|e| ToolError::Failed(e.to_string()))?,
        None => warden_sandbox::own_session(&mut cmd),
    }
    Ok(cmd.spawn()?)
}

/// The command, started either way.
enum Child {
    Spawned(Spawned),
    Forked(tokio::process::Child),
}

impl Child {
    fn id(&self) -> Option<u32> {
        match self {
            Child::Spawned(child) => Some(child.id()),
            Child::Forked(child) => child.id(),
        }
    }

    async fn wait(&mut self) -> std::io::Result<ExitStatus> {
        match self {
            Child::Spawned(child) => child.wait().await,
            Child::Forked(child) => child.wait().await,
        }
    }
}

fn whole_seconds(d: Duration) -> u64 {
    d.as_millis().div_ceil(1000) as u64
}

/// Sends SIGKILL to the whole process group when dropped: on every way out of `run`. Confined, that
/// group holds the sandbox's supervisor and PID 1 of its PID namespace, whose end takes every other
/// process of the command with it (even those that left the group with `setsid`).
struct GroupKiller(Option<i32>);

impl Drop for GroupKiller {
    fn drop(&mut self) {
        if let Some(pgid) = self.0.filter(|&pgid| pgid > 1) {
            // SAFETY: killpg only sends a signal; ESRCH (group already gone) is fine to ignore.
            unsafe {
                libc::killpg(pgid, libc::SIGKILL);
            }
        }
    }
}
