//! `write_file`: create or replace one file in the workspace, making parent folders as needed.
//! Always asks first; the approval card shows a unified diff against the current content.

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};

use tokio_util::sync::CancellationToken;

use super::regular_file::{self, hash_and_head, off_thread, open_for_read, Opened, WriteRefused, ABSENT};
use super::{args, Preview, Risk, Tool, ToolContext, ToolError, ToolOutput, ToolSpec, Workspace};

pub struct WriteFile {
    workspace: Workspace,
}

impl WriteFile {
    pub fn new(workspace: Workspace) -> Self {
        Self { workspace }
    }

    /// Whether the call would replace a file that is there now; `None` if the path is refused.
    fn overwrites(&self, path: &str) -> Option<bool> {
        self.workspace.resolve(path).ok().map(|p| p.exists())
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    path: String,
    content: String,
}

#[async_trait]
impl Tool for WriteFile {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "write_file".into(),
            description: "Write text to a file in the workspace, replacing the whole file if it exists and \
                          creating missing parent folders. Paths are relative to the workspace root. A person \
                          approves each write after seeing the diff."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": { "type": "string", "description": "File to write, relative to the workspace root." },
                    "content": { "type": "string", "description": "The complete new content of the file." }
                },
                "required": ["path", "content"],
                "additionalProperties": false
            }),
        }
    }

    fn needs_approval(&self, _args: &Value) -> bool {
        true
    }

    fn risk(&self, args: &Value) -> Risk {
        match args::peek::<Args>(args).and_then(|a| self.overwrites(&a.path)) {
            Some(false) => Risk::Medium,
            Some(true) | None => Risk::High,
        }
    }

    fn summary(&self, args: &Value) -> String {
        let Some(a) = args::peek::<Args>(args) else {
            return "Write a file".into();
        };
        let what = match self.overwrites(&a.path) {
            Some(false) => "new file",
            Some(true) => "overwrites existing file",
            None => "outside the workspace; will be refused",
        };
        format!("Write {} bytes to `{}` ({what})", a.content.len(), a.path)
    }

    async fn preview(&self, args: &Value) -> Option<Preview> {
        self.preview_with_state(args).await.0
    }

    async fn preview_with_state(&self, args: &Value) -> (Option<Preview>, Option<String>) {
        let Some(a) = args::peek::<Args>(args) else { return (None, None) };
        let workspace = self.workspace.clone();
        let work = move || -> Result<(Preview, String), ToolError> {
            let target = workspace.resolve(&a.path)?;
            let (state, diff) = match open_for_read(&target)? {
                Opened::Missing => (ABSENT.to_string(), diff(&a.path, "", &a.content)),
                Opened::NotRegular(kind) => (
                    format!("not-a-file: {kind}"),
                    format!("`{}` is {kind}, not a regular file: the write will be refused", a.path),
                ),
                Opened::File(mut file, meta) => {
                    let (state, head) = hash_and_head(&mut file, MAX_DIFF_BYTES as usize)?;
                    let diff = if meta.len() > MAX_DIFF_BYTES || head.contains(&0) {
                        format!(
                            "(the current `{}` is {} bytes{}: no diff shown; the write replaces it with {} bytes)",
                            a.path,
                            meta.len(),
                            if head.contains(&0) { " of binary data" } else { "" },
                            a.content.len()
                        )
                    } else {
                        diff(&a.path, &String::from_utf8_lossy(&head), &a.content)
                    };
                    (state, diff)
                }
            };
            Ok((Preview::Diff { path: a.path, diff }, state))
        };
        match off_thread(&CancellationToken::new(), work).await {
            Ok((preview, state)) => (Some(preview), Some(state)),
            // A path outside the workspace: no card material; the call itself is refused when run.
            Err(ToolError::PathEscapesWorkspace(_)) => (None, None),
            Err(e) => {
                tracing::warn!(error = %e, "write_file preview failed");
                (None, None)
            }
        }
    }

    async fn call(&self, args: Value, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        self.write(args, ctx, None).await
    }

    async fn call_if_unchanged(&self, args: Value, ctx: ToolContext, expected: &str) -> Result<ToolOutput, ToolError> {
        self.write(args, ctx, Some(expected.to_string())).await
    }
}

impl WriteFile {
    async fn write(&self, args: Value, ctx: ToolContext, expected: Option<String>) -> Result<ToolOutput, ToolError> {
        let Args { path, content } = args::parse(args)?;
        let workspace = self.workspace.clone();
        off_thread(&ctx.cancel, move || {
            let target = workspace.resolve(&path)?;
            if target.is_dir() {
                return Ok(ToolOutput::error(format!("`{path}` is a folder; give a file path")));
            }
            // `resolve` left only plain, not yet existing names after the last real folder, so this stays inside.
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)?;
            }
            match regular_file::write(&target, content.as_bytes(), expected.as_deref())? {
                Ok(existed) => {
                    let what = if existed { "replaced existing file" } else { "new file" };
                    Ok(ToolOutput::text(format!("Wrote {} bytes to `{path}` ({what})", content.len())))
                }
                Err(WriteRefused::NotRegular(kind)) => {
                    Ok(ToolOutput::error(format!("`{path}` is {kind}, not a regular file; nothing was written")))
                }
                Err(WriteRefused::Changed { now }) => Err(ToolError::TargetChanged { now }),
            }
        })
        .await
    }
}

