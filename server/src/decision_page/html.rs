//! The decision link's pages as HTML: no script, a stylesheet of their own (`/decide.css`, made for a
//! phone's screen, light and dark as the device is), every piece of text from a model, a tool or a client
//! escaped and its hidden characters made visible.

use std::time::SystemTime;

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use warden_types::approval::Verdict;
use warden_types::hidden_chars::made_visible;
use warden_types::tool::Risk;

use crate::access::escape;
use crate::request_view::{RequestView, Standing, WillDo};

/// Scripts none; styles, forms and images only from this server.
const PAGE_POLICY: &str = "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; \
                           form-action 'self'; frame-ancestors 'none'";

/// A whole page. The referrer policy is `same-origin` so that the form's POST carries an `Origin` the gate
/// accepts (see `sign_in_page::page`).
pub fn page(status: StatusCode, title: &str, body: &str) -> Response {
    let title = escape(title);
    let html = format!(
        r#"<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="same-origin"><meta name="robots" content="noindex"><title>{title} · Warden</title><link rel="stylesheet" href="/decide.css"></head>
<body>
<main class="decide">
<p class="brand">Warden</p>
{body}
</main>
</body>
</html>
"#
    );
    let headers = [
        (header::CONTENT_TYPE, "text/html; charset=utf-8"),
        (header::CACHE_CONTROL, "no-store"),
        (header::CONTENT_SECURITY_POLICY, PAGE_POLICY),
    ];
    (status, headers, html).into_response()
}

fn text(untrusted: &str) -> String {
    escape(&made_visible(untrusted))
}

