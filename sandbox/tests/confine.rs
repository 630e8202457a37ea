//! The sandbox against the real kernel: real `sh` commands, a real TCP listener, the real `/proc`.
//! Each test skips with a loud message only where `status().available` is false.
//!
//! Every test runs twice: with the command forked from this process ([`confine`] on a `Command`), and
//! started by the spawner (a process forked before this one had a second thread, which is why this
//! file has its own `main`). Then the spawner's own behaviour: who the parent is, a program that is
//! not there, and what happens to commands when the spawner is killed.
#![allow(
    clippy::unwrap_used,
    reason = "test code: a test fails where it unwraps; clippy.toml's allow-unwrap-in-tests covers only #[test] fns, not the helpers"
)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use std::io::Read;
use std::os::fd::{AsFd, BorrowedFd};

use warden_sandbox::spawner::{self, Launch, SpawnError, Spawned};
use warden_sandbox::{confine, status, Policy, Scratch};

/// How a test's commands are started.
#[derive(Debug, Clone, Copy)]
enum Via {
    Fork,
    Spawner,
}

/// A data dir with a database file and a workspace inside it, as Warden lays them out.
struct Layout {
    _root: tempfile::TempDir,
    data: PathBuf,
    workspace: PathBuf,
    scratch: Scratch,
}

fn layout() -> Layout {
    let root = tempfile::tempdir().unwrap();
    let data = root.path().canonicalize().unwrap().join("data");
    let workspace = data.join("workspace");
    std::fs::create_dir_all(&workspace).unwrap();
    std::fs::write(data.join("warden.db"), "mcp secret").unwrap();
    Layout { _root: root, data, workspace, scratch: Scratch::new().unwrap() }
}

impl Layout {
    fn policy(&self) -> Policy {
        Policy::new(vec![self.workspace.clone()], vec![self.data.clone()]).with_scratch(&self.scratch)
    }
}

/// Whether the sandbox can run here; if not, says so loudly so the skip is seen.
fn available() -> bool {
    let status = status();
    if !status.available {
        eprintln!("\n!!! SKIPPED: no sandbox on this machine: {} !!!\n", status.detail);
    }
    status.available
}

/// Runs `script` with `sh -c` in `cwd`, confined by `policy`; its exit code and combined output.
async fn run(via: Via, policy: &Policy, cwd: &Path, script: &str) -> (Option<i32>, String) {
    match via {
        Via::Fork => run_forked(policy, cwd, script).await,
        Via::Spawner => run_spawned(policy, cwd, script).await,
    }
}

const TEST_ENV: [(&str, &str); 1] = [("PATH", "/usr/local/bin:/usr/bin:/bin")];

/// Asks the spawner to start `program` with `args` in `cwd`, confined by `policy` (`None`: unconfined),
/// its stdout and stderr going to `out`.
async fn spawn(
    program: &str,
    args: &[String],
    cwd: &Path,
    out: BorrowedFd<'_>,
    policy: Option<&Policy>,
) -> Result<Spawned, SpawnError> {
    let env: Vec<(String, String)> = TEST_ENV.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let launch = Launch { program: Path::new(program), args, env: &env, cwd, stdout: out, stderr: out, policy };
    spawner::get().expect("the spawner runs").spawn(launch).await
}

async fn run_spawned(policy: &Policy, cwd: &Path, script: &str) -> (Option<i32>, String) {
    let (mut reader, writer) = std::io::pipe().unwrap();
    let args = ["-c".to_string(), script.to_string()];
    let mut child = spawn("sh", &args, cwd, writer.as_fd(), Some(policy)).await.unwrap();
    drop(writer);
    let output = tokio::task::spawn_blocking(move || {
        let mut text = Vec::new();
        reader.read_to_end(&mut text).map(|_| text)
    });
    let status = tokio::time::timeout(Duration::from_secs(30), child.wait()).await.unwrap().unwrap();
    let text = tokio::time::timeout(Duration::from_secs(30), output).await.unwrap().unwrap().unwrap();
    (status.code(), String::from_utf8_lossy(&text).into_owned())
}

async fn run_forked(policy: &Policy, cwd: &Path, script: &str) -> (Option<i32>, String) {
    let mut cmd = tokio::process::Command::new("sh");
    cmd.arg("-c").arg(script).current_dir(cwd).env_clear().envs(TEST_ENV).stdin(Stdio::null()).kill_on_drop(true);
    confine(&mut cmd, policy).unwrap();
    let out = tokio::time::timeout(Duration::from_secs(30), cmd.output()).await.unwrap().unwrap();
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    (out.status.code(), text)
}

