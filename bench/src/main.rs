//! Benchmarks of the real `warden-server` process against the scripted fixture model (run in this
//! process, so its CPU is not counted against the server). Prints figures; asserts nothing.
//!
//! Usage: `cargo run --release -p warden-bench [-- relay|startup|approvals|routed|streams|listeners|waiting|outside|local|sessions]`,
//! after `cargo build --release -p warden-server` (or set WARDEN_SERVER_BIN to a built server binary).
//! `streams` opens WARDEN_BENCH_STREAMS (1,000) streaming runs at once, of WARDEN_BENCH_TOKENS (20)
//! tokens each, a thread's first turn and then a later one; `listeners` keeps
//! WARDEN_BENCH_LISTENERS (500) paused runs with their event streams open; `waiting` leaves
//! WARDEN_BENCH_WAITING (10,000) runs waiting for a decision; `outside` times a person's decision to
//! an outside client (socket and long-poll) and holds WARDEN_BENCH_OUTSIDE_WAITING (10,000) outside
//! requests waiting, then restarts the server (see `outside.rs`). `sessions` compares a request sent
//! with the access token and with a signed-in browser's cookie (see `sessions.rs`). `approvals` runs with
//! WARDEN_BENCH_HISTORY (50,000) messages of earlier threads in the store, as a store in use has.

mod error;
mod local;
mod outside;
mod routed;
mod sessions;

use std::path::PathBuf;
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use eventsource_stream::Eventsource;
use futures::StreamExt;
use reqwest::Client;
use serde_json::{json, Value};
use warden_testkit::{FixtureModel, Scenario, Script, ScriptedCall, Turn};

use self::error::{ensure, text_at, BenchError, Result};

struct Server {
    child: Child,
    base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The access token every benchmarked server is started with (`WARDEN_TOKEN`), sent as a bearer.
const TOKEN: &str = "warden-bench-token-0123456789abcdef0123456789";

/// An HTTP client that sends the person's access token.
fn client() -> Result<Client> {
    client_with(TOKEN)
}

/// An HTTP client that sends `token` as its bearer (the person's, or an outside client's).
fn client_with(token: &str) -> Result<Client> {
    let mut headers = reqwest::header::HeaderMap::new();
    let bearer = reqwest::header::HeaderValue::from_str(&format!("Bearer {token}"))?;
    headers.insert(reqwest::header::AUTHORIZATION, bearer);
    rustls::crypto::ring::default_provider().install_default().ok();
    Ok(Client::builder().default_headers(headers).build()?)
}

fn server_bin() -> PathBuf {
    std::env::var_os("WARDEN_SERVER_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/release/warden-server"))
}

/// A data dir for one server, under `target/` rather than `/tmp`: Warden's data normally lives beside
/// the project or in a home dir, and the sandbox lists every directory on the way to it; `/tmp`
/// changes with every command (each gets a scratch dir there), which would make it list again each time.
fn data_dir() -> Result<tempfile::TempDir> {
    let target = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target");
    Ok(tempfile::Builder::new().prefix("bench-data-").tempdir_in(target)?)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).unwrap_or(38123)
}

fn spawn_server(data_dir: &std::path::Path, model: &FixtureModel, extra: &[(&str, &str)]) -> Result<Server> {
    let base_url = model.base_url();
    let mut env = vec![("OPENAI_BASE_URL", base_url.as_str()), ("WARDEN_MODEL", "fixture")];
    env.extend_from_slice(extra);
    spawn_server_with(data_dir, &env)
}

fn spawn_server_with(data_dir: &std::path::Path, extra: &[(&str, &str)]) -> Result<Server> {
    // The server's log, shown only when asked for (its filter in `WARDEN_BENCH_RUST_LOG`).
    let log = std::env::var("WARDEN_BENCH_RUST_LOG").ok();
    let (mut cmd, base) = server_command(data_dir, extra);
    cmd.env("RUST_LOG", log.as_deref().unwrap_or("warn")).stdout(if log.is_some() {
        Stdio::inherit()
    } else {
        Stdio::null()
    });
    spawn(cmd, base)
}

