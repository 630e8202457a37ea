//! `fixture-notify [--port N] [--smtp-port N] [--webhook-secret S]`: the notification receivers of
//! `warden_testkit::notify` (SMTP, signed webhook, Slack, Discord, ntfy, Web Push) for browser tests. It prints
//! one JSON line when listening — `{"event":"listening","http","smtp","webhook_secret","subscription"}` with a
//! ready push subscription — and exits when stdin closes, so it never outlives the test that started it. What
//! it received is at `GET <http>/received`.

use std::process::ExitCode;

use serde_json::json;
use std::io::Read;
use warden_testkit::notify::{NotifyFixture, WEBHOOK_SECRET};

const USAGE: &str = "usage: fixture-notify [--port N] [--smtp-port N] [--webhook-secret S]";

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<(u16, u16, String), String> {
    let (mut port, mut smtp_port, mut secret) = (0u16, 0u16, WEBHOOK_SECRET.to_string());
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        let number = |v: String| v.parse::<u16>().map_err(|_| "a port is a number from 0 to 65535".to_string());
        match flag.as_str() {
            "--port" => port = number(value()?)?,
            "--smtp-port" => smtp_port = number(value()?)?,
            "--webhook-secret" => secret = value()?,
            "-h" | "--help" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    Ok((port, smtp_port, secret))
}

#[tokio::main]
async fn main() -> ExitCode {
    let (port, smtp_port, secret) = match parse_args(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let fixture = match NotifyFixture::start_on(port, smtp_port, &secret).await {
        Ok(fixture) => fixture,
        Err(e) => {
            eprintln!("cannot listen on 127.0.0.1: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "{}",
        json!({
            "event": "listening",
            "http": fixture.url(""),
            "smtp": fixture.smtp_url(),
            "smtp_port": fixture.smtp_port(),
            "webhook_secret": fixture.webhook_secret(),
            "subscription": fixture.subscription(false),
        })
    );
    // Until stdin closes (a blocking read, on a thread of its own).
    let _ = tokio::task::spawn_blocking(|| {
        let mut buffer = [0u8; 1024];
        while matches!(std::io::stdin().read(&mut buffer), Ok(n) if n > 0) {}
    })
    .await;
    ExitCode::SUCCESS
}
