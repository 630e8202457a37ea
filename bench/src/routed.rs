//! `approvals`' routed mode: the same round as today's (a message, its card, the decision, `echo ok`, the
//! answer) with an approval policy routing the card to an approver who is not the requester, once with one
//! approval needed and once with two, in rounds alternating with today's unrouted mode (the founding owner
//! decides alone). Message -> card at the approver is timed to the `arrived` event on that approver's inbox
//! feed (their signed-in browser's cookie); decision -> result from the deciding (last) vote to the run's
//! `tool_result`.

use std::time::Instant;

use eventsource_stream::Eventsource;
use futures::StreamExt;
use reqwest::header::{COOKIE, ORIGIN, SET_COOKIE};
use reqwest::Client;
use serde_json::{json, Value};

use super::error::{ensure, text_at, BenchError, Result};
use super::{client, data_dir, new_thread, percentile, post_until, shell_script, spawn_server, wait_healthy, Events};
use warden_testkit::FixtureModel;

const PASSWORD: &str = "correct horse battery staple";

/// An approver invited by the owner, joined by the link, signed in: their client and id.
async fn approver(owner: &Client, base: &str, login: &str) -> Result<(Client, String)> {
    let invited: Value = owner
        .post(format!("{base}/api/people/invitations"))
        .json(&json!({"role": "approver", "name": login}))
        .send()
        .await?
        .json()
        .await?;
    let link = text_at(&invited, "/link")?;
    let no_redirects = Client::builder().redirect(reqwest::redirect::Policy::none()).build()?;
    let form = [("login", login), ("name", login), ("password", PASSWORD), ("password_again", PASSWORD)];
    // Plain letters and spaces only: spaces as `+`, nothing else to escape.
    let body = form.iter().map(|(k, v)| format!("{k}={}", v.replace(' ', "+"))).collect::<Vec<_>>().join("&");
    let res = no_redirects
        .post(&link)
        .header(ORIGIN, base)
        .header(reqwest::header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await?;
    let set = res
        .headers()
        .get(SET_COOKIE)
        .and_then(|v| v.to_str().ok())
        .ok_or_else(|| BenchError::Unexpected(format!("joining set no cookie ({})", res.status())))?;
    let pair = set.split(';').next().unwrap_or(set);
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(COOKIE, reqwest::header::HeaderValue::from_str(pair)?);
    let http = Client::builder().default_headers(headers).build()?;
    let me: Value = http.get(format!("{base}/api/me")).send().await?.json().await?;
    Ok((http, text_at(&me, "/id")?))
}

/// Leaves exactly the policy of `mode`: none (today's), or every shell call to `approvers` with `quorum`.
async fn set_policy(owner: &Client, base: &str, approvers: &[String], quorum: u32) -> Result<()> {
    let listed: Value = owner.get(format!("{base}/api/policies")).send().await?.json().await?;
    for policy in listed.as_array().into_iter().flatten() {
        let id = text_at(policy, "/id")?;
        owner.delete(format!("{base}/api/policies/{id}")).send().await?;
    }
    if quorum > 0 {
        let body =
            json!({"name": "bench", "match": {"tool": "shell"}, "approvers": {"people": approvers}, "quorum": quorum});
        let res = owner.post(format!("{base}/api/policies")).json(&body).send().await?;
        ensure(res.status().is_success(), || format!("the policy answered {}", res.status()))?;
    }
    Ok(())
}

async fn next_arrived(feed: &mut Events) -> Result<()> {
    while let Some(Ok(e)) = feed.next().await {
        if e.event == "arrived" {
            return Ok(());
        }
    }
    Err(BenchError::Unexpected("the approver's feed ended".into()))
}

async fn decide(http: &Client, base: &str, id: &str) -> Result<()> {
    let res = http.post(format!("{base}/api/approvals/{id}")).json(&json!({"decision": "approve"})).send().await?;
    ensure(res.status().is_success(), || format!("the decision on {id} answered {}", res.status()))
}

pub async fn routed_approvals() -> Result<()> {
    let model = FixtureModel::start(shell_script()).await?;
    let dir = data_dir()?;
    let server = spawn_server(dir.path(), &model, &[])?;
    let owner = client()?;
    let base = server.base.clone();
    wait_healthy(&owner, &base).await;
    let (ann, ann_id) = approver(&owner, &base, "ann").await?;
    let (bea, bea_id) = approver(&owner, &base, "bea").await?;
    let approvers = [ann_id, bea_id];
    let mut feed: Events =
        ann.get(format!("{base}/api/inbox/events")).send().await?.bytes_stream().eventsource().boxed();
    // Per mode (0 unrouted, 1 routed to one approver, 2 two approvals): message -> card, decision -> result.
    let mut times: [(Vec<f64>, Vec<f64>); 3] = Default::default();
    let rounds = std::env::var("WARDEN_BENCH_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(90usize);
    for i in 0..rounds {
        let mode = i % 3;
        set_policy(&owner, &base, &approvers, mode as u32).await?;
        let thread = new_thread(&owner, &base).await?;
        let t0 = Instant::now();
        let (data, mut stream) = post_until(&owner, &base, &thread, "run echo", "approval_request").await?;
        if mode > 0 {
            next_arrived(&mut feed).await?;
        }
        let t1 = Instant::now();
        let id = text_at(&data, "/approval/id")?;
        let t2 = match mode {
            0 => {
                let t2 = Instant::now();
                decide(&owner, &base, &id).await?;
                t2
            }
            1 => {
                let t2 = Instant::now();
                decide(&ann, &base, &id).await?;
                t2
            }
            _ => {
                decide(&ann, &base, &id).await?;
                let t2 = Instant::now();
                decide(&bea, &base, &id).await?;
                t2
            }
        };
        while let Some(Ok(e)) = stream.next().await {
            if e.event == "tool_result" {
                break;
            }
        }
        let t3 = Instant::now();
        if i >= 6 {
            times[mode].0.push((t1 - t0).as_secs_f64() * 1000.0);
            times[mode].1.push((t3 - t2).as_secs_f64() * 1000.0);
        }
        while let Some(Ok(e)) = stream.next().await {
            if e.event == "run_finished" {
                break;
            }
        }
    }
    for (mode, (card, result)) in times.iter_mut().enumerate() {
        card.sort_by(f64::total_cmp);
        result.sort_by(f64::total_cmp);
        let name = ["unrouted (owner alone)", "routed, 1 approval", "routed, quorum 2"][mode];
        println!(
            "approvals {name}: message -> card p50 {:.2} ms p95 {:.2} ms; decision -> result p50 {:.2} ms p95 {:.2} ms",
            percentile(card, 0.5),
            percentile(card, 0.95),
            percentile(result, 0.5),
            percentile(result, 0.95)
        );
    }
    Ok(())
}
