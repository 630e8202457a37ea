//! `list_dir`: the entries of one folder in the workspace, sorted, with kinds and sizes.
//! Read-only, so it runs without asking.

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};

use std::collections::BinaryHeap;
use std::os::unix::fs::MetadataExt;

use tokio_util::sync::CancellationToken;

use super::regular_file::{kind, off_thread};
use super::{args, Risk, Tool, ToolContext, ToolError, ToolOutput, ToolSpec, Workspace};

/// At most this many entries are listed; the rest are counted in a note.
pub const MAX_ENTRIES: usize = 1000;

pub struct ListDir {
    workspace: Workspace,
}

impl ListDir {
    pub fn new(workspace: Workspace) -> Self {
        Self { workspace }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    path: String,
}

#[async_trait]
impl Tool for ListDir {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "list_dir".into(),
            description: "List the entries of a folder in the workspace, sorted by name: sub-folders end \
                          with `/`, files show their size in bytes. Paths are relative to the workspace \
                          root; use \".\" for the root itself."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": { "type": "string", "description": "Folder to list, relative to the workspace root." }
                },
                "required": ["path"],
                "additionalProperties": false
            }),
        }
    }

    fn needs_approval(&self, _args: &Value) -> bool {
        false
    }

    fn risk(&self, _args: &Value) -> Risk {
        Risk::Low
    }

    fn summary(&self, args: &Value) -> String {
        match args::peek::<Args>(args) {
            Some(a) => format!("List `{}`", a.path),
            None => "List a folder".into(),
        }
    }

    async fn call(&self, args: Value, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        let Args { path } = args::parse(args)?;
        let workspace = self.workspace.clone();
        off_thread(&ctx.cancel, move |stop| list(&workspace, &path, stop)).await
    }
}

/// Blocking: the first `MAX_ENTRIES` entries by name. Only that many are held at a time (a heap
/// of the smallest names), so a folder with millions of entries costs time, never memory; `stop`
/// ends the reading when the caller gives up.
fn list(workspace: &Workspace, path: &str, stop: &CancellationToken) -> Result<ToolOutput, ToolError> {
    let dir = workspace.resolve(path)?;
    match dir.symlink_metadata() {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Ok(ToolOutput::error(format!("`{path}` does not exist")));
        }
        Err(err) => return Err(err.into()),
        Ok(meta) if meta.is_file() => {
            return Ok(ToolOutput::error(format!("`{path}` is a file, not a folder; use read_file")));
        }
        Ok(meta) if !meta.is_dir() => {
            return Ok(ToolOutput::error(format!("`{path}` is {}, not a folder", kind(meta.file_type()))));
        }
        Ok(_) => {}
    }
    let reader = match std::fs::read_dir(&dir) {
        Ok(reader) => reader,
        Err(err) if err.kind() == std::io::ErrorKind::NotADirectory => {
            return Ok(ToolOutput::error(format!("`{path}` is a file, not a folder; use read_file")));
        }
        Err(err) => return Err(err.into()),
    };
    // Warden's own files are not listed (a workspace may hold the data dir); `dir` is resolved, so an
    // entry's path is its real place, but for an entry that is itself a link (shown as one, not followed).
    let private = workspace.private_now();
    let mut kept: BinaryHeap<(String, std::path::PathBuf)> = BinaryHeap::new();
    let mut total = 0usize;
    for entry in reader {
        if stop.is_cancelled() {
            return Err(ToolError::Cancelled);
        }
        let entry = entry?;
        if private.iter().any(|p| entry.path().starts_with(p)) {
            continue;
        }
        total += 1;
        let name = entry.file_name().to_string_lossy().into_owned();
        if kept.len() == MAX_ENTRIES {
            if kept.peek().is_some_and(|(largest, _)| name >= *largest) {
                continue;
            }
            kept.pop();
        }
        kept.push((name, entry.path()));
    }
    let entries = kept.into_sorted_vec();
    let mut text = if total == 0 { format!("`{path}` is empty") } else { String::new() };
    let shown: Vec<String> = entries
        .into_iter()
        // symlink_metadata: show links as links rather than following them out of the workspace.
        .map(|(name, full)| match full.symlink_metadata() {
            Ok(meta) if meta.is_dir() => format!("{name}/"),
            Ok(meta) if meta.is_symlink() => format!("{name} -> (symbolic link)"),
            // A file with other names may be one outside the workspace: write_file refuses it.
            Ok(meta) if meta.is_file() && meta.nlink() > 1 => {
                format!("{name} ({} bytes; hard link, {} names)", meta.len(), meta.nlink())
            }
            Ok(meta) if meta.is_file() => format!("{name} ({} bytes)", meta.len()),
            Ok(meta) => format!("{name} ({})", kind(meta.file_type())),
            Err(_) => format!("{name} (unreadable)"),
        })
        .collect();
    text.push_str(&shown.join("\n"));
    if total > MAX_ENTRIES {
        text.push_str(&format!("\n[{} more entries not shown]", total - MAX_ENTRIES));
    }
    Ok(ToolOutput::text(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{ctx, text_of};

    fn tool() -> (tempfile::TempDir, ListDir) {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        (dir, ListDir::new(ws))
    }

    #[tokio::test]
    async fn lists_entries_sorted_with_kind_and_size() {
        let (dir, tool) = tool();
        std::fs::write(dir.path().join("b.txt"), "hello").unwrap();
        std::fs::create_dir(dir.path().join("a-dir")).unwrap();
        std::fs::write(dir.path().join("c.md"), "").unwrap();
        let out = tool.call(json!({"path": "."}), ctx()).await.unwrap();
        assert!(!out.is_error);
        assert_eq!(text_of(&out), "a-dir/\nb.txt (5 bytes)\nc.md (0 bytes)");
    }

    #[tokio::test]
    async fn caps_long_listings_with_a_note() {
        let (dir, tool) = tool();
        for i in 0..MAX_ENTRIES + 5 {
            std::fs::write(dir.path().join(format!("f{i:05}")), "").unwrap();
        }
        let out = tool.call(json!({"path": ""}), ctx()).await.unwrap();
        let text = text_of(&out);
        assert_eq!(text.lines().count(), MAX_ENTRIES + 1);
        assert!(text.ends_with("[5 more entries not shown]"), "{text}");
    }

    #[tokio::test]
    async fn refuses_paths_outside_the_workspace() {
        let (_dir, tool) = tool();
        let err = tool.call(json!({"path": "../"}), ctx()).await.unwrap_err();
        assert!(matches!(err, ToolError::PathEscapesWorkspace(_)), "{err:?}");
    }

    #[tokio::test]
    async fn missing_folder_and_file_are_reported_to_the_model() {
        let (dir, tool) = tool();
        std::fs::write(dir.path().join("f.txt"), "x").unwrap();
        let missing = tool.call(json!({"path": "nope"}), ctx()).await.unwrap();
        assert!(missing.is_error && text_of(&missing).contains("does not exist"));
        let file = tool.call(json!({"path": "f.txt"}), ctx()).await.unwrap();
        assert!(file.is_error && text_of(&file).contains("not a folder"));
    }
}
