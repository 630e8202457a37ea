//! Runs one `sh -c` command for the shell tool: its own process group, a scrubbed environment,
//! stdout and stderr merged into one capped buffer, and the whole group killed on timeout, on cancel,
//! or when the call is dropped, so nothing the command started outlives the call.

use std::os::fd::OwnedFd;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio_util::sync::CancellationToken;

use crate::tools::ToolError;

/// The only environment a command sees (plus `HOME`, set to the workspace).
const PATH: &str = "/usr/local/bin:/usr/bin:/bin";

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

pub(crate) async fn run(
    command: &str,
    cwd: &Path,
    limits: Limits,
    cancel: &CancellationToken,
) -> Result<Finished, ToolError> {
    // One pipe for both streams keeps their interleaving as the command wrote it.
    let (reader, writer) = std::io::pipe()?;
    let mut child = {
        let mut cmd = tokio::process::Command::new("sh");
        cmd.arg("-c")
            .arg(command)
            .current_dir(cwd)
            .env_clear()
            .env("PATH", PATH)
            .env("HOME", cwd)
            .env("LANG", "C.UTF-8")
            .env("TERM", "dumb")
            .stdin(Stdio::null())
            .stdout(Stdio::from(writer.try_clone()?))
            .stderr(Stdio::from(writer))
            .process_group(0)
            .kill_on_drop(true);
        cmd.spawn()?
        // `cmd` drops here with our copies of the write end, so the pipe ends when the command's do.
    };
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

fn whole_seconds(d: Duration) -> u64 {
    d.as_millis().div_ceil(1000) as u64
}

/// Sends SIGKILL to the whole process group when dropped: on every way out of `run`.
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
