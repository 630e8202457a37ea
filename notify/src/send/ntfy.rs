//! An ntfy topic (self-hosted or ntfy.sh): a JSON publish to the server's root, with the title, the priority
//! by risk, tags, the link a tap opens (`click`) and a `view` action per link. ntfy shows the message as plain
//! text (no `markdown`), so the untrusted summary needs no escaping.

use std::time::SystemTime;

use serde_json::{json, Value};
use warden_types::tool::Risk;

use super::http::{status_line, Client};
use super::{Delivery, SendError};
use crate::notice::{Notice, NoticeKind};
use crate::text;

/// ntfy's priorities: 3 default, 4 high, 5 urgent.
fn priority(risk: Risk) -> u8 {
    match risk {
        Risk::Low => 3,
        Risk::Medium => 4,
        Risk::High => 5,
    }
}

pub fn body(topic: &str, notice: &Notice, now: SystemTime) -> Value {
    let mut tags = vec![match notice.risk {
        Risk::Low => "white_check_mark",
        Risk::Medium => "warning",
        Risk::High => "rotating_light",
    }];
    if notice.kind == NoticeKind::Escalated {
        tags.push("arrow_up");
    }
    // ntfy shows at most three actions.
    let actions: Vec<Value> = notice
        .links
        .iter()
        .take(3)
        .map(|l| json!({ "action": "view", "label": l.label, "url": l.url, "clear": true }))
        .collect();
    let mut message = text::facts(notice, now).join("\n");
    message.push_str("\n\n");
    message.push_str(&text::summary(notice));
    json!({
        "topic": topic,
        "title": notice.title,
        "message": message,
        "priority": priority(notice.risk),
        "tags": tags,
        "click": notice.main_link().map(|l| l.url.clone()),
        "actions": actions,
    })
}

pub async fn send(
    http: &Client,
    server: &str,
    topic: &str,
    token: Option<&str>,
    notice: &Notice,
) -> Result<Delivery, SendError> {
    let mut request = http.post(server.trim_end_matches('/')).json(&body(topic, notice, SystemTime::now()));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let answer = http.send(request).await?;
    let id = serde_json::from_str::<Value>(&answer.body).ok().and_then(|v| v["id"].as_str().map(str::to_string));
    let detail = match id {
        Some(id) => format!("{} (ntfy message {id})", status_line(answer.status)),
        None => status_line(answer.status),
    };
    Ok(Delivery { detail })
}