/// The server's command, on a free port, with `extra` set last; its log filter and stdout are the caller's.
fn server_command(data_dir: &std::path::Path, extra: &[(&str, &str)]) -> (Command, String) {
    let port = free_port();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut cmd = Command::new(server_bin());
    cmd.env_remove("OPENAI_BASE_URL")
        .env_remove("WARDEN_LOCAL_THREADS")
        .env("WARDEN_DATA_DIR", data_dir)
        .env("WARDEN_TOKEN", TOKEN)
        .env("LEPTOS_SITE_ADDR", format!("127.0.0.1:{port}"))
        .env("LEPTOS_OUTPUT_NAME", "warden")
        .env("LEPTOS_SITE_ROOT", root.join("target/site"))
        .env("LEPTOS_SITE_PKG_DIR", "pkg")
        .env("LEPTOS_RELOAD_PORT", "3001")
        // The benches hold thousands of outside requests waiting from a few clients, far past a
        // client's bounds.
        .env("WARDEN_OUTSIDE_MAX_PENDING", "1000000")
        .env("WARDEN_OUTSIDE_REQUESTS_PER_MINUTE", "1000000")
        .stderr(Stdio::inherit());
    for (k, v) in extra {
        cmd.env(k, v);
    }
    (cmd, format!("http://127.0.0.1:{port}"))
}

fn spawn(mut cmd: Command, base: String) -> Result<Server> {
    let child = cmd.spawn().map_err(|error| BenchError::Start { bin: server_bin().display().to_string(), error })?;
    Ok(Server { child, base })
}

async fn wait_healthy(http: &Client, base: &str) {
    loop {
        if let Ok(r) = http.get(format!("{base}/api/health")).send().await {
            if r.status().is_success() {
                return;
            }
        }
        tokio::time::sleep(Duration::from_micros(500)).await;
    }
}

/// CPU seconds (user + system) the process has used so far, with its children's: those it has reaped,
/// and those still running (the spawner, and through it every command it started and reaped).
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    let f = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    let own = (f(11) + f(12) + f(13) + f(14)) / ticks;
    own + children_of(pid).into_iter().map(cpu_seconds).sum::<f64>()
}

/// The running children of `pid`, from each of its threads' `children` lists.
fn children_of(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return Vec::new() };
    tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|list| list.split_whitespace().filter_map(|p| p.parse().ok()).collect::<Vec<u32>>())
        .collect()
}

