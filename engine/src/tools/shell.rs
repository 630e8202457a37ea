//! `shell`: runs one command line with `sh -c` in the workspace, after a person approves it.
//! Bounded by a timeout and an output cap, with a scrubbed environment; the submodules read command
//! lines for approval rules and risk.

mod command_line;
mod prefix_rule;
mod process;
mod risk;
mod words;
mod write_options;

use std::os::unix::process::ExitStatusExt;
use std::time::Duration;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};

pub use command_line::{plain_commands, split_command, Joiner, PlainCommand, Segment, MAX_LINE_BYTES, MAX_NESTING};
pub use prefix_rule::{check_prefix_rule, matches_prefix_rule, prefix_rule_offer};
pub use risk::shell_risk;
pub use write_options::{risky_option, Effect, RiskyOption, Spelling, RISKY_OPTIONS};

use super::{args, Preview, Risk, Tool, ToolContext, ToolError, ToolOutput, ToolSpec, Workspace};

/// Limits for every command the shell tool runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShellConfig {
    /// The command and everything it started is killed after this long.
    pub timeout: Duration,
    /// Bytes of combined stdout and stderr kept; the rest is dropped with a note.
    pub output_cap: usize,
}

impl Default for ShellConfig {
    fn default() -> Self {
        Self { timeout: Duration::from_secs(30), output_cap: 64 * 1024 }
    }
}

pub struct Shell {
    workspace: Workspace,
    config: ShellConfig,
}