async fn writes_land_in_the_workspace_and_nowhere_else(via: Via) {
    if !available() {
        return;
    }
    let l = layout();
    let outside = l.data.parent().unwrap().join("outside.txt");
    let script = format!("echo in > inside.txt && echo out > {}", outside.display());
    let (code, text) = run(via, &l.policy(), &l.workspace, &script).await;
    assert_ne!(code, Some(0), "{text}");
    assert!(text.contains("Permission denied"), "{text}");
    assert_eq!(std::fs::read_to_string(l.workspace.join("inside.txt")).unwrap(), "in\n");
    assert!(!outside.exists(), "a confined command wrote outside the workspace");
}

async fn the_data_dir_around_the_workspace_is_unreadable_but_the_workspace_is_readable(via: Via) {
    if !available() {
        return;
    }
    let l = layout();
    std::fs::write(l.workspace.join("notes.txt"), "mine").unwrap();
    let (code, text) = run(via, &l.policy(), &l.workspace, "cat notes.txt; echo; cat ../warden.db").await;
    assert_ne!(code, Some(0), "{text}");
    assert!(text.starts_with("mine\n"), "{text}");
    assert!(!text.contains("mcp secret"), "the database was readable: {text}");
    let (code, text) = run(via, &l.policy(), &l.workspace, "ls ..").await;
    assert_ne!(code, Some(0), "the data dir could be listed: {text}");
    // The rest of the system stays readable.
    let (code, text) = run(via, &l.policy(), &l.workspace, "head -c 4 /etc/passwd").await;
    assert_eq!(code, Some(0), "{text}");
}

/// The split around the data dir is kept between commands while the directories it listed are unchanged:
/// a file that appears beside the data dir afterwards is readable by the next command, and the data dir
/// stays hidden, also when it is made again under the same name.
async fn what_changes_beside_the_data_dir_is_seen_by_the_next_command(via: Via) {
    if !available() {
        return;
    }
    let l = layout();
    let beside = l.data.parent().unwrap().join("later.txt");
    let (code, text) = run(via, &l.policy(), &l.workspace, &format!("cat {}", beside.display())).await;
    assert_ne!(code, Some(0), "{text}");
    std::fs::write(&beside, "appeared").unwrap();
    let (code, text) = run(via, &l.policy(), &l.workspace, &format!("cat {}", beside.display())).await;
    assert_eq!((code, text.as_str()), (Some(0), "appeared"));
    // The data dir replaced by a new one of the same name (another inode): hidden all the same.
    let old = l.data.with_file_name("data-old");
    std::fs::rename(&l.data, &old).unwrap();
    std::fs::create_dir_all(&l.workspace).unwrap();
    std::fs::write(l.data.join("warden.db"), "new secret").unwrap();
    let script = format!("ls {}; cat {}", old.display(), l.data.join("warden.db").display());
    let (code, text) = run(via, &l.policy(), &l.workspace, &script).await;
    assert_ne!(code, Some(0), "{text}");
    assert!(!text.contains("new secret"), "the new data dir was readable: {text}");
    assert!(text.contains("warden.db"), "the old data dir, no longer hidden, was not listed: {text}");
}

/// The spawner builds the next command's ruleset ahead, from the last one's policy, once it has been
/// idle a moment (the pause here gives it that); a workspace moved away (into the hidden data dir) and
/// made anew under the same name since is not what it grants: the new one is writable, the old one is not.
async fn a_workspace_made_anew_between_commands_is_the_one_granted(via: Via) {
    if !available() {
        return;
    }
    let l = layout();
    let (code, text) = run(via, &l.policy(), &l.workspace, "echo one > a.txt").await;
    assert_eq!(code, Some(0), "{text}");
    tokio::time::sleep(Duration::from_millis(100)).await;
    let old = l.data.join("workspace-old");
    std::fs::rename(&l.workspace, &old).unwrap();
    std::fs::create_dir(&l.workspace).unwrap();
    let script = format!("echo two > b.txt; echo three > {}", old.join("c.txt").display());
    let (code, text) = run(via, &l.policy(), &l.workspace, &script).await;
    assert_ne!(code, Some(0), "{text}");
    assert_eq!(std::fs::read_to_string(l.workspace.join("b.txt")).unwrap(), "two\n", "{text}");
    assert!(!old.join("c.txt").exists(), "the old workspace, now inside the data dir, was written: {text}");
}

