//! `local`: the built-in model through the server. A thread of short questions, each answer timed at the
//! client from sending the message to its first token, and at the model from the engine's own account of
//! each turn (its debug log line "the built-in model answered a turn": tokens in the prompt, tokens
//! generated, milliseconds spent reading them back and sampling). Decode speed is taken from that account:
//! at the client, text arrives in frames of up to 16 ms (the run's relay), so counting text events there
//! counts frames, not tokens, and never shows more than about 60 a second.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use eventsource_stream::Eventsource;
use futures::StreamExt;
use serde_json::json;

use crate::error::{BenchError, Result};
use crate::{client, data_dir, new_thread, rss_kib, server_command, spawn, wait_healthy};

/// The questions of the thread; the first also makes the model title the thread, and is not counted.
const QUESTIONS: [&str; 7] = [
    "Say hello.",
    "What is the capital of France?",
    "Name three colours.",
    "What is 2 plus 2?",
    "Write a short poem about the sea.",
    "What is a lighthouse?",
    "Name a fruit.",
];

/// Fewer tokens than this in an answer say too little about its speed.
const MIN_GENERATED: u64 = 5;

/// The built-in model through the server, on one CPU thread (`WARDEN_LOCAL_THREADS=1`) and on the
/// server's default.
pub async fn local() -> Result<()> {
    local_on(Some(1)).await?;
    local_on(None).await
}

/// One turn as the engine accounted for it.
#[derive(Debug, Default, Clone, Copy)]
struct Turn {
    prompt_tokens: u64,
    generated: u64,
    /// Reading each generated token back in, and sampling it.
    decode_ms: f64,
}

impl Turn {
    /// From a log line of the worker, colours or not.
    fn parse(line: &str) -> Option<Turn> {
        let line = strip_ansi(line);
        if !line.contains("the built-in model answered a turn") {
            return None;
        }
        let field = |name: &str| -> Option<f64> {
            let at = line.find(&format!(" {name}="))? + name.len() + 2;
            line[at..].split(|c: char| c.is_whitespace()).next()?.parse().ok()
        };
        Some(Turn {
            prompt_tokens: field("prompt_tokens")? as u64,
            generated: field("generated")? as u64,
            decode_ms: field("generating_ms")? + field("sampling_ms")?,
        })
    }

    fn tokens_per_second(&self) -> f64 {
        self.generated as f64 / (self.decode_ms / 1000.0)
    }
}

fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [ parameters final-byte
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `threads` pins inference to that many CPU threads.
async fn local_on(threads: Option<u32>) -> Result<()> {
    let model = std::env::var("WARDEN_LOCAL_MODEL").unwrap_or_else(|_| {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        root.join("target/models/SmolLM2-135M-Instruct.Q4_1.gguf").display().to_string()
    });
    let dir = data_dir()?;
    let threads_setting = threads.map(|n| n.to_string());
    let mut env = vec![("WARDEN_MODEL", "local"), ("WARDEN_LOCAL_MODEL", model.as_str())];
    if let Some(n) = &threads_setting {
        env.push(("WARDEN_LOCAL_THREADS", n));
    }
    let (mut cmd, base) = server_command(dir.path(), &env);
    cmd.env("RUST_LOG", "warn,warden_local::worker=debug").env("NO_COLOR", "1").stdout(Stdio::piped());
    let mut server = spawn(cmd, base)?;
    let turns = Arc::new(Mutex::new(Vec::<Turn>::new()));
    let log =
        server.child.stdout.take().ok_or_else(|| BenchError::Unexpected("the server's stdout is not piped".into()))?;
    let reader = {
        let turns = turns.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(log).lines().map_while(Result::ok) {
                if let Some(turn) = Turn::parse(&line) {
                    turns.lock().unwrap_or_else(PoisonError::into_inner).push(turn);
                }
            }
        })
    };
    let http = client()?;
    wait_healthy(&http, &server.base).await;
    let pid = server.child.id();
    let loaded = rss_kib(pid);
    let thread = new_thread(&http, &server.base).await?;
    // The thread's title comes after its first run ended, on the pages' feed; the next question waits
    // for it, so that the model's log has the first answer, then the title, then the other answers.
    let mut feed = crate::open_feed(&http, &server.base).await?;
    let (mut first, mut peak) = (Vec::new(), loaded);
    let mut first_run = (0.0, 0.0);
    for (i, q) in QUESTIONS.iter().enumerate() {
        let sent = Instant::now();
        let res = http.post(format!("{}/api/threads/{thread}/messages", server.base)).json(&json!({ "content": q }));
        let mut stream = res.send().await?.bytes_stream().eventsource();
        let mut first_text = None;
        while let Some(Ok(event)) = stream.next().await {
            match event.event.as_str() {
                "text_delta" => {
                    first_text.get_or_insert_with(Instant::now);
                }
                "run_finished" | "run_failed" => break,
                _ => {}
            }
        }
        peak = peak.max(rss_kib(pid));
        if i == 0 {
            let ended = sent.elapsed();
            crate::named(&mut feed, [thread.as_str()], std::time::Duration::from_secs(60)).await;
            first_run = (ended.as_secs_f64() * 1000.0, (sent.elapsed() - ended).as_secs_f64() * 1000.0);
        }
        if let (true, Some(at)) = (i > 0, first_text) {
            first.push((at - sent).as_secs_f64() * 1000.0);
        }
    }
    drop(server);
    let _ = reader.join();
    let turns = turns.lock().unwrap_or_else(PoisonError::into_inner).clone();
    // The answers to the questions after the first: the thread's first answer and its title come first.
    let answers: Vec<Turn> = turns.iter().skip(2).copied().filter(|t| t.generated >= MIN_GENERATED).collect();
    let mut rates: Vec<f64> = answers.iter().map(Turn::tokens_per_second).collect();
    first.sort_by(f64::total_cmp);
    rates.sort_by(f64::total_cmp);
    let mid = |v: &[f64]| v.get(v.len() / 2).copied().unwrap_or(0.0);
    let depths = (
        answers.iter().map(|t| t.prompt_tokens).min().unwrap_or(0),
        answers.iter().map(|t| t.prompt_tokens).max().unwrap_or(0),
    );
    let system_prompt = turns.first().map_or(0, |t| t.prompt_tokens);
    println!(
        "local ({}): first token p50 {:.0} ms (min {:.0}) over {} answers; decode {:.1} tokens/s p50 (min {:.1}, max {:.1}) over {} answers of {}+ tokens at a context depth of {}-{} tokens (the first prompt, system text and tools included: {} tokens); RSS with the model loaded {:.0} MB, peak {:.0} MB",
        match threads {
            Some(n) => format!("WARDEN_LOCAL_THREADS={n}"),
            None => format!("default: {} threads here", std::thread::available_parallelism().map_or(1, |n| n.get()).min(4)),
        },
        mid(&first), first.first().copied().unwrap_or(0.0), first.len(),
        mid(&rates), rates.first().copied().unwrap_or(0.0), rates.last().copied().unwrap_or(0.0), rates.len(),
        MIN_GENERATED, depths.0, depths.1, system_prompt,
        loaded as f64 / 1024.0, peak as f64 / 1024.0
    );
    println!(
        "local: the thread's first run ended {:.0} ms after its message; the model's title came {:.0} ms after that",
        first_run.0, first_run.1
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_is_read_from_the_workers_log_line_with_or_without_colours() {
        let plain = "2026-11-24T23:22:04Z DEBUG warden_local::worker: the built-in model answered a turn \
                     prompt_tokens=354 read_tokens=354 read_ms=1663.4 generated=26 generating_ms=240.5 sampling_ms=6.5 outcome=Ok(Stop)";
        let turn = Turn::parse(plain).unwrap();
        assert_eq!((turn.prompt_tokens, turn.generated), (354, 26));
        assert!((turn.decode_ms - 247.0).abs() < 1e-9);
        let coloured = plain.replace(" generated=", " \u{1b}[3mgenerated\u{1b}[0m\u{1b}[2m=\u{1b}[0m");
        assert_eq!(Turn::parse(&coloured).unwrap().generated, 26);
        assert!(Turn::parse("DEBUG something else generated=3").is_none());
    }
}