/// Files up to this size get a diff on the card; larger ones a note.
const MAX_DIFF_BYTES: u64 = 512 * 1024;

fn diff(path: &str, current: &str, new: &str) -> String {
    similar::TextDiff::configure()
        .timeout(std::time::Duration::from_secs(2))
        .diff_lines(current, new)
        .unified_diff()
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::test_support::{ctx, text_of};

    fn tool() -> (tempfile::TempDir, WriteFile) {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        (dir, WriteFile::new(ws))
    }

    #[tokio::test]
    async fn creates_a_new_file_and_its_parent_folders() {
        let (dir, tool) = tool();
        let args = json!({"path": "notes/deep/todo.md", "content": "- milk\n"});
        assert_eq!(tool.risk(&args), Risk::Medium);
        assert_eq!(tool.summary(&args), "Write 7 bytes to `notes/deep/todo.md` (new file)");
        let out = tool.call(args, ctx()).await.unwrap();
        assert!(!out.is_error, "{out:?}");
        assert_eq!(std::fs::read_to_string(dir.path().join("notes/deep/todo.md")).unwrap(), "- milk\n");
    }

    #[tokio::test]
    async fn overwriting_is_high_risk_and_replaces_the_content() {
        let (dir, tool) = tool();
        std::fs::write(dir.path().join("a.txt"), "old\n").unwrap();
        let args = json!({"path": "a.txt", "content": "new\n"});
        assert_eq!(tool.risk(&args), Risk::High);
        assert_eq!(tool.summary(&args), "Write 4 bytes to `a.txt` (overwrites existing file)");
        tool.call(args, ctx()).await.unwrap();
        assert_eq!(std::fs::read_to_string(dir.path().join("a.txt")).unwrap(), "new\n");
    }

    #[tokio::test]
    async fn preview_is_a_unified_diff_against_the_current_content() {
        let (dir, tool) = tool();
        std::fs::write(dir.path().join("a.txt"), "one\ntwo\nthree\n").unwrap();
        let preview = tool.preview(&json!({"path": "a.txt", "content": "one\n2\nthree\n"})).await;
        let Some(Preview::Diff { path, diff }) = preview else { panic!("expected a diff, got {preview:?}") };
        assert_eq!(path, "a.txt");
        assert_eq!(diff, "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n");
    }

    #[tokio::test]
    async fn preview_of_a_new_file_adds_every_line() {
        let (_dir, tool) = tool();
        let preview = tool.preview(&json!({"path": "n.txt", "content": "a\nb\n"})).await;
        let Some(Preview::Diff { diff, .. }) = preview else { panic!("expected a diff, got {preview:?}") };
        assert!(diff.contains("@@ -0,0 +1,2 @@\n+a\n+b\n"), "{diff}");
    }

    #[tokio::test]
    async fn refuses_to_write_outside_the_workspace() {
        let (dir, tool) = tool();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
        for path in ["../escape.txt", "out/escape.txt"] {
            let args = json!({"path": path, "content": "x"});
            assert_eq!(tool.risk(&args), Risk::High);
            let err = tool.call(args, ctx()).await.unwrap_err();
            assert!(matches!(err, ToolError::PathEscapesWorkspace(_)), "{err:?}");
        }
        assert!(!outside.path().join("escape.txt").exists());
        assert!(!dir.path().parent().unwrap().join("escape.txt").exists());
    }

    #[tokio::test]
    async fn a_fifo_is_never_opened_for_writing_or_previewed() {
        let (dir, tool) = tool();
        let fifo = std::ffi::CString::new(dir.path().join("pipe").into_os_string().into_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0, "mkfifo");
        let args = json!({"path": "pipe", "content": "x"});
        let guard = std::time::Duration::from_secs(10);
        let (preview, state) =
            tokio::time::timeout(guard, tool.preview_with_state(&args)).await.expect("preview returns");
        assert!(
            matches!(preview, Some(Preview::Diff { ref diff, .. }) if diff.contains("not a regular file")),
            "{preview:?}"
        );
        assert!(state.unwrap().starts_with("not-a-file"));
        let out = tokio::time::timeout(guard, tool.call(args, ctx())).await.expect("write returns").unwrap();
        assert!(out.is_error && text_of(&out).contains("FIFO"), "{}", text_of(&out));
    }

    #[tokio::test]
    async fn refuses_to_replace_a_folder() {
        let (dir, tool) = tool();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let out = tool.call(json!({"path": "sub", "content": "x"}), ctx()).await.unwrap();
        assert!(out.is_error && text_of(&out).contains("is a folder"));
        assert!(dir.path().join("sub").is_dir());
    }
}
