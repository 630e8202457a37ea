//! Measures (asserts nothing about time): from `Notifier::send` to the loopback receiver having the message,
//! per channel kind, p50 and p95 over 50 sends. Run with
//! `cargo test --release -p warden-notify --test delivery_times -- --ignored --nocapture`; the figures are in
//! docs/PERFORMANCE.md.
#![allow(clippy::unwrap_used, reason = "tests")]

use std::time::{Duration, Instant};

use warden_db::Database;
use warden_notify::{ChannelConfig, ChannelInput, ChannelOwner, Notice, Notifier, NotifierOptions};
use warden_testkit::notify::NotifyFixture;
use warden_types::id::PersonId;

const SENDS: usize = 50;

fn percentile(sorted: &[Duration], p: usize) -> Duration {
    sorted[((sorted.len() * p).div_ceil(100)).saturating_sub(1).min(sorted.len() - 1)]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: run with --ignored --nocapture"]
async fn time_from_send_to_the_receiver_per_kind() {
    let fixture = NotifyFixture::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let database = Database::open(&format!("sqlite://{}", dir.path().join("w.db").display())).await.unwrap();
    let options = NotifierOptions { smtp_url: Some(fixture.smtp_url()), ..NotifierOptions::default() };
    let notifier = Notifier::open(&database, options).await.unwrap();
    let subscription = fixture.subscription(false);
    let kinds = [
        (
            "webhook",
            ChannelConfig::Webhook { url: fixture.url("/webhook"), secret: Some(fixture.webhook_secret().into()) },
        ),
        ("slack", ChannelConfig::Slack { url: fixture.url("/slack/T/B/x") }),
        ("discord", ChannelConfig::Discord { url: fixture.url("/discord/1/x") }),
        ("ntfy", ChannelConfig::Ntfy { server: fixture.url("/ntfy"), topic: "bench".into(), token: None }),
        ("email", ChannelConfig::Email { address: "ann@example.com".into() }),
        (
            "web_push",
            ChannelConfig::WebPush {
                endpoint: subscription.endpoint.clone(),
                p256dh: subscription.keys.p256dh.clone(),
                auth: subscription.keys.auth.clone(),
            },
        ),
    ];
    let person = PersonId::new();
    let notice = Notice::test("Bench (member)", "https://warden.example/");
    println!("| channel | p50 | p95 | sends |");
    println!("|---|---|---|---|");
    for (name, config) in kinds {
        let input = ChannelInput { name: name.into(), config };
        let (channel, _) =
            notifier.channels().create(&ChannelOwner::Person(person.clone()), &person, &input).await.unwrap();
        let mut times = Vec::with_capacity(SENDS);
        for i in 0..SENDS {
            let start = Instant::now();
            notifier.send(&channel, &notice).await.unwrap();
            let got = fixture.next(name, i, Duration::from_secs(10)).await.unwrap();
            times.push(got.arrived.unwrap().duration_since(start));
        }
        times.sort();
        let ms = |d: Duration| format!("{:.1} ms", d.as_secs_f64() * 1000.0);
        println!("| {name} | {} | {} | {SENDS} |", ms(percentile(&times, 50)), ms(percentile(&times, 95)));
    }
}