/// Every command is PID 1 of a PID namespace of its own, also where the spawner made its sandbox ahead
/// of time: no sandbox serves two commands.
async fn each_command_gets_a_pid_namespace_of_its_own(via: Via) {
    if !available() {
        return;
    }
    let l = layout();
    let mut seen = Vec::new();
    for _ in 0..3 {
        let (code, text) = run(via, &l.policy(), &l.workspace, "echo $$; readlink /proc/self/ns/pid").await;
        assert_eq!(code, Some(0), "{text}");
        let (pid, namespace) = text.split_once('\n').unwrap_or_default();
        assert_eq!(pid, "1", "{text}");
        assert!(namespace.starts_with("pid:["), "{text}");
        assert!(!seen.contains(&namespace.to_string()), "a PID namespace served twice: {text}");
        seen.push(namespace.to_string());
    }
}

async fn the_servers_environment_is_unreadable_through_proc(via: Via) {
    if !available() {
        return;
    }
    let l = layout();
    // A process started the way the server was, with a model key in its environment.
    let secret = format!("sk-test-{}", std::process::id());
    let mut server = tokio::process::Command::new("sleep")
        .arg("60")
        .env("WARDEN_TEST_MODEL_KEY", &secret)
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let pid = server.id().unwrap();
    // Until it has exec'd, the forked child still shows the test's own environment.
    let mut has_key = false;
    for _ in 0..200 {
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        has_key = String::from_utf8_lossy(&environ).contains(&secret);
        if has_key {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(has_key, "the stand-in has no key to steal");
    let script = format!("cat /proc/{pid}/environ; cat /proc/{pid}/cmdline; ls /proc | grep -x {pid}");
    let (code, text) = run(via, &l.policy(), &l.workspace, &script).await;
    server.kill().await.unwrap();
    assert!(!text.contains(&secret), "the server's environment leaked: {text}");
    assert!(!text.contains("sleep"), "another process's command line was readable: {text}");
    assert_ne!(code, Some(0), "the server's pid is visible in the sandbox's /proc: {text}");
}

async fn a_tcp_connect_is_refused_without_network_and_allowed_with_it(via: Via) {
    if !available() {
        return;
    }
    let l = layout();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    // bash's /dev/tcp would need bash; python3 may be absent: use the shell's own tools (a script in perl
    // is as rare), so connect with `exec 3<>/dev/tcp` only if bash exists, else with python3.
    let connect = connect_script(port);
    let (code, text) = run(via, &l.policy(), &l.workspace, &connect).await;
    assert_ne!(code, Some(0), "{text}");
    let accepted = tokio::time::timeout(Duration::from_millis(300), listener.accept()).await;
    assert!(accepted.is_err(), "the listener saw a connection from a sandbox without network");

    let (code, text) = run(via, &l.policy().with_network(true), &l.workspace, &connect).await;
    assert_eq!(code, Some(0), "{text}");
    let accepted = tokio::time::timeout(Duration::from_secs(10), listener.accept()).await;
    assert!(accepted.is_ok_and(|a| a.is_ok()), "a sandbox with network could not connect");
}

fn connect_script(port: u16) -> String {
    format!(
        "if command -v bash >/dev/null; then bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port}'; \
         else python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}))'; fi"
    )
}

async fn a_setsid_child_does_not_outlive_the_command(via: Via) {
    if !available() {
        return;
    }
    let l = layout();
    // A sleep no other process has: found on the host's /proc by its command line.
    let token = format!("600.{}", std::process::id());
    let pattern = token.replace('.', "[.]");
    let script = format!(
        "setsid sh -c 'exec sleep {token}' & \
         while ! grep -qs '{pattern}' /proc/[0-9]*/cmdline; do sleep 0.01; done; echo started"
    );
    let (code, text) = run(via, &l.policy(), &l.workspace, &script).await;
    assert_eq!((code, text.as_str()), (Some(0), "started\n"));
    assert!(gone(&token).await, "the setsid child `sleep {token}` outlived the command");
}

async fn the_command_keeps_its_uid_but_has_no_capabilities_even_as_root(via: Via) {
    if !available() {
        return;
    }
    let l = layout();
    let (code, text) =
        run(via, &l.policy(), &l.workspace, "id -u; grep -E '^Cap(Eff|Prm|Bnd)' /proc/self/status").await;
    assert_eq!(code, Some(0), "{text}");
    // SAFETY: geteuid cannot fail.
    let uid = unsafe { libc_geteuid() };
    assert!(text.starts_with(&format!("{uid}\n")), "{text}");
    for line in text.lines().skip(1) {
        assert!(line.ends_with("0000000000000000"), "a capability is left: {line}");
    }
}

extern "C" {
    #[link_name = "geteuid"]
    fn libc_geteuid() -> u32;
}

/// Whether every host process whose command line holds `token` is gone (or a zombie), waiting a little
/// for the kernel to finish them.
async fn gone(token: &str) -> bool {
    for _ in 0..600 {
        if !alive_with(token) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

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

/// Confined commands share one network namespace (see `shared_ns`): neither a socket of another
/// command nor one of the host is reachable by its abstract unix name.
async fn abstract_unix_sockets_of_the_host_and_of_other_commands_are_out_of_reach(via: Via) {
    if !available() {
        return;
    }
    if std::process::Command::new("python3").arg("-V").output().is_err() {
        eprintln!("\n!!! SKIPPED: no python3 to open abstract unix sockets with !!!\n");
        return;
    }
    use std::os::linux::net::SocketAddrExt;
    let l = layout();
    let name = format!("warden-test-{}", std::process::id());
    let host = std::os::unix::net::SocketAddr::from_abstract_name(format!("{name}-host").as_bytes()).unwrap();
    let _host_listener = std::os::unix::net::UnixListener::bind_addr(&host).unwrap();
    let connect = |which: &str| {
        format!(
            "python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect(\"\\0{name}-{which}\"); print(\"connected\")'"
        )
    };

    // Another confined command listens while this one tries to connect.
    let listen = format!(
        "python3 -c 'import socket, time; s = socket.socket(socket.AF_UNIX); s.bind(\"\\0{name}-peer\"); \
         s.listen(); print(\"listening\", flush=True); time.sleep(10)'"
    );
    let policy = l.policy();
    let mut listener = tokio::process::Command::new("sh");
    listener.arg("-c").arg(&listen).env_clear().env("PATH", "/usr/bin:/bin").stdout(Stdio::piped()).kill_on_drop(true);
    confine(&mut listener, &policy).unwrap();
    let mut listener = listener.spawn().unwrap();
    let mut out = tokio::io::BufReader::new(listener.stdout.take().unwrap());
    let mut line = String::new();
    tokio::time::timeout(Duration::from_secs(20), tokio::io::AsyncBufReadExt::read_line(&mut out, &mut line))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(line.trim(), "listening");

    for which in ["host", "peer"] {
        let (code, text) = run(via, &policy, &l.workspace, &connect(which)).await;
        assert_ne!(code, Some(0), "reached the {which}'s abstract socket: {text}");
        assert!(!text.contains("connected"), "{text}");
    }
    // The same connect succeeds unconfined, so the refusals above are the sandbox's doing.
    let unconfined = std::process::Command::new("sh").arg("-c").arg(connect("host")).output().unwrap();
    assert!(String::from_utf8_lossy(&unconfined.stdout).contains("connected"), "{unconfined:?}");
    listener.kill().await.unwrap();
}

/// A unix socket listening at `path` (its folders made as needed), removed with its folders when dropped.
struct Listening {
    _listener: std::os::unix::net::UnixListener,
    path: PathBuf,
    made: Vec<PathBuf>,
}

impl Listening {
    fn at(path: PathBuf) -> Option<Self> {
        let mut made = Vec::new();
        let mut missing: Vec<PathBuf> =
            path.ancestors().skip(1).take_while(|d| !d.exists()).map(Path::to_path_buf).collect();
        missing.reverse();
        for dir in missing {
            std::fs::create_dir(&dir).ok()?;
            made.push(dir);
        }
        let listener = std::os::unix::net::UnixListener::bind(&path).ok();
        let listening = Self { _listener: listener?, path, made };
        Some(listening)
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
        for dir in self.made.iter().rev() {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// Pathname unix sockets of the machine (a session bus in `/run/user`, tmux, ssh-agent, X11, Docker's
/// daemon in `/run`) are out of a confined command's reach, though they listen and it may read
/// their folders; one in the workspace, which the person opened to it, is not.
async fn pathname_unix_sockets_of_the_machine_are_out_of_reach(via: Via) {
    if !available() {
        return;
    }
    if std::process::Command::new("python3").arg("-V").output().is_err() {
        eprintln!("\n!!! SKIPPED: no python3 to connect to unix sockets with !!!\n");
        return;
    }
    let l = layout();
    let id = std::process::id();
    let places = [
        format!("/run/user/warden-test-{id}/bus"),
        format!("/run/warden-test-{id}.sock"),
        format!("/run/warden-test-{id}/daemon.sock"),
        format!("/tmp/tmux-warden-test-{id}/default"),
        format!("/tmp/ssh-warden-test-{id}/agent.1"),
        format!("/tmp/.X11-unix/X{id}"),
        format!("/tmp/warden-test-{id}.sock"),
    ];
    let listening: Vec<Listening> = places.iter().filter_map(|p| Listening::at(PathBuf::from(p))).collect();
    let skipped: Vec<&String> = places.iter().filter(|p| !listening.iter().any(|l| l.path == Path::new(p))).collect();
    if !skipped.is_empty() {
        eprintln!("\n!!! not tried (this user cannot listen there): {skipped:?} !!!\n");
    }
    assert!(listening.len() >= 3, "too few places to listen in: {skipped:?}");
    let own = Listening::at(l.workspace.join("own.sock")).unwrap();
    let connect = |path: &Path| {
        format!(
            "python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print(\"connected\")' {}",
            path.display()
        )
    };
    for socket in &listening {
        let (code, text) = run(via, &l.policy(), &l.workspace, &connect(&socket.path)).await;
        assert!(code != Some(0) && !text.contains("connected"), "reached {}: {text}", socket.path.display());
        // The same connect succeeds unconfined: the refusal is the sandbox's doing.
        let unconfined = std::process::Command::new("sh").arg("-c").arg(connect(&socket.path)).output().unwrap();
        assert!(String::from_utf8_lossy(&unconfined.stdout).contains("connected"), "{unconfined:?}");
    }
    let (code, text) = run(via, &l.policy(), &l.workspace, &connect(&own.path)).await;
    assert_eq!((code, text.trim()), (Some(0), "connected"), "the workspace's own socket");
}

/// A confined command started by the spawner is the spawner's child (not this process's), reports its
/// exit code, and a program that is not there is refused as a start error.
async fn the_spawner_starts_commands_as_its_own_children() {
    if !available() {
        return;
    }
    let l = layout();
    let (code, text) = run(Via::Spawner, &l.policy(), &l.workspace, "echo $PPID; exit 3").await;
    assert_eq!(code, Some(3), "{text}");
    let (mut reader, writer) = std::io::pipe().unwrap();
    let policy = l.policy();
    let mut child = spawn("sleep", &["30".to_string()], &l.workspace, writer.as_fd(), Some(&policy)).await.unwrap();
    drop(writer);
    let pid = child.id();
    let parent = parent_of(pid).expect("the supervisor is running");
    assert_ne!(parent, std::process::id(), "the command was forked from this process");
    assert_eq!(name_of(parent).as_deref(), Some("warden-spawner"));
    // Its process group is its own: ending the group ends it, and the end is reported as a signal.
    // SAFETY: sends a signal to the group just made.
    unsafe { libc_killpg(pid as i32, 9) };
    let status = tokio::time::timeout(Duration::from_secs(10), child.wait()).await.unwrap().unwrap();
    assert_eq!(std::os::unix::process::ExitStatusExt::signal(&status), Some(9), "{status:?}");
    let mut rest = Vec::new();
    reader.read_to_end(&mut rest).unwrap();

    let (_reader, writer) = std::io::pipe().unwrap();
    match spawn("warden-no-such-program", &[], &l.workspace, writer.as_fd(), Some(&policy)).await {
        Err(SpawnError::Start(why)) => assert!(why.contains("warden-no-such-program"), "{why}"),
        other => panic!("a missing program started: {other:?}"),
    }
}

/// Commands that run at the same time each learn their own end, once: the spawner keeps a report
/// from each command's supervisor (told before the supervisor's own end) and the exit it reaps apart.
async fn commands_at_once_each_learn_their_own_end() {
    if !available() {
        return;
    }
    let l = layout();
    let policy = l.policy();
    // Each sleeps a little, so that all of them are running at once, and exits with its own code.
    let mut running = Vec::new();
    for code in 1..=8 {
        let (reader, writer) = std::io::pipe().unwrap();
        let args = ["-c".to_string(), format!("sleep 0.{code}; echo {code}; exit {code}")];
        let child = spawn("sh", &args, &l.workspace, writer.as_fd(), Some(&policy)).await.unwrap();
        drop(writer);
        running.push((code, child, reader));
    }
    for (code, mut child, mut reader) in running {
        let status = tokio::time::timeout(Duration::from_secs(30), child.wait()).await.unwrap().unwrap();
        let mut text = String::new();
        reader.read_to_string(&mut text).unwrap();
        assert_eq!((status.code(), text.trim()), (Some(code), code.to_string().as_str()));
    }
    // The next command, once they are all over and reaped, gets its own end too.
    let (code, text) = run(Via::Spawner, &policy, &l.workspace, "exit 42").await;
    assert_eq!(code, Some(42), "{text}");
}

/// Killing the spawner ends the commands it started (through their supervisors), tells whoever waits
/// for one, and makes later calls answer `Unavailable` (the caller then forks instead). Runs last.
async fn a_killed_spawner_takes_its_commands_along_and_is_reported_gone() {
    if !available() {
        return;
    }
    let l = layout();
    let token = format!("700.{}", std::process::id());
    let (_reader, writer) = std::io::pipe().unwrap();
    let policy = l.policy();
    let mut child =
        spawn("sleep", std::slice::from_ref(&token), &l.workspace, writer.as_fd(), Some(&policy)).await.unwrap();
    drop(writer);
    let spawner_pid = parent_of(child.id()).unwrap();
    assert!(alive_with(&token));
    // SAFETY: kills the spawner process this test started.
    unsafe { libc_kill(spawner_pid as i32, 9) };
    let ended = tokio::time::timeout(Duration::from_secs(10), child.wait()).await.unwrap();
    assert!(ended.is_err(), "a command's end was invented: {ended:?}");
    assert!(gone(&token).await, "`sleep {token}` outlived the spawner");
    let (_reader, writer) = std::io::pipe().unwrap();
    let later = spawn("true", &[], &l.workspace, writer.as_fd(), None).await;
    assert!(matches!(later, Err(SpawnError::Unavailable(_))), "{later:?}");
}

/// The parent pid of `pid`, from `/proc/<pid>/stat`.
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit(')').next()?.split_whitespace().nth(1)?.parse().ok()
}

fn name_of(pid: u32) -> Option<String> {
    Some(std::fs::read_to_string(format!("/proc/{pid}/comm")).ok()?.trim().to_string())
}

extern "C" {
    #[link_name = "killpg"]
    fn libc_killpg(pgrp: i32, sig: i32) -> i32;
    #[link_name = "kill"]
    fn libc_kill(pid: i32, sig: i32) -> i32;
}

fn main() {
    // Before any other thread: the spawner may only be forked from a single-threaded process.
    spawner::start().expect("the spawner starts");
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        for via in [Via::Fork, Via::Spawner] {
            macro_rules! each {
                ($($test:ident),* $(,)?) => {$(
                    $test(via).await;
                    println!("test {} ({via:?}) ... ok", stringify!($test));
                )*};
            }
            each!(
                writes_land_in_the_workspace_and_nowhere_else,
                the_data_dir_around_the_workspace_is_unreadable_but_the_workspace_is_readable,
                what_changes_beside_the_data_dir_is_seen_by_the_next_command,
                a_workspace_made_anew_between_commands_is_the_one_granted,
                each_command_gets_a_pid_namespace_of_its_own,
                the_servers_environment_is_unreadable_through_proc,
                a_tcp_connect_is_refused_without_network_and_allowed_with_it,
                a_setsid_child_does_not_outlive_the_command,
                the_command_keeps_its_uid_but_has_no_capabilities_even_as_root,
                abstract_unix_sockets_of_the_host_and_of_other_commands_are_out_of_reach,
                pathname_unix_sockets_of_the_machine_are_out_of_reach,
            );
        }
        the_spawner_starts_commands_as_its_own_children().await;
        println!("test the_spawner_starts_commands_as_its_own_children ... ok");
        commands_at_once_each_learn_their_own_end().await;
        println!("test commands_at_once_each_learn_their_own_end ... ok");
        a_killed_spawner_takes_its_commands_along_and_is_reported_gone().await;
        println!("test a_killed_spawner_takes_its_commands_along_and_is_reported_gone ... ok");
    });
}
