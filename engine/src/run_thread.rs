//! The thread runs are driven on: a current-thread Tokio runtime of their own. A streamed turn
//! costs a socket read, an SSE parse and some bookkeeping per token; on one thread the model
//! connection, the parser and the driver hand tokens to each other without cross-thread wake-ups,
//! and the server's own workers stay free for pages and API requests. Whatever a run hands on
//! (events to SSE clients, decisions coming in) crosses threads once per frame or decision, not
//! per token.

use std::future::Future;

use tokio::runtime::{Builder, Handle};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub struct RunThread {
    handle: Handle,
    tasks: TaskTracker,
}

impl RunThread {
    /// Starts the thread. After `stop` is cancelled it waits for the tasks it runs to end (they
    /// watch the same token), then its runtime ends with the thread.
    pub fn start(stop: CancellationToken) -> std::io::Result<Self> {
        let runtime = Builder::new_current_thread().enable_all().build()?;
        let handle = runtime.handle().clone();
        let tasks = TaskTracker::new();
        let tracked = tasks.clone();
        std::thread::Builder::new().name("warden-runs".into()).spawn(move || {
            runtime.block_on(async move {
                stop.cancelled().await;
                tracked.close();
                tracked.wait().await;
            });
        })?;
        Ok(Self { handle, tasks })
    }

    /// Runs `task` on the run thread.
    pub fn spawn<F>(&self, task: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        self.tasks.spawn_on(task, &self.handle);
    }
}