fn risk_badge(risk: Risk) -> String {
    let label = risk.label();
    format!(r#"<span class="risk risk-{label}">{} risk</span>"#, capitalized(label))
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// "until 14:05 UTC, 23 minutes from now".
fn deadline(expires_at: &str) -> Option<String> {
    let at = warden_db::timestamp::parse_time(expires_at)?;
    let left = at.duration_since(SystemTime::now()).unwrap_or_default().as_secs();
    let clock = expires_at.get(11..16)?;
    let left = match left {
        0 => "now".to_string(),
        s if s < 120 => format!("{s} seconds from now"),
        s if s < 2 * 3600 => format!("{} minutes from now", s / 60),
        s => format!("{} hours from now", s / 3600),
    };
    Some(format!("until {clock} UTC, {left}"))
}

fn will_do(view: &RequestView) -> String {
    match &view.will_do {
        WillDo::Command(command) => {
            format!(r#"<p class="label">Command</p><pre class="command">{}</pre>"#, text(command))
        }
        WillDo::Diff { path, diff } => {
            let lines: String = diff
                .lines()
                .map(|line| {
                    let class = match line.as_bytes().first() {
                        Some(b'+') if !line.starts_with("+++") => "add",
                        Some(b'-') if !line.starts_with("---") => "del",
                        _ => "ctx",
                    };
                    format!(r#"<span class="{class}">{}</span>"#, text(line))
                })
                // Each line is a block of its own: no newline between them (under `white-space: pre` one would
                // add an empty line).
                .collect::<String>();
            format!(r#"<p class="label">Changes to <code>{}</code></p><pre class="diff">{lines}</pre>"#, text(path))
        }
        WillDo::Code { language, code } => {
            let language = language.as_deref().map(|l| format!(" ({})", text(l))).unwrap_or_default();
            format!(r#"<p class="label">Code{language}</p><pre class="command">{}</pre>"#, text(code))
        }
        WillDo::Output { stdout, stderr, exit_code } => {
            let exit = exit_code.map(|c| format!("exit code {c}")).unwrap_or_else(|| "exit code unknown".into());
            format!(
                r#"<p class="label">Output ({exit})</p><pre class="command">{}</pre>{}"#,
                text(stdout),
                if stderr.is_empty() {
                    String::new()
                } else {
                    format!(r#"<p class="label">Errors</p><pre class="command">{}</pre>"#, text(stderr))
                }
            )
        }
        WillDo::Arguments(arguments) => {
            format!(r#"<p class="label">Arguments</p><pre class="arguments">{}</pre>"#, text(arguments))
        }
    }
}

/// The card: what it will do, who asks, the risk, the quorum and the deadline.
pub fn card(view: &RequestView) -> String {
    let quorum = if view.route.quorum > 1 || view.votes.is_some() {
        let votes = view.votes.as_deref().map(|v| format!(" ({})", text(v))).unwrap_or_default();
        format!(r#"<p class="quorum">{}{votes}</p>"#, escape(&view.progress))
    } else {
        String::new()
    };
    let policy = view.route.policy.as_ref().map(|p| format!(r#" · policy “{}”"#, text(&p.name))).unwrap_or_default();
    let waits = match (&view.standing, view.expires_at.as_deref().and_then(deadline)) {
        (Standing::Pending, Some(deadline)) => format!(r#"<p class="deadline">Waits {deadline}.</p>"#),
        _ => String::new(),
    };
    format!(
        r#"<section class="card risk-{risk_name}" aria-labelledby="card-title">
<h2 id="card-title">{title} <span class="origin">{origin}</span></h2>
<p class="meta">Asked by {asked_by}{policy}</p>
<p class="summary" dir="auto">{summary}</p>
<p>{risk}</p>
{will_do}
{quorum}{waits}</section>"#,
        title = escape(&view.title),
        origin = text(&view.origin),
        asked_by = text(&view.asked_by),
        summary = text(&view.summary),
        risk = risk_badge(view.risk),
        risk_name = view.risk.label(),
        will_do = will_do(view),
    )
}

/// The confirm page of a usable link: the card and one button, for the link's intent.
pub fn confirm(view: &RequestView, intent: Verdict, person: &str, notice: Option<&str>, action: &str) -> Response {
    let (heading, button, class) = match intent {
        Verdict::Approve => ("Approve this request?", "Approve", "approve"),
        Verdict::Deny => ("Deny this request?", "Deny", "deny"),
    };
    let reason = match intent {
        Verdict::Deny => {
            r#"<p><label for="reason">Reason (optional, told to the agent)</label><textarea id="reason" name="reason" rows="3" maxlength="2000" dir="auto"></textarea></p>"#
        }
        Verdict::Approve => "",
    };
    let notice = notice.map(|n| format!(r#"<p class="notice" role="status">{}</p>"#, escape(n))).unwrap_or_default();
    let body = format!(
        r#"<h1>{heading}</h1>
{notice}{card}
<form method="post" action="{action}" class="decide-form">
<input type="hidden" name="shown" value="{fingerprint}">
{reason}<p><button type="submit" class="{class}">{button}</button></p>
</form>
<p class="fine">You decide as <strong>{person}</strong>. This link works once. To edit the request or decide otherwise, <a href="{app}">open it in Warden</a> (sign-in needed).</p>"#,
        card = card(view),
        fingerprint = escape(&view.fingerprint),
        person = text(person),
        app = escape(&view.app_path),
    );
    page(StatusCode::OK, heading, &body)
}

/// A page that says why nothing can be decided here, with the card when there is one.
pub fn why_not(status: StatusCode, heading: &str, reason: &str, view: Option<&RequestView>) -> Response {
    let card = view.map(card).unwrap_or_default();
    let open = view
        .map(|v| {
            format!(r#"<p class="fine"><a href="{}">Open it in Warden</a> (sign-in needed).</p>"#, escape(&v.app_path))
        })
        .unwrap_or_default();
    let body =
        format!(r#"<h1>{}</h1><p class="notice" role="status">{}</p>{card}{open}"#, escape(heading), escape(reason));
    page(status, heading, &body)
}

/// What the decision did.
pub fn done(heading: &str, what: &str, view: &RequestView) -> Response {
    let body = format!(
        r#"<h1>{}</h1><p class="notice done" role="status">{}</p>{}<p class="fine"><a href="{}">Open it in Warden</a> (sign-in needed).</p>"#,
        escape(heading),
        escape(what),
        card(view),
        escape(&view.app_path)
    );
    page(StatusCode::OK, heading, &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deadline_says_the_time_and_what_is_left() {
        let soon = warden_db::timestamp::at(SystemTime::now() + std::time::Duration::from_secs(600));
        let said = deadline(&soon).expect("a deadline");
        assert!(said.starts_with(&format!("until {} UTC, ", &soon[11..16])), "{said}");
        assert!(said.ends_with("minutes from now"), "{said}");
        assert_eq!(deadline("not a time"), None);
    }
}
