//! A Slack (or Slack-compatible: Mattermost, Rocket.Chat) incoming webhook: Block Kit, with `text` as the
//! fallback. The untrusted summary is only ever `plain_text` in the blocks, and in `text` (which Slack reads
//! as mrkdwn) `&`, `<` and `>` are escaped, so it can neither link nor mention (`<!channel>`).

use std::time::SystemTime;

use serde_json::{json, Value};

use super::http::{status_line, Client};
use super::{Delivery, SendError};
use crate::notice::{LinkIntent, Notice};
use crate::text;

/// Slack's escaping of the three characters its mrkdwn gives a meaning to.
fn escaped(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

fn plain(text: &str) -> Value {
    json!({ "type": "plain_text", "text": text, "emoji": false })
}

pub fn body(notice: &Notice, now: SystemTime) -> Value {
    let facts = text::facts(notice, now);
    let mut blocks = vec![
        json!({ "type": "header", "text": plain(&notice.title) }),
        json!({ "type": "section", "fields": facts.iter().map(|f| plain(f)).collect::<Vec<_>>() }),
        json!({ "type": "section", "text": plain(&text::summary(notice)) }),
    ];
    if !notice.links.is_empty() {
        let buttons: Vec<Value> = notice
            .links
            .iter()
            .map(|link| {
                let mut button = json!({ "type": "button", "text": plain(&link.label), "url": link.url });
                match link.intent {
                    LinkIntent::Approve => button["style"] = json!("primary"),
                    LinkIntent::Deny => button["style"] = json!("danger"),
                    LinkIntent::Open => {}
                }
                button
            })
            .collect();
        blocks.push(json!({ "type": "actions", "elements": buttons }));
    }
    let fallback = format!("{} — {} ({})", notice.title, notice.asked_by, facts[1..].join(", "));
    json!({ "text": escaped(&fallback), "blocks": blocks })
}

pub async fn send(http: &Client, url: &str, notice: &Notice) -> Result<Delivery, SendError> {
    let answer = http.send(http.post(url).json(&body(notice, SystemTime::now()))).await?;
    let said = answer.body.trim();
    let detail =
        if said.is_empty() { status_line(answer.status) } else { format!("{} {said}", status_line(answer.status)) };
    Ok(Delivery { detail })
}
