//! The server's side of the spawner: sends requests, and a thread of its own reads the answers and
//! hands each to whoever waits for it (the start of a command, or its end).

use std::collections::HashMap;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::ExitStatus;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::oneshot;

use super::wire::{self, Reply, Request};
use crate::Policy;

/// Why a command was not started through the spawner.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    /// The spawner cannot take it (it is gone, or the request is too big to send): start the command
    /// another way.
    #[error("the spawner is not available: {0}")]
    Unavailable(String),
    /// The command itself could not start (no such program, a sandbox that could not be set up).
    #[error("{0}")]
    Start(String),
}

/// One command to start: its program (found on the `PATH` of `env` when it has no `/`), arguments,
/// whole environment, directory, output descriptors (stdin is `/dev/null`) and sandbox (`None`:
/// unconfined). It runs in a session of its own (away from the server's terminal), so in a process
/// group of its own, whose id is its pid.
pub struct Launch<'a> {
    pub program: &'a Path,
    pub args: &'a [String],
    pub env: &'a [(String, String)],
    pub cwd: &'a Path,
    pub stdout: BorrowedFd<'a>,
    pub stderr: BorrowedFd<'a>,
    pub policy: Option<&'a Policy>,
}

/// A command the spawner started.
#[derive(Debug)]
pub struct Spawned {
    pid: i32,
    exit: oneshot::Receiver<i32>,
}

impl Spawned {
    /// Its pid, which is also its process group's id.
    pub fn id(&self) -> u32 {
        self.pid as u32
    }

    /// Waits for it to end. Poll it again only if it has not answered yet.
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        match (&mut self.exit).await {
            Ok(status) => Ok(ExitStatus::from_raw(status)),
            Err(_) => Err(io::Error::other("the spawner ended before the command did")),
        }
    }
}

type Started = Result<Spawned, String>;

#[derive(Default)]
struct Waiting {
    starts: HashMap<u64, oneshot::Sender<Started>>,
    ends: HashMap<i32, oneshot::Sender<i32>>,
    gone: bool,
}

/// The handle on the spawner process.
pub struct Spawner {
    socket: Arc<OwnedFd>,
    waiting: Arc<Mutex<Waiting>>,
    next_id: AtomicU64,
}

impl Spawner {
    pub(crate) fn new(socket: OwnedFd) -> io::Result<Self> {
        let socket = Arc::new(socket);
        let waiting = Arc::new(Mutex::new(Waiting::default()));
        let (reader_socket, reader_waiting) = (socket.clone(), waiting.clone());
        std::thread::Builder::new()
            .name("warden-spawner-replies".into())
            .spawn(move || read_replies(&reader_socket, &reader_waiting))?;
        Ok(Self { socket, waiting, next_id: AtomicU64::new(1) })
    }

    /// Starts `launch`; answers once its program has been executed (or could not be).
    pub async fn spawn(&self, launch: Launch<'_>) -> Result<Spawned, SpawnError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let request = Request {
            id,
            program: launch.program.to_path_buf(),
            args: launch.args.to_vec(),
            env: launch.env.to_vec(),
            cwd: launch.cwd.to_path_buf(),
            policy: launch.policy.cloned(),
        };
        let (tx, rx) = oneshot::channel();
        {
            let mut waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
            if waiting.gone {
                return Err(SpawnError::Unavailable("it has ended".into()));
            }
            waiting.starts.insert(id, tx);
        }
        let fds = [launch.stdout.as_raw_fd(), launch.stderr.as_raw_fd()];
        if let Err(error) = wire::send(&self.socket, &request, &fds) {
            self.waiting.lock().unwrap_or_else(PoisonError::into_inner).starts.remove(&id);
            return Err(SpawnError::Unavailable(error.to_string()));
        }
        match rx.await {
            Ok(Ok(spawned)) => Ok(spawned),
            Ok(Err(error)) => Err(SpawnError::Start(error)),
            Err(_) => Err(SpawnError::Unavailable("it ended before answering".into())),
        }
    }
}

/// Hands each answer to its waiter until the spawner is gone; then fails everyone still waiting.
fn read_replies(socket: &OwnedFd, waiting: &Mutex<Waiting>) {
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        match wire::recv::<Reply>(socket, &mut buffer) {
            Ok(Some((reply, _))) => deliver(reply, waiting),
            Err(error) if error.kind() == io::ErrorKind::InvalidData => {
                tracing::warn!(%error, "an answer of the spawner could not be read");
            }
            Ok(None) | Err(_) => break,
        }
    }
    tracing::warn!("the spawner has ended; commands start from the server from now on");
    let mut waiting = waiting.lock().unwrap_or_else(PoisonError::into_inner);
    waiting.gone = true;
    waiting.starts.clear();
    waiting.ends.clear();
}

fn deliver(reply: Reply, waiting: &Mutex<Waiting>) {
    let mut waiting = waiting.lock().unwrap_or_else(PoisonError::into_inner);
    match reply {
        Reply::Started { id, pid } => {
            let (tx, exit) = oneshot::channel();
            waiting.ends.insert(pid, tx);
            let taken = waiting.starts.remove(&id).map(|start| start.send(Ok(Spawned { pid, exit })));
            if !matches!(taken, Some(Ok(()))) {
                // Nobody waits for it any more (the call was dropped while it started): end it.
                waiting.ends.remove(&pid);
                // SAFETY: killpg only sends a signal to the group the spawner just made.
                unsafe {
                    libc::killpg(pid, libc::SIGKILL);
                }
            }
        }
        Reply::Failed { id, error } => {
            if let Some(start) = waiting.starts.remove(&id) {
                let _ = start.send(Err(error));
            }
        }
        Reply::Exited { pid, status } => {
            if let Some(end) = waiting.ends.remove(&pid) {
                let _ = end.send(status);
            }
        }
    }
}