impl Shell {
    pub fn new(workspace: Workspace, config: ShellConfig) -> Self {
        Self { workspace, config }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    command: String,
}

#[async_trait]
impl Tool for Shell {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "shell".into(),
            description: format!(
                "Run a command line with `sh -c` in the workspace folder and return its combined stdout and \
                 stderr followed by the exit code. A person approves each command first. There is no \
                 terminal and no input; the environment holds only PATH, HOME (the workspace), LANG and \
                 TERM. The command is killed after {} s, and output beyond {} KiB is dropped.",
                self.config.timeout.as_secs(),
                self.config.output_cap / 1024
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "command": { "type": "string", "description": "The command line to run, e.g. `cargo test 2>&1 | tail -n 20`." }
                },
                "required": ["command"],
                "additionalProperties": false
            }),
        }
    }

    fn needs_approval(&self, _args: &Value) -> bool {
        true
    }

    fn risk(&self, args: &Value) -> Risk {
        match args::peek::<Args>(args) {
            Some(a) => shell_risk(&a.command),
            None => Risk::High,
        }
    }

    fn summary(&self, args: &Value) -> String {
        match args::peek::<Args>(args) {
            Some(a) => format!("Run `{}` in the workspace", a.command),
            None => "Run a command in the workspace".into(),
        }
    }

    async fn preview(&self, args: &Value) -> Option<Preview> {
        args::peek::<Args>(args).map(|a| Preview::Command { command: a.command })
    }

    async fn call(&self, args: Value, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        let Args { command } = args::parse(args)?;
        if command.contains('\0') {
            return Err(ToolError::InvalidArguments("the command contains a NUL byte".into()));
        }
        let limits = process::Limits { timeout: self.config.timeout, output_cap: self.config.output_cap };
        let done = process::run(&command, self.workspace.root(), limits, &ctx.cancel).await?;
        let mut text = String::from_utf8_lossy(&done.output).into_owned();
        if done.dropped > 0 {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&format!(
                "[output cut at {} bytes; {} more bytes dropped]\n",
                done.output.len(),
                done.dropped
            ));
        }
        let ended = match (done.status.code(), done.status.signal()) {
            (Some(code), _) => format!("exit code: {code}"),
            (None, Some(signal)) => format!("killed by signal {signal}"),
            (None, None) => "ended without an exit code".to_string(),
        };
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&ended);
        Ok(if done.status.success() { ToolOutput::text(text) } else { ToolOutput::error(text) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::test_support::{ctx, text_of};

    fn shell_with(config: ShellConfig) -> (tempfile::TempDir, Shell) {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        (dir, Shell::new(ws, config))
    }

    fn shell() -> (tempfile::TempDir, Shell) {
        shell_with(ShellConfig::default())
    }

    async fn run(shell: &Shell, command: &str) -> ToolOutput {
        shell.call(json!({ "command": command }), ctx()).await.unwrap()
    }

    /// Whether the process is gone (or a zombie nobody has reaped yet), waiting a little for SIGKILL to land.
    async fn is_dead(pid: &str) -> bool {
        for _ in 0..100 {
            match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
                Err(_) => return true,
                Ok(stat) if stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')) => {
                    return true
                }
                Ok(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        }
        false
    }

    async fn wait_for_file(path: &std::path::Path) -> String {
        for _ in 0..200 {
            if let Ok(text) = std::fs::read_to_string(path) {
                if text.ends_with('\n') {
                    return text.trim().to_string();
                }
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("{} never appeared", path.display());
    }

    #[tokio::test]
    async fn runs_in_the_workspace_and_reports_the_exit_code() {
        let (dir, shell) = shell();
        std::fs::write(dir.path().join("hello.txt"), "hi").unwrap();
        let out = run(&shell, "pwd; ls").await;
        assert!(!out.is_error);
        let root = dir.path().canonicalize().unwrap();
        assert_eq!(text_of(&out), format!("{}\nhello.txt\nexit code: 0", root.display()));
    }

    #[tokio::test]
    async fn merges_stdout_and_stderr() {
        let (_dir, shell) = shell();
        let out = run(&shell, "echo out; echo err >&2").await;
        assert_eq!(text_of(&out), "out\nerr\nexit code: 0");
    }

    #[tokio::test]
    async fn non_zero_exit_is_an_error_result() {
        let (_dir, shell) = shell();
        let out = run(&shell, "echo failing; exit 3").await;
        assert!(out.is_error);
        assert_eq!(text_of(&out), "failing\nexit code: 3");
    }

    #[tokio::test]
    async fn environment_is_scrubbed_and_home_is_the_workspace() {
        let (dir, shell) = shell();
        let allowed = ["PATH", "HOME", "LANG", "TERM", "PWD", "OLDPWD", "SHLVL", "_"];
        let leaked = std::env::vars()
            .map(|(k, _)| k)
            .find(|k| !allowed.contains(&k.as_str()) && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
        let leaked = leaked.expect("the test process has some variable of its own");
        let out = run(&shell, &format!("echo \"home=$HOME\"; echo \"leak=${{{leaked}:-none}}\"; env")).await;
        let text = text_of(&out);
        let root = dir.path().canonicalize().unwrap();
        assert!(text.starts_with(&format!("home={}\nleak=none\n", root.display())), "{text}");
        for line in text.lines().skip(2).take_while(|l| !l.starts_with("exit code")) {
            let name = line.split('=').next().unwrap_or_default();
            assert!(allowed.contains(&name), "unexpected variable {line:?}");
        }
        assert!(text.contains("PATH=/usr/local/bin:/usr/bin:/bin\n") && text.contains("TERM=dumb\n"), "{text}");
    }

    #[tokio::test]
    async fn output_beyond_the_cap_is_cut_with_a_note() {
        let (_dir, shell) = shell_with(ShellConfig { output_cap: 1000, ..ShellConfig::default() });
        let out = run(&shell, "head -c 5000 /dev/zero | tr '\\0' a").await;
        let text = text_of(&out);
        assert!(text.starts_with(&"a".repeat(1000)), "{text}");
        assert!(!text.contains(&"a".repeat(1001)));
        assert!(text.ends_with("[output cut at 1000 bytes; 4000 more bytes dropped]\nexit code: 0"), "{text}");
    }

    #[tokio::test]
    async fn timeout_kills_the_whole_process_group() {
        let (dir, shell) = shell_with(ShellConfig { timeout: Duration::from_secs(1), ..ShellConfig::default() });
        let err = shell.call(json!({"command": "sleep 60 & echo $! > bg.pid; sleep 60"}), ctx()).await.unwrap_err();
        assert!(matches!(err, ToolError::Timeout(1)), "{err:?}");
        let pid = wait_for_file(&dir.path().join("bg.pid")).await;
        assert!(is_dead(&pid).await, "background sleep {pid} survived the timeout");
    }

    #[tokio::test]
    async fn cancel_kills_the_running_command() {
        let (dir, shell) = shell();
        let context = ctx();
        let cancel = context.cancel.clone();
        let call =
            tokio::spawn(async move { shell.call(json!({"command": "echo $$ > sh.pid; sleep 60"}), context).await });
        let pid = wait_for_file(&dir.path().join("sh.pid")).await;
        cancel.cancel();
        let result = call.await.unwrap();
        assert!(matches!(result, Err(ToolError::Cancelled)), "{result:?}");
        assert!(is_dead(&pid).await, "shell {pid} survived the cancel");
    }

    #[tokio::test]
    async fn background_jobs_do_not_hold_the_call_open() {
        let (dir, shell) = shell();
        let out = run(&shell, "sleep 60 & echo $! > bg.pid; echo started").await;
        assert_eq!(text_of(&out), "started\nexit code: 0");
        let pid = wait_for_file(&dir.path().join("bg.pid")).await;
        assert!(is_dead(&pid).await, "background sleep {pid} outlived the call");
    }

    #[test]
    fn summary_risk_and_preview_describe_the_command() {
        let (_dir, shell) = shell();
        let args = json!({"command": "rm -rf build"});
        assert_eq!(shell.summary(&args), "Run `rm -rf build` in the workspace");
        assert_eq!(shell.risk(&args), Risk::High);
        assert_eq!(shell.risk(&json!({"command": "ls"})), Risk::Low);
        assert!(shell.needs_approval(&json!({"command": "ls"})));
        let preview = futures::executor::block_on(shell.preview(&args));
        assert_eq!(preview, Some(Preview::Command { command: "rm -rf build".into() }));
    }
}
