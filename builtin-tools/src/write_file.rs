//! `write_file`: create or replace one file in the workspace, making parent folders as needed.
//! Always asks first; the approval card shows a unified diff against the current content, and names
//! the file that is written (where a symbolic link takes the path, the link's target). A file with
//! other names (a hard link) or over `MAX_STATE_BYTES` is never written, and the card says so.

use std::path::PathBuf;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};

use tokio_util::sync::CancellationToken;

use super::regular_file::{
    self, hash_and_head, off_thread, open_for_read, too_large, Opened, WriteRefused, ABSENT, MAX_STATE_BYTES,
};
use super::{args, Preview, Risk, Tool, ToolContext, ToolError, ToolOutput, ToolSpec, Workspace};

pub struct WriteFile {
    workspace: Workspace,
}

impl WriteFile {
    pub fn new(workspace: Workspace) -> Self {
        Self { workspace }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    path: String,
    content: String,
}

/// Where a write to a path lands, as the card and the result name it.
struct Target {
    /// The resolved path.
    path: PathBuf,
    /// The path shown: as given, or (relative to the root) where a symbolic link takes it.
    shown: String,
    /// The name given, when a symbolic link took the write to `shown`.
    via_link: Option<String>,
}

impl Target {
    fn resolve(workspace: &Workspace, given: &str) -> Result<Target, ToolError> {
        let (path, through) = workspace.resolve_shown(given)?;
        Ok(match through {
            Some(real) => Target { path, shown: real, via_link: Some(given.to_string()) },
            None => Target { path, shown: given.to_string(), via_link: None },
        })
    }

    /// "`shown`", with the link it was reached through.
    fn named(&self) -> String {
        match &self.via_link {
            Some(link) => format!("`{}` through the symbolic link `{link}`", self.shown),
            None => format!("`{}`", self.shown),
        }
    }
}

/// What is at a target now, as far as the card needs it (read from metadata; no content is read).
enum Found {
    New,
    File,
    /// A file with other names; writing it would change them too (they may lie outside the workspace).
    HardLinked(u64),
    TooLarge(u64),
    NotRegular(&'static str),
}

fn found(target: &Target) -> Found {
    use std::os::unix::fs::MetadataExt;
    match target.path.symlink_metadata() {
        Err(_) => Found::New,
        Ok(meta) if !meta.file_type().is_file() => Found::NotRegular(regular_file::kind(meta.file_type())),
        Ok(meta) if meta.nlink() > 1 => Found::HardLinked(meta.nlink()),
        Ok(meta) if meta.len() > MAX_STATE_BYTES => Found::TooLarge(meta.len()),
        Ok(_) => Found::File,
    }
}

/// Why a write to a path that is there will not happen, in words for the card and the model.
fn refusal(shown: &str, why: &WriteRefused) -> Option<String> {
    match why {
        WriteRefused::HardLinked(links) => Some(format!(
            "`{shown}` is a hard link ({links} names for one file; another name may be a file outside the \
             workspace, such as a package store's copy): write_file does not write it. Remove it first, or \
             write another path"
        )),
        WriteRefused::TooLarge(len) => Some(format!(
            "`{shown}` is {len} bytes, over the {} MiB write_file checks and previews: it is not written",
            MAX_STATE_BYTES >> 20
        )),
        WriteRefused::NotRegular(kind) => Some(format!("`{shown}` is {kind}, not a regular file")),
        WriteRefused::Changed { .. } => None,
    }
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
        let target = args::peek::<Args>(args).and_then(|a| Target::resolve(&self.workspace, &a.path).ok());
        match target.map(|t| found(&t)) {
            Some(Found::New) => Risk::Medium,
            _ => Risk::High,
        }
    }

    fn summary(&self, args: &Value) -> String {
        let Some(a) = args::peek::<Args>(args) else {
            return "Write a file".into();
        };
        let bytes = byte_count(a.content.len());
        let target = match Target::resolve(&self.workspace, &a.path) {
            Ok(target) => target,
            Err(ToolError::PrivatePath(_)) => {
                return format!("Write {bytes} to `{}` (one of Warden's private files; will be refused)", a.path)
            }
            Err(_) => return format!("Write {bytes} to `{}` (outside the workspace; will be refused)", a.path),
        };
        let what = match found(&target) {
            Found::New => "new file".to_string(),
            Found::File => "overwrites existing file".to_string(),
            Found::HardLinked(links) => format!("a hard link with {links} names; will be refused"),
            Found::TooLarge(len) => format!("the file is {len} bytes, too large; will be refused"),
            Found::NotRegular(kind) => format!("{kind}; will be refused"),
        };
        format!("Write {bytes} to {} ({what})", target.named())
    }

