//! How long a command takes from asking to its exit being known, confined and not, through the spawner
//! and forked from a threaded process: where the shell tool's share of a decision's latency goes.
//! Commands follow each other at once, except in the line `5 ms apart`, where the spawner has built
//! each command's ruleset ahead (as between a person's decisions).
//! Each round makes its own scratch `HOME` and `TMPDIR`, as the shell tool does. `cargo bench -p
//! warden-sandbox --bench spawn` prints p50/p95 in milliseconds.
#![allow(
    clippy::unwrap_used,
    reason = "test code: a test fails where it unwraps; clippy.toml's allow-unwrap-in-tests covers only #[test] fns, not the helpers"
)]

use std::os::fd::AsFd;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use warden_sandbox::spawner::{self, Launch};
use warden_sandbox::{confine, status, Policy, Scratch};

const ROUNDS: usize = 200;
const ENV: [(&str, &str); 1] = [("PATH", "/usr/local/bin:/usr/bin:/bin")];

struct Times {
    started: Vec<f64>,
    ended: Vec<f64>,
}

fn percentile(values: &[f64], p: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.get(((sorted.len() as f64 - 1.0) * p).round() as usize).copied().unwrap_or(f64::NAN)
}

fn report(label: &str, times: &Times) {
    let ms = |v: &[f64], p| percentile(v, p);
    if times.started.is_empty() {
        println!("{label:<34} to exit p50 {:>6.2} ms  p95 {:>6.2}", ms(&times.ended, 0.5), ms(&times.ended, 0.95));
    } else {
        println!(
            "{label:<34} to exec p50 {:>6.2} ms  p95 {:>6.2};  to exit p50 {:>6.2} ms  p95 {:>6.2}",
            ms(&times.started, 0.5),
            ms(&times.started, 0.95),
            ms(&times.ended, 0.5),
            ms(&times.ended, 0.95)
        );
    }
}

/// The shell's policy for one call: its own scratch `HOME` and `TMPDIR`, as the shell tool makes them.
fn call_policy(base: &Policy) -> (Policy, Scratch) {
    let scratch = Scratch::new().unwrap();
    (base.clone().with_scratch(&scratch), scratch)
}

/// `pause`: how long to wait between commands (the spawner builds the next ruleset once it has been
/// idle 2 ms: commands closer than that each build their own).
async fn via_spawner(base: Option<&Policy>, cwd: &Path, pause: Option<Duration>) -> Times {
    let spawner = spawner::get().expect("the spawner runs");
    let args = ["ok".to_string()];
    let env: Vec<(String, String)> = ENV.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let mut times = Times { started: Vec::new(), ended: Vec::new() };
    for _ in 0..ROUNDS {
        if let Some(pause) = pause {
            tokio::time::sleep(pause).await;
        }
        let (_reader, writer) = std::io::pipe().unwrap();
        let begin = Instant::now();
        let call = base.map(call_policy);
        let policy = call.as_ref().map(|(policy, _)| policy);
        let launch = Launch {
            program: Path::new("echo"),
            args: &args,
            env: &env,
            cwd,
            stdout: writer.as_fd(),
            stderr: writer.as_fd(),
            policy,
        };
        let mut child = spawner.spawn(launch).await.unwrap();
        times.started.push(begin.elapsed().as_secs_f64() * 1000.0);
        let status = child.wait().await.unwrap();
        times.ended.push(begin.elapsed().as_secs_f64() * 1000.0);
        assert!(status.success());
    }
    times
}

fn prepared(base: &Policy) -> Times {
    let mut times = Times { started: Vec::new(), ended: Vec::new() };
    for _ in 0..ROUNDS {
        let begin = Instant::now();
        let (policy, _scratch) = call_policy(base);
        let policy = &policy;
        let mut cmd = tokio::process::Command::new("echo");
        confine(&mut cmd, policy).unwrap();
        times.ended.push(begin.elapsed().as_secs_f64() * 1000.0);
    }
    times
}

async fn forked(base: Option<&Policy>, cwd: &Path) -> Times {
    let mut times = Times { started: Vec::new(), ended: Vec::new() };
    for _ in 0..ROUNDS {
        let begin = Instant::now();
        let call = base.map(call_policy);
        let policy = call.as_ref().map(|(policy, _)| policy);
        let mut cmd = tokio::process::Command::new("echo");
        cmd.arg("ok").current_dir(cwd).env_clear().envs(ENV).stdin(Stdio::null()).stdout(Stdio::null());
        if let Some(policy) = policy {
            confine(&mut cmd, policy).unwrap();
        }
        let status = cmd.status().await.unwrap();
        times.ended.push(begin.elapsed().as_secs_f64() * 1000.0);
        assert!(status.success());
    }
    times
}

fn main() {
    spawner::start().expect("the spawner starts");
    let sandbox = status();
    if !sandbox.available {
        eprintln!("no sandbox on this machine: {}", sandbox.detail);
        return;
    }
    // Under target/, as warden-bench lays out the server's data dir (a data dir in a busy /tmp makes
    // the ruleset hundreds of rules long: one per entry beside it).
    let target = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target");
    let root = tempfile::Builder::new().prefix("spawn-bench-").tempdir_in(target).unwrap();
    let data = root.path().canonicalize().unwrap().join("data");
    let workspace = data.join("workspace");
    std::fs::create_dir_all(&workspace).unwrap();
    let policy = Policy::new(vec![workspace.clone()], vec![data.clone()]);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        // Warm up: the shared namespaces, the page cache.
        via_spawner(Some(&policy), &workspace, None).await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        report("confine(): scratch dir and ruleset", &prepared(&policy));
        report("spawner, unconfined `echo ok`", &via_spawner(None, &workspace, None).await);
        report("spawner, confined `echo ok`", &via_spawner(Some(&policy), &workspace, None).await);
        let paused = via_spawner(Some(&policy), &workspace, Some(Duration::from_millis(5))).await;
        report("spawner, confined, 5 ms apart", &paused);
        report("forked, unconfined `echo ok`", &forked(None, &workspace).await);
        report("forked, confined `echo ok`", &forked(Some(&policy), &workspace).await);
    });
}
