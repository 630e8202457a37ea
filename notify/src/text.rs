//! The words every channel says, in plain text: who asks, the risk, the quorum, how long is left. Each channel
//! puts them in its own shape (and escapes the untrusted summary its own way).

use std::time::{Duration, SystemTime};

use crate::notice::Notice;

/// At most this many characters of the summary go into a message (a push payload must stay under 4 KB).
pub const SUMMARY_CHARS: usize = 600;

/// The summary, cut to [`SUMMARY_CHARS`] with an ellipsis.
pub fn summary(notice: &Notice) -> String {
    let text = notice.summary.trim();
    if text.chars().count() <= SUMMARY_CHARS {
        return text.to_string();
    }
    let cut: String = text.chars().take(SUMMARY_CHARS).collect();
    format!("{cut}…")
}

/// "Expires in 14 min (05:12 UTC)", "Expired", or `None` when the request does not expire.
pub fn time_left(notice: &Notice, now: SystemTime) -> Option<String> {
    let expires = notice.expires_at.as_deref()?;
    let Ok(at) = humantime::parse_rfc3339_weak(expires) else {
        return Some(format!("Expires at {expires}"));
    };
    let clock = expires.get(11..16).map(|hm| format!(" ({hm} UTC)")).unwrap_or_default();
    Some(match at.duration_since(now) {
        Ok(left) => format!("Expires in {}{clock}", rounded(left)),
        Err(_) => format!("Expired{clock}"),
    })
}

/// A duration a person reads at a glance: "45 s", "14 min", "3 h 5 min", "2 days".
fn rounded(left: Duration) -> String {
    let secs = left.as_secs();
    match secs {
        0..=59 => format!("{secs} s"),
        60..=3599 => format!("{} min", secs.div_ceil(60)),
        3600..=86_399 => match (secs / 3600, (secs % 3600) / 60) {
            (h, 0) => format!("{h} h"),
            (h, m) => format!("{h} h {m} min"),
        },
        _ => format!("{} days", secs / 86_400),
    }
}

/// The facts under the title, one per line: "Asked by: …", "Risk: high", the quorum, the time left.
pub fn facts(notice: &Notice, now: SystemTime) -> Vec<String> {
    let mut lines = vec![format!("Asked by: {}", notice.asked_by), format!("Risk: {}", notice.risk.label())];
    if let Some(quorum) = &notice.quorum {
        lines.push(format!("Needs: {quorum}"));
    }
    if let Some(left) = time_left(notice, now) {
        lines.push(left);
    }
    lines
}

/// The whole message as plain text (the e-mail's text part, ntfy's body, the push notification's).
pub fn plain(notice: &Notice, now: SystemTime) -> String {
    let mut text = String::new();
    for line in facts(notice, now) {
        text.push_str(&line);
        text.push('\n');
    }
    text.push('\n');
    text.push_str(&summary(notice));
    text.push('\n');
    if !notice.links.is_empty() {
        text.push('\n');
        for link in &notice.links {
            text.push_str(&format!("{}: {}\n", link.label, link.url));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notice::NoticeKind;
    use warden_types::tool::Risk;

    fn notice(expires_at: Option<&str>) -> Notice {
        Notice {
            kind: NoticeKind::Request,
            title: "Approval needed".into(),
            asked_by: "Ann (member)".into(),
            summary: "x".repeat(700),
            risk: Risk::High,
            expires_at: expires_at.map(str::to_string),
            quorum: Some("1 of 2 approvals".into()),
            links: vec![],
        }
    }

    #[test]
    fn a_message_says_who_asks_the_risk_the_quorum_and_how_long_is_left() {
        let now = humantime::parse_rfc3339("2026-12-05T10:00:00Z").unwrap();
        let text = plain(&notice(Some("2026-12-05T10:14:00.000Z")), now);
        for part in ["Asked by: Ann (member)", "Risk: high", "Needs: 1 of 2 approvals", "Expires in 14 min (10:14 UTC)"]
        {
            assert!(text.contains(part), "{part} in {text}");
        }
        assert!(text.contains('…'), "a long summary is cut");
        assert_eq!(time_left(&notice(Some("2026-12-05T09:00:00Z")), now).unwrap(), "Expired (09:00 UTC)");
        assert_eq!(time_left(&notice(None), now), None);
        assert_eq!(rounded(Duration::from_secs(3 * 3600 + 300)), "3 h 5 min");
    }
}