    async fn preview(&self, args: &Value) -> Option<Preview> {
        self.preview_with_state(args).await.0
    }

    async fn preview_with_state(&self, args: &Value) -> (Option<Preview>, Option<String>) {
        let Some(a) = args::peek::<Args>(args) else { return (None, None) };
        let workspace = self.workspace.clone();
        let work = move |stop: &CancellationToken| -> Result<(Preview, String), ToolError> {
            let target = Target::resolve(&workspace, &a.path)?;
            let shown = target.shown.clone();
            let link_note = match &target.via_link {
                Some(link) => format!("(`{link}` is a symbolic link: this writes `{shown}`)\n"),
                None => String::new(),
            };
            let refused = |why: WriteRefused, state: String| {
                let text = refusal(&shown, &why).unwrap_or_default();
                (format!("{link_note}({text}; the write will be refused)"), state)
            };
            let (diff, state) = match open_for_read(&target.path)? {
                Opened::Missing => (format!("{link_note}{}", diff(&shown, "", &a.content)), ABSENT.to_string()),
                Opened::NotRegular(kind) => refused(WriteRefused::NotRegular(kind), format!("not-a-file: {kind}")),
                Opened::File(mut file, meta) => {
                    use std::os::unix::fs::MetadataExt;
                    if meta.nlink() > 1 {
                        // Bound to the content all the same, so the card is asked again if it changes.
                        let state = hash_and_head(&mut file, 0, stop)?.0;
                        refused(WriteRefused::HardLinked(meta.nlink()), state)
                    } else if meta.len() > MAX_STATE_BYTES {
                        // Sized from its metadata: not a byte of it is read.
                        refused(WriteRefused::TooLarge(meta.len()), too_large(meta.len()))
                    } else {
                        let (state, head) = hash_and_head(&mut file, MAX_DIFF_BYTES as usize, stop)?;
                        let diff = if meta.len() > MAX_DIFF_BYTES || head.contains(&0) {
                            format!(
                                "(the current `{shown}` is {} bytes{}: no diff shown; the write replaces it with {} \
                                 bytes)",
                                meta.len(),
                                if head.contains(&0) { " of binary data" } else { "" },
                                a.content.len()
                            )
                        } else {
                            diff(&shown, &String::from_utf8_lossy(&head), &a.content)
                        };
                        (format!("{link_note}{diff}"), state)
                    }
                }
            };
            Ok((Preview::Diff { path: shown, diff }, state))
        };
        // Dropped with its caller's timeout: the reading then stops (see `off_thread`).
        match off_thread(&CancellationToken::new(), work).await {
            Ok((preview, state)) => (Some(preview), Some(state)),
            // A path outside the workspace or a private one: no card material; the call is refused when run.
            Err(ToolError::PathEscapesWorkspace(_) | ToolError::PrivatePath(_)) => (None, None),
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

    fn state_after(&self, args: &Value) -> Option<String> {
        args::peek::<Args>(args).map(|a| regular_file::state_of_bytes(a.content.as_bytes()))
    }
}

impl WriteFile {
    async fn write(&self, args: Value, ctx: ToolContext, expected: Option<String>) -> Result<ToolOutput, ToolError> {
        let Args { path, content } = args::parse(args)?;
        let workspace = self.workspace.clone();
        off_thread(&ctx.cancel, move |stop| {
            let target = Target::resolve(&workspace, &path)?;
            if target.path.is_dir() {
                return Ok(ToolOutput::error(format!("`{}` is a folder; give a file path", target.shown)));
            }
            // `resolve` left only plain, not yet existing names after the last real folder, so this stays inside.
            if let Some(parent) = target.path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            match regular_file::write(&target.path, content.as_bytes(), expected.as_deref(), stop)? {
                Ok(existed) => {
                    let what = if existed { "replaced existing file" } else { "new file" };
                    Ok(ToolOutput::text(format!("Wrote {} to {} ({what})", byte_count(content.len()), target.named())))
                }
                Err(WriteRefused::Changed { now }) => Err(ToolError::TargetChanged { now }),
                Err(why) => Ok(ToolOutput::error(format!(
                    "{}; nothing was written",
                    refusal(&target.shown, &why).unwrap_or_default()
                ))),
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

/// "1 byte", "12 bytes".
fn byte_count(n: usize) -> String {
    if n == 1 {
        "1 byte".to_string()
    } else {
        format!("{n} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{ctx, text_of};

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
        let one = serde_json::json!({"path": "a.txt", "content": "x"});
        assert_eq!(tool.summary(&one), "Write 1 byte to `a.txt` (overwrites existing file)");
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
