//! A Discord (or Discord-compatible) webhook: `content` and one embed. Webhooks may not carry buttons, so the
//! links are Markdown links in the embed. Untrusted text has every Markdown character escaped and
//! `allowed_mentions` is empty, so it can neither format, link nor ping `@everyone`.

use std::time::SystemTime;

use serde_json::{json, Value};

use super::http::{status_line, Client};
use super::{Delivery, SendError};
use crate::notice::Notice;
use crate::text;
use warden_types::tool::Risk;

/// Discord's Markdown made inert: a backslash before each character it reads.
pub fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '\\' | '*' | '_' | '~' | '`' | '|' | '>' | '#' | '-' | '[' | ']' | '(' | ')' | '<' | '@' | ':') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn colour(risk: Risk) -> u32 {
    match risk {
        Risk::Low => 0x2e7d32,
        Risk::Medium => 0xf9a825,
        Risk::High => 0xc62828,
    }
}

pub fn body(notice: &Notice, now: SystemTime) -> Value {
    let facts = text::facts(notice, now);
    let links: Vec<String> = notice
        .links
        .iter()
        .map(|l| format!("[{}](<{}>)", escaped(&l.label), l.url.replace(['<', '>', ' '], "")))
        .collect();
    let mut description = escaped(&text::summary(notice));
    if !links.is_empty() {
        description.push_str("\n\n");
        description.push_str(&links.join(" · "));
    }
    json!({
        "content": escaped(&notice.title),
        "allowed_mentions": { "parse": [] },
        "embeds": [{
            "title": notice.title,
            "url": notice.main_link().map(|l| l.url.clone()),
            "description": description,
            "color": colour(notice.risk),
            "fields": facts.iter().map(|f| {
                let (name, value) = f.split_once(": ").unwrap_or(("", f));
                json!({ "name": if name.is_empty() { "When" } else { name }, "value": escaped(value), "inline": true })
            }).collect::<Vec<_>>(),
        }],
    })
}

pub async fn send(http: &Client, url: &str, notice: &Notice) -> Result<Delivery, SendError> {
    let answer = http.send(http.post(url).json(&body(notice, SystemTime::now()))).await?;
    Ok(Delivery { detail: status_line(answer.status) })
}
