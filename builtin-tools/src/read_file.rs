//! `read_file`: the text of one file in the workspace (invalid UTF-8 replaced), capped in size.
//! Read-only, so it runs without asking.

use super::regular_file::{off_thread, open_for_read, read_capped, Opened};
use super::{args, Risk, Tool, ToolContext, ToolError, ToolOutput, ToolSpec, Workspace};
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};

/// Larger files are cut here, with a note, so one call cannot flood the model's context.
pub const MAX_BYTES: u64 = 256 * 1024;

pub struct ReadFile {
    workspace: Workspace,
}

impl ReadFile {
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
impl Tool for ReadFile {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "read_file".into(),
            description: format!(
                "Read a text file in the workspace and return its content. Paths are relative to the \
                 workspace root. Files over {} KiB are cut off with a note; binary files are not shown.",
                MAX_BYTES / 1024
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": { "type": "string", "description": "File to read, relative to the workspace root." }
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
            Some(a) => format!("Read `{}`", a.path),
            None => "Read a file".into(),
        }
    }

    async fn call(&self, args: Value, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        let Args { path } = args::parse(args)?;
        let workspace = self.workspace.clone();
        off_thread(&ctx.cancel, move |_| read(&workspace, &path)).await
    }
}

/// Blocking: resolves the path and reads at most `MAX_BYTES` of a regular file.
fn read(workspace: &Workspace, path: &str) -> Result<ToolOutput, ToolError> {
    let file_path = workspace.resolve(path)?;
    let (mut file, meta) = match open_for_read(&file_path)? {
        Opened::File(file, meta) => (file, meta),
        Opened::Missing => return Ok(ToolOutput::error(format!("`{path}` does not exist"))),
        Opened::NotRegular("a folder") => {
            return Ok(ToolOutput::error(format!("`{path}` is a folder, not a file; use list_dir to see its entries")));
        }
        Opened::NotRegular(kind) => {
            return Ok(ToolOutput::error(format!("`{path}` is {kind}, not a regular file; it is not read")));
        }
    };
    let bytes = read_capped(&mut file, MAX_BYTES)?;
    if bytes.contains(&0) {
        return Ok(ToolOutput::error(format!("`{path}` looks like a binary file ({} bytes); not shown", meta.len())));
    }
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    if meta.len() > MAX_BYTES {
        text.push_str(&format!("\n[file cut at {MAX_BYTES} of {} bytes]", meta.len()));
    }
    Ok(ToolOutput::text(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{ctx, text_of};

    fn tool() -> (tempfile::TempDir, ReadFile) {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        (dir, ReadFile::new(ws))
    }

    #[tokio::test]
    async fn reads_text_and_replaces_invalid_utf8() {
        let (dir, tool) = tool();
        std::fs::create_dir(dir.path().join("notes")).unwrap();
        std::fs::write(dir.path().join("notes/a.txt"), b"caf\xc3\xa9 \xff end").unwrap();
        let out = tool.call(json!({"path": "notes/a.txt"}), ctx()).await.unwrap();
        assert!(!out.is_error);
        assert_eq!(text_of(&out), "café \u{FFFD} end");
    }

    #[tokio::test]
    async fn refuses_directories_clearly() {
        let (dir, tool) = tool();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let out = tool.call(json!({"path": "sub"}), ctx()).await.unwrap();
        assert!(out.is_error);
        assert!(text_of(&out).contains("is a folder"), "{}", text_of(&out));
    }

    #[tokio::test]
    async fn refuses_paths_and_links_outside_the_workspace() {
        let (dir, tool) = tool();
        let err = tool.call(json!({"path": "/etc/passwd"}), ctx()).await.unwrap_err();
        assert!(matches!(err, ToolError::PathEscapesWorkspace(_)), "{err:?}");
        std::os::unix::fs::symlink("/etc/passwd", dir.path().join("pw")).unwrap();
        let err = tool.call(json!({"path": "pw"}), ctx()).await.unwrap_err();
        assert!(matches!(err, ToolError::PathEscapesWorkspace(_)), "{err:?}");
    }

    #[tokio::test]
    async fn cuts_large_files_with_a_note() {
        let (dir, tool) = tool();
        std::fs::write(dir.path().join("big.txt"), "a".repeat(MAX_BYTES as usize + 10)).unwrap();
        let text = text_of(&tool.call(json!({"path": "big.txt"}), ctx()).await.unwrap());
        assert!(text.starts_with(&"a".repeat(MAX_BYTES as usize)));
        assert!(
            text.ends_with(&format!("[file cut at {MAX_BYTES} of {} bytes]", MAX_BYTES + 10)),
            "{}",
            &text[text.len() - 80..]
        );
    }

    #[tokio::test]
    async fn a_fifo_in_the_workspace_is_refused_at_once_not_read() {
        let (dir, tool) = tool();
        let fifo = std::ffi::CString::new(dir.path().join("pipe").into_os_string().into_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0, "mkfifo");
        // No writer opens the FIFO while the tool runs: a blocking open or read would never return.
        // If one does hang, the guard opens the writing end on the way out so the test ends.
        struct Unblock(std::ffi::CString);
        impl Drop for Unblock {
            fn drop(&mut self) {
                unsafe { libc::close(libc::open(self.0.as_ptr(), libc::O_WRONLY | libc::O_NONBLOCK)) };
            }
        }
        let _unblock = Unblock(fifo);
        let out = tokio::time::timeout(std::time::Duration::from_secs(10), tool.call(json!({"path": "pipe"}), ctx()))
            .await
            .expect("read_file returns instead of hanging on a FIFO")
            .unwrap();
        assert!(out.is_error);
        assert!(text_of(&out).contains("is a FIFO (named pipe), not a regular file"), "{}", text_of(&out));
    }

    #[tokio::test]
    async fn missing_file_is_reported_to_the_model() {
        let (_dir, tool) = tool();
        let out = tool.call(json!({"path": "nope.txt"}), ctx()).await.unwrap();
        assert!(out.is_error && text_of(&out).contains("does not exist"));
    }
}
