//! What a signed-in browser's cookie costs a request: the session is read from SQLite (and its
//! last-seen time written at most once a minute) on every request it makes, where the access token is
//! checked in memory. The same cheap API request (`GET /api/threads` on an empty store), sent one at
//! a time with the token and with a session cookie, in alternating rounds; prints the server's CPU
//! and the wall time per request of each, and their difference.

use std::time::Instant;

use reqwest::header::{COOKIE, SET_COOKIE};
use reqwest::Client;

use crate::error::{ensure, BenchError, Result};
use crate::{client, cpu_seconds, data_dir, spawn_server_with, wait_healthy, TOKEN};

/// Requests a round; rounds of each kind.
const PER_ROUND: usize = 2_000;
const ROUNDS: usize = 4;

pub async fn sessions() -> Result<()> {
    let dir = data_dir()?;
    let server = spawn_server_with(dir.path(), &[])?;
    let with_token = client()?;
    wait_healthy(&with_token, &server.base).await;
    let with_cookie = signed_in_browser(&server.base).await?;
    let url = format!("{}/api/threads", server.base);
    let pid = server.child.id();
    let (mut token_runs, mut cookie_runs) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        token_runs.push(round(&with_token, &url, pid).await?);
        cookie_runs.push(round(&with_cookie, &url, pid).await?);
    }
    let (token_cpu, token_wall) = best(&token_runs);
    let (cookie_cpu, cookie_wall) = best(&cookie_runs);
    println!(
        "sessions: {PER_ROUND} requests a round, best of {ROUNDS} alternating rounds each; \
         token {token_cpu:.1} µs CPU, {token_wall:.1} µs wall a request; \
         cookie {cookie_cpu:.1} µs CPU, {cookie_wall:.1} µs wall; \
         the session read costs {:.1} µs CPU, {:.1} µs wall",
        cookie_cpu - token_cpu,
        cookie_wall - token_wall
    );
    Ok(())
}

/// Signs in with the sign-in link and returns a client that sends the session's cookie (and no token).
async fn signed_in_browser(base: &str) -> Result<Client> {
    let no_redirects = Client::builder().redirect(reqwest::redirect::Policy::none()).build()?;
    let res = no_redirects.get(format!("{base}/?token={TOKEN}")).send().await?;
    let set = res
        .headers()
        .get(SET_COOKIE)
        .and_then(|v| v.to_str().ok())
        .ok_or_else(|| BenchError::Unexpected(format!("the sign-in link set no cookie ({})", res.status())))?;
    let pair = set.split(';').next().unwrap_or(set);
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(COOKIE, reqwest::header::HeaderValue::from_str(pair)?);
    Ok(Client::builder().default_headers(headers).build()?)
}

/// Server CPU and wall time per request, in µs, over one round.
async fn round(http: &Client, url: &str, pid: u32) -> Result<(f64, f64)> {
    let cpu_from = cpu_seconds(pid);
    let started = Instant::now();
    for _ in 0..PER_ROUND {
        let res = http.get(url).send().await?;
        ensure(res.status().is_success(), || format!("{url} answered {}", res.status()))?;
        res.bytes().await?;
    }
    let per = |secs: f64| secs * 1e6 / PER_ROUND as f64;
    Ok((per(cpu_seconds(pid) - cpu_from), per(started.elapsed().as_secs_f64())))
}

/// The lowest CPU and the lowest wall time of the rounds (the least disturbed by other work).
fn best(runs: &[(f64, f64)]) -> (f64, f64) {
    let cpu = runs.iter().map(|r| r.0).fold(f64::INFINITY, f64::min);
    let wall = runs.iter().map(|r| r.1).fold(f64::INFINITY, f64::min);
    (cpu, wall)
}