/// The size of the store's WAL file in MiB (SQLite starts it over once its pages are in the database file).
fn wal_mib(data_dir: &std::path::Path) -> f64 {
    std::fs::metadata(data_dir.join("warden.db-wal")).map_or(0.0, |m| m.len() as f64 / (1024.0 * 1024.0))
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

async fn new_thread(http: &Client, base: &str) -> Result<String> {
    let t: Value = http.post(format!("{base}/api/threads")).json(&json!({})).send().await?.json().await?;
    text_at(&t, "/id")
}

/// Posts a message and reads its stream until an event of `kind`; returns (data, open stream).
async fn post_until(http: &Client, base: &str, thread: &str, content: &str, kind: &str) -> Result<(Value, Events)> {
    let res =
        http.post(format!("{base}/api/threads/{thread}/messages")).json(&json!({ "content": content })).send().await?;
    let mut stream = res.bytes_stream().eventsource().boxed();
    while let Some(Ok(e)) = stream.next().await {
        if e.event == kind {
            return Ok((serde_json::from_str(&e.data)?, stream));
        }
        if e.event == "run_failed" {
            return Err(BenchError::Unexpected(format!("run failed: {}", e.data)));
        }
    }
    Err(BenchError::Unexpected(format!("stream ended before {kind}")))
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

async fn relay() -> Result<()> {
    let mut turn = Turn::text("");
    turn.repeat_tokens = Some(5000);
    let model =
        FixtureModel::start(Script { scenarios: vec![Scenario::new("stream", vec![turn])], default_title: None })
            .await?;
    let dir = data_dir()?;
    let server = spawn_server(dir.path(), &model, &[])?;
    let http = client()?;
    wait_healthy(&http, &server.base).await;
    let run = |_: usize| async {
        let thread = new_thread(&http, &server.base).await?;
        let _answer = post_until(&http, &server.base, &thread, "stream please", "run_finished").await?;
        Ok::<_, BenchError>(())
    };
    run(0).await?; // warm-up
    let rounds = 20;
    let cpu0 = cpu_seconds(server.child.id());
    let t0 = Instant::now();
    for i in 0..rounds {
        run(i).await?;
    }
    let cpu = cpu_seconds(server.child.id()) - cpu0;
    let wall = t0.elapsed().as_secs_f64();
    let tokens = (rounds * 5000) as f64;
    println!("relay: {rounds} runs x 5000 tokens; server CPU {cpu:.3} s = {:.4} s per 1,000 tokens (target <= 0.007); wall {:.3} s per 1,000 tokens",
        cpu / tokens * 1000.0, wall / tokens * 1000.0);
    Ok(())
}

async fn startup() -> Result<()> {
    let model = FixtureModel::start(Script {
        scenarios: vec![Scenario::new("", vec![Turn::text("Hi!")])],
        default_title: None,
    })
    .await?;
    let http = client()?;
    let mut times = Vec::new();
    for _ in 0..7 {
        let dir = data_dir()?;
        let t0 = Instant::now();
        let server = spawn_server(dir.path(), &model, &[])?;
        let thread = loop {
            match http.post(format!("{}/api/threads", server.base)).json(&json!({})).send().await {
                Ok(r) => break text_at(&r.json::<Value>().await?, "/id")?,
                Err(_) => tokio::time::sleep(Duration::from_micros(300)).await,
            }
        };
        let _answer = post_until(&http, &server.base, &thread, "hello", "run_finished").await?;
        times.push(t0.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "startup: process start -> first chat answered: median {:.1} ms, min {:.1} ms (target < 100 ms)",
        percentile(&times, 0.5),
        times[0]
    );
    Ok(())
}

fn shell_script() -> Script {
    Script {
        scenarios: vec![Scenario::new(
            "",
            vec![Turn::calls(vec![ScriptedCall::new("shell", json!({"command": "echo ok"}))]), Turn::text("ok")],
        )],
        default_title: Some("Bench".into()),
    }
}

/// Messages of earlier threads, imported before the timed rounds so every query meets a store in use.
const HISTORY_PER_THREAD: usize = 5_000;

/// Imports `n` messages (a person's question and an answer, in turn) in threads of
/// `HISTORY_PER_THREAD`, through the import API.
async fn fill_history(http: &Client, base: &str, n: usize) -> Result<()> {
    let mut left = n;
    let mut thread = 0;
    while left > 0 {
        let count = left.min(HISTORY_PER_THREAD);
        let messages: Vec<Value> = (0..count)
            .map(|i| {
                let (role, text) = if i % 2 == 0 { ("user", "what changed?") } else { ("assistant", "the config") };
                json!({"id": format!("h{thread}-{i}"), "run_id": null, "role": role, "content": text,
                       "blocks": [{"type": "text", "text": text}], "created_at": "2026-01-01T00:00:00Z"})
            })
            .collect();
        let export = json!({
            "format": "warden.thread.v1", "exported_at": "2026-01-01T00:00:00Z",
            "thread": {"id": format!("history-{thread}"), "title": "Earlier", "archived": false,
                       "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"},
            "messages": messages, "tool_calls": [], "approvals": [],
        });
        let res = http.post(format!("{base}/api/threads/import")).json(&export).send().await?;
        let status = res.status();
        if !status.is_success() {
            return Err(BenchError::Unexpected(format!("history import: {status} {}", res.text().await?)));
        }
        left -= count;
        thread += 1;
    }
    Ok(())
}

async fn approvals() -> Result<()> {
    let model = FixtureModel::start(shell_script()).await?;
    let dir = data_dir()?;
    let server = spawn_server(dir.path(), &model, &[])?;
    let http = client()?;
    wait_healthy(&http, &server.base).await;
    let history: usize = std::env::var("WARDEN_BENCH_HISTORY").ok().and_then(|v| v.parse().ok()).unwrap_or(50_000);
    fill_history(&http, &server.base, history).await?;
    println!("approvals: {history} messages of earlier threads in the store (WARDEN_BENCH_HISTORY)");
    let (mut to_request, mut to_result) = (Vec::new(), Vec::new());
    let mut cpu_from = 0.0;
    let mut feed = open_feed(&http, &server.base).await?;
    for i in 0..120 {
        if i == 20 {
            cpu_from = cpu_seconds(server.child.id());
        }
        let thread = new_thread(&http, &server.base).await?;
        let t0 = Instant::now();
        let (data, mut stream) = post_until(&http, &server.base, &thread, "run echo", "approval_request").await?;
        let t1 = Instant::now();
        let id = text_at(&data, "/approval/id")?;
        let t2 = Instant::now();
        let res = http
            .post(format!("{}/api/approvals/{id}", server.base))
            .json(&json!({"decision": "approve"}))
            .send()
            .await?;
        ensure(res.status().is_success(), || format!("the decision on {id} answered {}", res.status()))?;
        while let Some(Ok(e)) = stream.next().await {
            if e.event == "tool_result" {
                break;
            }
        }
        let t3 = Instant::now();
        if i >= 20 {
            to_request.push((t1 - t0).as_secs_f64() * 1000.0);
            to_result.push((t3 - t2).as_secs_f64() * 1000.0);
        }
        // The model names the thread after its run ended: the next round starts once it has, as it
        // started after the title when the run waited for it (a server of before then named it on the
        // run's stream).
        let mut named_on_stream = false;
        while let Some(Ok(e)) = stream.next().await {
            named_on_stream |= e.event == "thread_updated" && e.data.contains("\"Bench\"");
            if e.event == "run_finished" {
                break;
            }
        }
        if !named_on_stream {
            named(&mut feed, [thread.as_str()], Duration::from_secs(10)).await;
        }
    }
    let cpu_per_round = (cpu_seconds(server.child.id()) - cpu_from) / to_result.len() as f64 * 1000.0;
    to_request.sort_by(f64::total_cmp);
    to_result.sort_by(f64::total_cmp);
    println!(
        "approvals: message sent -> approval_request p50 {:.2} ms p95 {:.2} ms (target p50 < 2 ms)",
        percentile(&to_request, 0.5),
        percentile(&to_request, 0.95)
    );
    println!(
        "approvals: decision POST -> tool_result p50 {:.2} ms p95 {:.2} ms (target p50 < 2, p95 < 4 ms)",
        percentile(&to_result, 0.5),
        percentile(&to_result, 0.95)
    );
    println!(
        "approvals: server CPU {cpu_per_round:.2} ms per round (message, card, decision, `echo ok` confined, answer; with the spawner's and the commands')"
    );
    Ok(())
}

/// The pages' live feed (`/api/inbox/events`), which tells of each thread the model named (`titled`).
async fn open_feed(http: &Client, base: &str) -> Result<Events> {
    let res = http.get(format!("{base}/api/inbox/events")).send().await?;
    Ok(res.bytes_stream().eventsource().boxed())
}

/// A stream of server-sent events, as the bench reads them.
type Events = futures::stream::BoxStream<
    'static,
    Result<eventsource_stream::Event, eventsource_stream::EventStreamError<reqwest::Error>>,
>;

/// Waits (at most `within`) until the feed has told that the model named each of `threads`.
async fn named<'t>(feed: &mut Events, threads: impl IntoIterator<Item = &'t str>, within: Duration) {
    let mut unnamed: std::collections::HashSet<&str> = threads.into_iter().collect();
    let told = async {
        while !unnamed.is_empty() {
            let Some(Ok(event)) = feed.next().await else { return };
            if event.event == "titled" {
                let titled: Value = serde_json::from_str(&event.data).unwrap_or_default();
                unnamed.remove(titled["thread_id"].as_str().unwrap_or_default());
            }
        }
    };
    if tokio::time::timeout(within, told).await.is_err() {
        println!("({} threads were not named within {} s)", unnamed.len(), within.as_secs());
    }
}

/// The load test's model turn: 20 tokens (WARDEN_BENCH_TOKENS), 50 ms apart.
fn paced_turn() -> Turn {
    let tokens = std::env::var("WARDEN_BENCH_TOKENS").ok().and_then(|v| v.parse().ok()).unwrap_or(20);
    let mut turn = Turn::text("");
    turn.repeat_tokens = Some(tokens);
    turn.chunk_delay_ms = 50;
    turn
}

/// Arrival times of one stream's token events, or why it failed.
type Arrivals = Result<Vec<Instant>, String>;

/// Gaps between consecutive tokens over all streams (ms), sorted; and how many streams failed.
fn gaps_of(results: &[Arrivals]) -> (Vec<f64>, usize) {
    let mut gaps = Vec::new();
    let mut errors = 0;
    for r in results {
        match r {
            Ok(times) => gaps.extend(times.windows(2).map(|w| (w[1] - w[0]).as_secs_f64() * 1000.0)),
            Err(_) => errors += 1,
        }
    }
    gaps.sort_by(f64::total_cmp);
    (gaps, errors)
}

/// The largest RSS seen while `work` runs, sampled every 20 ms.
async fn peak_rss_during<T>(pid: u32, work: impl std::future::Future<Output = T>) -> (T, u64) {
    let peak = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(rss_kib(pid)));
    let sampler = {
        let peak = peak.clone();
        tokio::spawn(async move {
            loop {
                peak.fetch_max(rss_kib(pid), std::sync::atomic::Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
    };
    let out = work.await;
    sampler.abort();
    (out, peak.load(std::sync::atomic::Ordering::Relaxed).max(rss_kib(pid)))
}

/// One run through the server: token (`text_delta`) arrival times until `run_finished`.
async fn streamed_run(http: &Client, base: &str, thread: &str) -> Arrivals {
    let res = http
        .post(format!("{base}/api/threads/{thread}/messages"))
        .json(&json!({ "content": "stream please" }))
        .send()
        .await
        .map_err(|e| e.to_string())?;
    if !res.status().is_success() {
        return Err(format!("HTTP {}", res.status()));
    }
    let mut stream = res.bytes_stream().eventsource();
    let mut times = Vec::new();
    while let Some(event) = stream.next().await {
        let event = event.map_err(|e| e.to_string())?;
        match event.event.as_str() {
            "text_delta" => times.push(Instant::now()),
            "run_finished" => return Ok(times),
            "run_failed" => return Err(format!("run failed: {}", event.data)),
            _ => {}
        }
    }
    Err("stream ended before run_finished".into())
}

/// One stream straight from the scripted model: arrival times of its content chunks.
async fn model_stream(http: &Client, base: &str) -> Arrivals {
    let body = json!({"model": "fixture", "stream": true, "messages": [{"role": "user", "content": "stream please"}]});
    let res = http.post(format!("{base}/chat/completions")).json(&body).send().await.map_err(|e| e.to_string())?;
    let mut stream = res.bytes_stream().eventsource();
    let mut times = Vec::new();
    while let Some(event) = stream.next().await {
        let event = event.map_err(|e| e.to_string())?;
        if event.data == "[DONE]" {
            return Ok(times);
        }
        if event.data.contains("\"content\"") {
            times.push(Instant::now());
        }
    }
    Err("model stream ended before [DONE]".into())
}

fn report_gaps(label: &str, n: usize, results: &[Arrivals], wall: f64) {
    let (gaps, errors) = gaps_of(results);
    let first_error = results.iter().find_map(|r| r.as_ref().err()).cloned().unwrap_or_default();
    if gaps.is_empty() {
        println!("{label}: {n} streams, {errors} errors ({first_error}), no tokens");
        return;
    }
    println!(
        "{label}: {n} streams at once, {errors} errors{}; token gap p50 {:.1} ms p99 {:.1} ms max {:.1} ms; wall {wall:.2} s",
        if errors > 0 { format!(" (first: {first_error})") } else { String::new() },
        percentile(&gaps, 0.5),
        percentile(&gaps, 0.99),
        gaps[gaps.len() - 1],
    );
}

/// 1,000 (WARDEN_BENCH_STREAMS) runs streaming at once, 20 tokens 50 ms apart each: first the
/// scripted model alone at that load, then through the server.
async fn streams() -> Result<()> {
    let n: usize = std::env::var("WARDEN_BENCH_STREAMS").ok().and_then(|v| v.parse().ok()).unwrap_or(1000);
    let model = FixtureModel::start(Script {
        scenarios: vec![Scenario::new("", vec![paced_turn()])],
        default_title: Some("Bench".into()),
    })
    .await?;
    let http = client()?;

    let model_base = model.base_url();
    let t0 = Instant::now();
    let alone: Vec<Arrivals> = futures::future::join_all((0..n).map(|_| model_stream(&http, &model_base))).await;
    report_gaps("streams: scripted model alone", n, &alone, t0.elapsed().as_secs_f64());

    let dir = data_dir()?;
    let server = spawn_server(dir.path(), &model, &[])?;
    wait_healthy(&http, &server.base).await;
    let pid = server.child.id();
    // A few runs first, so pools and caches are warm.
    for _ in 0..5 {
        let thread = new_thread(&http, &server.base).await?;
        let _ = streamed_run(&http, &server.base, &thread).await;
    }
    let threads: Vec<String> = futures::stream::iter(0..n)
        .map(|_| new_thread(&http, &server.base))
        .buffer_unordered(32)
        .collect::<Vec<Result<String>>>()
        .await
        .into_iter()
        .collect::<Result<_>>()?;
    // The model's titles come after the runs end, told on the pages' feed: the first turns' CPU is read
    // once every thread is named, so that none of it is counted with the later turns.
    let mut feed = open_feed(&http, &server.base).await?;
    // First the threads' first runs (each also asks the model for the thread's title), then a second
    // run in each: a conversation's later turns, which do not.
    for (i, turn) in ["first turn of a new thread", "later turn"].into_iter().enumerate() {
        let rss0 = rss_kib(pid);
        let cpu0 = cpu_seconds(pid);
        let t0 = Instant::now();
        let (results, peak) = peak_rss_during(
            pid,
            futures::future::join_all(threads.iter().map(|thread| streamed_run(&http, &server.base, thread))),
        )
        .await;
        let wall = t0.elapsed().as_secs_f64();
        if i == 0 {
            named(&mut feed, threads.iter().map(String::as_str), Duration::from_secs(60)).await;
        }
        let cpu = cpu_seconds(pid) - cpu0;
        report_gaps(&format!("streams: through warden-server, {turn}"), n, &results, wall);
        println!(
            "streams: {turn}: server CPU {cpu:.2} s = {:.2} ms per run (target < 1 ms); RSS {rss0} KiB before, peak {peak} KiB; WAL {:.1} MiB",
            cpu / n as f64 * 1000.0,
            wal_mib(dir.path())
        );
    }
    Ok(())
}

/// Paused runs, then one open event stream (SSE listener) on each: what a listener costs.
async fn listeners() -> Result<()> {
    let n: usize = std::env::var("WARDEN_BENCH_LISTENERS").ok().and_then(|v| v.parse().ok()).unwrap_or(500);
    let model = FixtureModel::start(shell_script()).await?;
    let dir = data_dir()?;
    let server = spawn_server(dir.path(), &model, &[])?;
    let http = client()?;
    wait_healthy(&http, &server.base).await;
    let pid = server.child.id();
    let pause = |_| {
        let (http, base) = (http.clone(), server.base.clone());
        async move {
            let thread = new_thread(&http, &base).await?;
            let (data, _stream) = post_until(&http, &base, &thread, "run echo", "approval_request").await?;
            text_at(&data, "/approval/run_id")
        }
    };
    // One listener per paused run, each read up to its replayed approval_request and then kept open.
    let open = |run: String| {
        let (http, base) = (http.clone(), server.base.clone());
        async move {
            let res = http.get(format!("{base}/api/runs/{run}/events")).send().await?;
            let mut stream = res.bytes_stream().eventsource();
            while let Some(Ok(e)) = stream.next().await {
                if e.event == "approval_request" {
                    break;
                }
            }
            Ok::<_, BenchError>(stream)
        }
    };
    // Warm-up: pools, caches and the allocator, on both paths measured. Writes go through one
    // connection and replays are read through the others, so the readers' page caches (SQLite's,
    // at most 256 KiB per connection) fill on the first replays: once, not per listener.
    let warm = all_of(futures::stream::iter(0..50).map(pause).buffer_unordered(16).collect().await)?;
    drop(all_of(futures::stream::iter(warm).map(open).buffer_unordered(16).collect().await)?);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let rss0 = rss_kib(pid);
    let runs = all_of(futures::stream::iter(0..n).map(pause).buffer_unordered(16).collect().await)?;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let rss1 = rss_kib(pid);
    // In two halves: the first replays also fill the reading connections' page caches, which
    // are bounded (a few MB in all), so the second half shows what one more listener costs.
    let (first, second) = runs.split_at(n / 2);
    let mut streams = all_of(futures::stream::iter(first.to_vec()).map(open).buffer_unordered(16).collect().await)?;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let rss_half = rss_kib(pid);
    streams.extend(all_of(futures::stream::iter(second.to_vec()).map(open).buffer_unordered(16).collect().await)?);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let rss2 = rss_kib(pid);
    println!(
        "listeners: {n} paused runs: RSS {rss0} -> {rss1} KiB ({:.1} KiB per paused run); {} event streams opened on them: -> {rss2} KiB = {:.1} KiB per open SSE listener on average, {:.1} KiB each of the second {} (target < 16 KB)",
        rss1.saturating_sub(rss0) as f64 / n as f64,
        streams.len(),
        rss2.saturating_sub(rss1) as f64 / n as f64,
        rss2.saturating_sub(rss_half) as f64 / second.len() as f64,
        second.len(),
    );
    drop(streams);
    Ok(())
}

async fn waiting() -> Result<()> {
    let n: usize = std::env::var("WARDEN_BENCH_WAITING").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000);
    let model = FixtureModel::start(shell_script()).await?;
    let dir = data_dir()?;
    let mut server = spawn_server(dir.path(), &model, &[])?;
    let http = client()?;
    wait_healthy(&http, &server.base).await;
    // Warm up allocator and pools with a few runs before the baseline.
    for _ in 0..50 {
        let thread = new_thread(&http, &server.base).await?;
        let _answer = post_until(&http, &server.base, &thread, "run echo", "approval_request").await?;
    }
    let rss0 = rss_kib(server.child.id());
    let base = server.base.clone();
    let paused = futures::stream::iter(0..n)
        .map(|_| {
            let (http, base) = (http.clone(), base.clone());
            async move {
                let thread = new_thread(&http, &base).await?;
                post_until(&http, &base, &thread, "run echo", "approval_request").await.map(drop)
            }
        })
        .buffer_unordered(16)
        .collect()
        .await;
    all_of(paused)?;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let rss1 = rss_kib(server.child.id());
    let pending: Value = http.get(format!("{base}/api/approvals?status=pending")).send().await?.json().await?;
    println!("waiting: {n} runs waiting; server RSS {rss0} KiB -> {rss1} KiB = {:.2} KiB per waiting run (target < 5 KB); pending listed: {}; WAL {:.1} MiB",
        (rss1.saturating_sub(rss0)) as f64 / n as f64, pending.as_array().map(|a| a.len()).unwrap_or(0), wal_mib(dir.path()));

    // Restart with all of them waiting.
    unsafe { libc::kill(server.child.id() as i32, libc::SIGTERM) };
    let _ = server.child.wait();
    let t0 = Instant::now();
    let restarted = spawn_server(dir.path(), &model, &[])?;
    wait_healthy(&http, &restarted.base).await;
    let ready = t0.elapsed().as_secs_f64() * 1000.0;
    let pending: Value =
        http.get(format!("{}/api/approvals?status=pending", restarted.base)).send().await?.json().await?;
    let id = text_at(&pending, "/0/id")?;
    let decided = http
        .post(format!("{}/api/approvals/{id}", restarted.base))
        .json(&json!({"decision": "approve"}))
        .send()
        .await?
        .status();
    println!("restart: ready to serve {ready:.1} ms after start with {n} runs waiting (target < 100 ms); a decision after restart -> {decided}");
    std::mem::forget(dir);
    drop(server);
    Ok(())
}

/// Every result of work done at once, or the first failure.
fn all_of<T>(results: Vec<Result<T>>) -> Result<Vec<T>> {
    results.into_iter().collect()
}

/// Runs the benchmark the first argument names (all of them without one); a failure exits non-zero.
#[tokio::main]
async fn main() -> ExitCode {
    // 1,000 streams are 2,000 sockets here, and as many in the server (which raises its own limit).
    if let Err(e) = rlimit::increase_nofile_limit(u64::MAX) {
        eprintln!("could not raise the open file limit: {e}");
    }
    let which = std::env::args().nth(1).unwrap_or_else(|| "all".into());
    match run(&which).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("the benchmark stopped: {error}");
            ExitCode::FAILURE
        }
    }
}

/// The benchmark `which` names (or all of them), in order; the first that cannot go on stops the rest.
async fn run(which: &str) -> Result<()> {
    let wanted = |name: &str| which == "all" || which == name;
    if wanted("relay") {
        relay().await?;
    }
    if wanted("startup") {
        startup().await?;
    }
    if wanted("approvals") {
        approvals().await?;
    }
    // Today's unrouted approvals alternating with routed ones (one approval, and a quorum of two).
    if wanted("approvals") || which == "routed" {
        routed::routed_approvals().await?;
    }
    if wanted("streams") {
        streams().await?;
    }
    if wanted("listeners") {
        listeners().await?;
    }
    if wanted("waiting") {
        waiting().await?;
    }
    if wanted("outside") {
        outside::outside().await?;
    }
    if wanted("local") {
        local::local().await?;
    }
    if wanted("sessions") {
        sessions::sessions().await?;
    }
    Ok(())
}
