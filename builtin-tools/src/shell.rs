//! `shell`: runs one command line with `sh -c` in the workspace, after a person approves it.
//! Confined by `warden-sandbox` (writes only in the workspace, nothing of Warden's data readable, no
//! network unless granted, no process left behind), bounded by a timeout and an output cap, with a
//! minimal environment; the submodules read command lines for approval rules and risk.

mod argv;
mod command_line;
mod prefix_rule;
mod process;
mod risk;
mod words;
mod wrappers;
mod write_options;

use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::time::Duration;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};

pub use command_line::{plain_commands, split_command, Joiner, PlainCommand, Segment, MAX_LINE_BYTES, MAX_NESTING};
pub use prefix_rule::{check_prefix_rule, matches_prefix_rule, prefix_rule_offer};
pub use risk::shell_risk;
pub use wrappers::{is_wrapper, read_chain, Chain, End, Input};
pub use write_options::{risky_option, Effect, RiskyOption, Spelling, RISKY_OPTIONS};

use warden_sandbox::{Policy, Scratch};

use super::{args, Preview, Risk, Tool, ToolContext, ToolError, ToolOutput, ToolSpec, Workspace};

/// Limits and confinement for every command the shell tool runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellConfig {
    /// The command and everything it started is killed after this long.
    pub timeout: Duration,
    /// Bytes of combined stdout and stderr kept; the rest is dropped with a note.
    pub output_cap: usize,
    /// Paths no command may read or write (Warden's data dir, see `Config::private_paths`); the
    /// workspace stays open even when it lies inside one.
    pub hidden: Vec<PathBuf>,
    /// Every command may use the network (`WARDEN_SHELL_NETWORK=1`); otherwise only a call whose
    /// `ToolContext::network` is set.
    pub network: bool,
}

