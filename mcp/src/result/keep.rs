//! Keeping a cut tool result whole on disk (`<results dir>/<server>/<time>-<n>-<tool>.json`, the
//! MCP JSON as received), so a person can read what the model was not given. Bounded: a result
//! over `kept_bytes` is not kept, and each server keeps its newest [`KEPT_PER_SERVER`] files.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{PoisonError, RwLock};
use std::time::{SystemTime, UNIX_EPOCH};

use rmcp::model::CallToolResult;

use super::cap::ResultLimits;
use crate::config::sanitize_name;

/// Files kept per server; the oldest go first.
pub const KEPT_PER_SERVER: usize = 100;

/// Where the full result went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Kept {
    At(PathBuf),
    /// Over `kept_bytes`; dropped.
    TooLarge {
        bytes: usize,
    },
    /// No results directory is set.
    Nowhere,
    Failed(String),
}

/// Settings shared by every clone of the hub and every tool it hands out.
#[derive(Default)]
pub(crate) struct ResultKeeper {
    settings: RwLock<Settings>,
    /// Tells apart results written in the same millisecond.
    sequence: AtomicU64,
}

#[derive(Default, Clone)]
struct Settings {
    dir: Option<PathBuf>,
    limits: ResultLimits,
}

impl ResultKeeper {
    pub fn set_dir(&self, dir: PathBuf) {
        self.write().dir = Some(dir);
    }

    pub fn set_limits(&self, limits: ResultLimits) {
        self.write().limits = limits;
    }

    pub fn limits(&self) -> ResultLimits {
        self.read().limits
    }

    /// Writes the result under its server's folder, if it is small enough and a folder is set.
    pub async fn keep(&self, server: &str, tool: &str, result: &CallToolResult) -> Kept {
        let Settings { dir, limits } = self.read().clone();
        let Some(dir) = dir else {
            return Kept::Nowhere;
        };
        let json = match serde_json::to_vec(result) {
            Ok(json) => json,
            Err(e) => return Kept::Failed(e.to_string()),
        };
        if json.len() > limits.kept_bytes {
            return Kept::TooLarge { bytes: json.len() };
        }
        // Server names are already safe path parts; tool names come from the server.
        let folder = dir.join(sanitize_name(server));
        let millis = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis());
        let sequence = self.sequence.fetch_add(1, Ordering::Relaxed);
        let path = folder.join(format!("{millis:015}-{sequence:06}-{}.json", sanitize_name(tool)));
        match write_new(&folder, &path, &json).await {
            Ok(()) => {
                prune(&folder).await;
                Kept::At(path)
            }
            Err(e) => {
                tracing::warn!(mcp_server = %server, path = %path.display(), "could not keep a cut result: {e}");
                Kept::Failed(e.to_string())
            }
        }
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Settings> {
        self.settings.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Settings> {
        self.settings.write().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Creates the folder (private to Warden's user) and a new file; never overwrites one.
async fn write_new(folder: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use tokio::io::AsyncWriteExt;
    let mut builder = tokio::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    builder.mode(0o700);
    builder.create(folder).await?;
    let mut options = tokio::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    options.mode(0o600);
    let mut file = options.open(path).await?;
    file.write_all(bytes).await?;
    file.flush().await
}

/// Deletes the oldest files beyond [`KEPT_PER_SERVER`] (names start with the time, so name order
/// is age order). Best effort: a file that cannot be removed is left for next time.
async fn prune(folder: &Path) {
    let Ok(mut entries) = tokio::fs::read_dir(folder).await else {
        return;
    };
    let mut names = Vec::new();
    while let Ok(Some(entry)) = entries.next_entry().await {
        names.push(entry.file_name());
    }
    if names.len() <= KEPT_PER_SERVER {
        return;
    }
    names.sort();
    for name in &names[..names.len() - KEPT_PER_SERVER] {
        let _ = tokio::fs::remove_file(folder.join(name)).await;
    }
}