impl Default for ShellConfig {
    fn default() -> Self {
        Self { timeout: Duration::from_secs(30), output_cap: 64 * 1024, hidden: Vec::new(), network: false }
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
                 stderr followed by the exit code. A person approves each command first. It runs in a \
                 sandbox: it can write only inside the workspace (and its own HOME and TMPDIR), {} and \
                 every process it starts ends with it. There is no terminal and no input; the environment \
                 holds only PATH, HOME (a fresh empty folder), TMPDIR, LANG, TERM and settings that keep \
                 git from reading global config. The command is killed after {} s, and output beyond {} \
                 KiB is dropped.",
                if self.config.network {
                    "it may use the network,"
                } else {
                    "it has no network access unless the person grants it for that call,"
                },
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

    fn runs_sandboxed_commands(&self) -> bool {
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
        let scratch = Scratch::new()?;
        let cwd = self.workspace.root();
        let sandbox = warden_sandbox::status();
        // Without a sandbox the command runs only because a person approved this very call (the gate
        // sends no rule-approved call here then), and the result says so.
        let policy = sandbox.available.then(|| {
            Policy::new(vec![cwd.to_path_buf()], self.config.hidden.clone())
                .with_scratch(&scratch)
                .with_network(self.config.network || ctx.network)
        });
        let setup = process::Setup { cwd, scratch: &scratch, policy: policy.as_ref() };
        let done = process::run(&command, setup, limits, &ctx.cancel).await?;
        drop(scratch);
        let mut text = String::new();
        if policy.is_none() {
            text.push_str(&format!("[ran WITHOUT a sandbox: {}]\n", sandbox.detail));
        }
        text.push_str(&String::from_utf8_lossy(&done.output));
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
    use crate::test_support::{ctx, text_of};
    use std::path::Path;

    /// A data dir holding a database file and the workspace, as Warden lays them out.
    struct Fixture {
        _dir: tempfile::TempDir,
        data: PathBuf,
        workspace: PathBuf,
        shell: Shell,
    }

    fn shell_with(config: ShellConfig) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().canonicalize().unwrap().join("data");
        let workspace = data.join("workspace");
        std::fs::create_dir_all(&workspace).unwrap();
        std::fs::write(data.join("warden.db"), "mcp-secret-value").unwrap();
        let ws = Workspace::new(&workspace).unwrap();
        let shell = Shell::new(ws, ShellConfig { hidden: vec![data.clone()], ..config });
        Fixture { _dir: dir, data, workspace, shell }
    }

    fn shell() -> Fixture {
        shell_with(ShellConfig::default())
    }

    /// Whether commands run confined here; if not, says so loudly so a skipped test is seen.
    fn sandboxed() -> bool {
        let status = warden_sandbox::status();
        if !status.available {
            eprintln!("\n!!! SKIPPED: no sandbox on this machine: {} !!!\n", status.detail);
        }
        status.available
    }

    async fn run(shell: &Shell, command: &str) -> ToolOutput {
        shell.call(json!({ "command": command }), ctx()).await.unwrap()
    }

    /// An argument for `sleep` that no other process has, to find that sleep by its command line.
    fn unique_sleep() -> String {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        format!("600.{}{n:03}", std::process::id())
    }

    /// Shell code that waits until the sandbox's own `/proc` shows a process running `sleep {token}` (the
    /// pattern does not match grep's own command line).
    fn wait_inside(token: &str) -> String {
        let pattern = token.replace('.', "[.]");
        format!("while ! grep -qs '{pattern}' /proc/[0-9]*/cmdline; do sleep 0.01; done")
    }

    /// Whether a live (not zombie) process on the host runs `sleep {token}`.
    fn alive_with(token: &str) -> bool {
        let Ok(entries) = std::fs::read_dir("/proc") else { return false };
        entries.flatten().any(|entry| {
            let dir = entry.path();
            let cmdline = std::fs::read(dir.join("cmdline")).unwrap_or_default();
            let zombie = std::fs::read_to_string(dir.join("stat"))
                .is_ok_and(|stat| stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')));
            !zombie && String::from_utf8_lossy(&cmdline).contains(token)
        })
    }

    /// Whether every process running `sleep {token}` is gone, waiting (generously: two cores shared with
    /// builds) for SIGKILL to land.
    async fn gone(token: &str) -> bool {
        for _ in 0..600 {
            if !alive_with(token) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        false
    }

    async fn started(token: &str) {
        for _ in 0..600 {
            if alive_with(token) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("`sleep {token}` never started");
    }

    #[tokio::test]
    async fn runs_in_the_workspace_and_reports_the_exit_code() {
        let f = shell();
        std::fs::write(f.workspace.join("hello.txt"), "hi").unwrap();
        let out = run(&f.shell, "pwd; ls").await;
        assert!(!out.is_error, "{}", text_of(&out));
        assert_eq!(text_of(&out), format!("{}\nhello.txt\nexit code: 0", f.workspace.display()));
    }

    #[tokio::test]
    async fn merges_stdout_and_stderr() {
        let f = shell();
        let out = run(&f.shell, "echo out; echo err >&2").await;
        assert_eq!(text_of(&out), "out\nerr\nexit code: 0");
    }

    #[tokio::test]
    async fn non_zero_exit_is_an_error_result() {
        let f = shell();
        let out = run(&f.shell, "echo failing; exit 3").await;
        assert!(out.is_error);
        assert_eq!(text_of(&out), "failing\nexit code: 3");
    }

    /// Changed on purpose with the sandbox: `HOME` used to be the workspace, where a planted
    /// `.gitconfig` was git's global config; now it is a fresh empty folder outside the workspace,
    /// removed after the call, and git's global and system config are switched off.
    #[tokio::test]
    async fn environment_is_scrubbed_and_home_is_fresh_empty_and_outside_the_workspace() {
        if !sandboxed() {
            return;
        }
        let f = shell();
        let allowed =
            ["PATH", "HOME", "TMPDIR", "LANG", "TERM", "PWD", "OLDPWD", "SHLVL", "_", "GIT_CEILING_DIRECTORIES"];
        let leaked = std::env::vars().map(|(k, _)| k).find(|k| {
            !allowed.contains(&k.as_str())
                && !k.starts_with("GIT_")
                && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
        let leaked = leaked.expect("the test process has some variable of its own");
        let script = format!(
            "echo \"home=$HOME\"; echo \"leak=${{{leaked}:-none}}\"; echo \"in-home=$(ls -A \"$HOME\" | wc -l)\"; \
             touch \"$HOME/made\" \"$TMPDIR/made\" && echo writable; env"
        );
        let text = text_of(&run(&f.shell, &script).await);
        let home = text.lines().next().and_then(|l| l.strip_prefix("home=")).unwrap_or_default().to_string();
        assert!(home.starts_with('/') && !Path::new(&home).starts_with(&f.workspace), "{text}");
        assert!(!Path::new(&home).starts_with(&f.data), "{text}");
        assert!(text.contains("\nleak=none\nin-home=0\nwritable\n"), "{text}");
        for line in text.lines().skip(4).take_while(|l| !l.starts_with("exit code")) {
            let name = line.split('=').next().unwrap_or_default();
            assert!(allowed.contains(&name) || name.starts_with("GIT_"), "unexpected variable {line:?}");
        }
        assert!(text.contains("PATH=/usr/local/bin:/usr/bin:/bin\n") && text.contains("TERM=dumb\n"), "{text}");
        assert!(!Path::new(&home).exists(), "the private HOME {home} outlived the call");
    }

    #[tokio::test]
    async fn git_ignores_a_gitconfig_planted_in_the_workspace() {
        if !sandboxed() {
            return;
        }
        let f = shell();
        std::fs::write(f.workspace.join(".gitconfig"), "[alias]\n\tx = !echo planted-alias-ran\n").unwrap();
        let out = run(&f.shell, "git config --global --get alias.x; echo \"status=$?\"").await;
        let text = text_of(&out);
        assert!(!text.contains("planted-alias-ran"), "{text}");
        assert!(text.starts_with("status=1\n"), "{text}");
    }

    #[tokio::test]
    async fn a_write_outside_the_workspace_is_refused_and_inside_it_works() {
        if !sandboxed() {
            return;
        }
        let f = shell();
        let outside = f.data.parent().unwrap().join("escaped.txt");
        let out = run(&f.shell, &format!("echo in > inside.txt; echo out > {}", outside.display())).await;
        assert!(out.is_error, "{}", text_of(&out));
        assert!(text_of(&out).contains("Permission denied"), "{}", text_of(&out));
        assert_eq!(std::fs::read_to_string(f.workspace.join("inside.txt")).unwrap(), "in\n");
        assert!(!outside.exists(), "the command wrote outside the workspace");
    }

    #[tokio::test]
    async fn the_database_one_level_up_is_unreadable() {
        if !sandboxed() {
            return;
        }
        let f = shell();
        std::fs::write(f.workspace.join("mine.txt"), "readable").unwrap();
        let out = run(&f.shell, "cat mine.txt; echo; cat ../warden.db").await;
        let text = text_of(&out);
        assert!(out.is_error && text.starts_with("readable\n"), "{text}");
        assert!(!text.contains("mcp-secret-value"), "{text}");
    }

    #[tokio::test]
    async fn network_is_off_unless_the_call_or_the_server_config_grants_it() {
        if !sandboxed() {
            return;
        }
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let connect = format!("bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port}' && echo connected");
        let f = shell();
        let out = run(&f.shell, &connect).await;
        assert!(out.is_error && !text_of(&out).contains("connected"), "{}", text_of(&out));
        assert!(
            tokio::time::timeout(Duration::from_millis(300), listener.accept()).await.is_err(),
            "the listener saw a connection from a command without network"
        );

        let granted = ToolContext { network: true, ..ctx() };
        let out = f.shell.call(json!({ "command": connect }), granted).await.unwrap();
        assert!(text_of(&out).contains("connected"), "{}", text_of(&out));
        assert!(tokio::time::timeout(Duration::from_secs(10), listener.accept()).await.is_ok());

        let server_wide = shell_with(ShellConfig { network: true, ..ShellConfig::default() });
        let out = run(&server_wide.shell, &connect).await;
        assert!(text_of(&out).contains("connected"), "{}", text_of(&out));
    }

    #[tokio::test]
    async fn the_servers_environment_and_processes_are_out_of_reach_through_proc() {
        if !sandboxed() {
            return;
        }
        let f = shell();
        // The test process is the server here; its environment is whatever the server was started with.
        let me = std::process::id();
        let own = std::fs::read(format!("/proc/{me}/environ")).unwrap();
        assert!(!own.is_empty());
        let out =
            run(&f.shell, &format!("cat /proc/{me}/environ | wc -c; cat /proc/{me}/cmdline; ls /proc | grep -x {me}"))
                .await;
        let text = text_of(&out);
        assert!(out.is_error && text.lines().any(|l| l == "0"), "{text}");
        assert!(!text.contains("warden"), "the server's command line was readable: {text}");
    }

    #[tokio::test]
    async fn a_setsid_child_is_dead_when_the_call_returns() {
        let f = shell();
        let token = unique_sleep();
        let command = format!("setsid sh -c 'exec sleep {token}' & {}; echo started", wait_inside(&token));
        let out = run(&f.shell, &command).await;
        assert_eq!(text_of(&out), "started\nexit code: 0");
        assert!(gone(&token).await, "the setsid child `sleep {token}` outlived the call");
    }

    #[tokio::test]
    async fn output_beyond_the_cap_is_cut_with_a_note() {
        let f = shell_with(ShellConfig { output_cap: 1000, ..ShellConfig::default() });
        let out = run(&f.shell, "head -c 5000 /dev/zero | tr '\\0' a").await;
        let text = text_of(&out);
        assert!(text.starts_with(&"a".repeat(1000)), "{text}");
        assert!(!text.contains(&"a".repeat(1001)));
        assert!(text.ends_with("[output cut at 1000 bytes; 4000 more bytes dropped]\nexit code: 0"), "{text}");
    }

    #[tokio::test]
    async fn timeout_kills_the_whole_process_group() {
        let f = shell_with(ShellConfig { timeout: Duration::from_secs(1), ..ShellConfig::default() });
        let token = unique_sleep();
        let command = format!("sleep {token} & {}; sleep 60", wait_inside(&token));
        let err = f.shell.call(json!({ "command": command }), ctx()).await.unwrap_err();
        assert!(matches!(err, ToolError::Timeout(1)), "{err:?}");
        assert!(gone(&token).await, "background `sleep {token}` survived the timeout");
    }

    #[tokio::test]
    async fn cancel_kills_the_running_command() {
        let f = shell();
        let context = ctx();
        let cancel = context.cancel.clone();
        let token = unique_sleep();
        let command = format!("sleep {token}");
        let call = tokio::spawn(async move { f.shell.call(json!({ "command": command }), context).await });
        started(&token).await;
        cancel.cancel();
        let result = call.await.unwrap();
        assert!(matches!(result, Err(ToolError::Cancelled)), "{result:?}");
        assert!(gone(&token).await, "`sleep {token}` survived the cancel");
    }

    #[tokio::test]
    async fn background_jobs_do_not_hold_the_call_open() {
        let f = shell();
        let token = unique_sleep();
        let out = run(&f.shell, &format!("sleep {token} & {}; echo started", wait_inside(&token))).await;
        assert_eq!(text_of(&out), "started\nexit code: 0");
        assert!(gone(&token).await, "background `sleep {token}` outlived the call");
    }

    #[test]
    fn summary_risk_and_preview_describe_the_command() {
        let f = shell();
        let shell = &f.shell;
        let args = json!({"command": "rm -rf build"});
        assert_eq!(shell.summary(&args), "Run `rm -rf build` in the workspace");
        assert_eq!(shell.risk(&args), Risk::High);
        assert_eq!(shell.risk(&json!({"command": "ls"})), Risk::Low);
        assert!(shell.needs_approval(&json!({"command": "ls"})));
        let preview = futures::executor::block_on(shell.preview(&args));
        assert_eq!(preview, Some(Preview::Command { command: "rm -rf build".into() }));
    }

    #[test]
    fn the_description_tells_the_model_it_is_sandboxed() {
        let f = shell();
        let description = f.shell.spec().description;
        assert!(description.contains("sandbox") && description.contains("no network access"), "{description}");
    }
}
