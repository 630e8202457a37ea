//! E-mail over SMTP (lettre): a plain-text part and an HTML part (multipart/alternative). Every piece of the
//! notice is escaped in the HTML; the links are the only markup.

use std::time::{Duration, SystemTime};

use lettre::message::{Mailbox, MultiPart};
use lettre::{AsyncTransport, Message};
use pulldown_cmark_escape::{escape_href, escape_html};
use warden_types::tool::Risk;

use super::{Delivery, SendError};
use crate::notice::{LinkIntent, Notice};
use crate::smtp::SmtpSettings;
use crate::text;

fn html_text(text: &str) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = escape_html(&mut out, text);
    out
}

fn html_href(url: &str) -> String {
    let mut out = String::new();
    let _ = escape_href(&mut out, url);
    html_text(&out)
}

/// The HTML part: a small, inline-styled card (mail readers drop `<style>` and scripts).
pub fn html(notice: &Notice, now: SystemTime) -> String {
    let colour = match notice.risk {
        Risk::Low => "#2e7d32",
        Risk::Medium => "#b26a00",
        Risk::High => "#c62828",
    };
    let facts: String = text::facts(notice, now).iter().map(|f| format!("<li>{}</li>", html_text(f))).collect();
    let links: String = notice
        .links
        .iter()
        .map(|l| {
            let bg = match l.intent {
                LinkIntent::Approve => "#2e7d32",
                LinkIntent::Deny => "#c62828",
                LinkIntent::Open => "#1f4e9c",
            };
            format!(
                "<a href=\"{}\" style=\"display:inline-block;margin:4px 8px 4px 0;padding:10px 16px;border-radius:6px;\
                 background:{bg};color:#fff;text-decoration:none;font-weight:600\">{}</a>",
                html_href(&l.url),
                html_text(&l.label)
            )
        })
        .collect();
    format!(
        "<!doctype html><html><body style=\"font-family:system-ui,sans-serif;color:#1b1b1b;max-width:560px\">\
         <h1 style=\"font-size:18px;border-left:4px solid {colour};padding-left:8px\">{}</h1>\
         <ul style=\"padding-left:18px\">{facts}</ul>\
         <pre style=\"white-space:pre-wrap;background:#f4f4f4;padding:8px;border-radius:4px\">{}</pre>\
         <p>{links}</p>\
         <p style=\"color:#666;font-size:12px\">Opening a link shows the request; nothing is decided until you \
         confirm on that page.</p></body></html>",
        html_text(&notice.title),
        html_text(&text::summary(notice)),
    )
}

pub fn message(from: Mailbox, to: &str, notice: &Notice, now: SystemTime) -> Result<Message, SendError> {
    let to: Mailbox = to.parse().map_err(|e| SendError::Config(format!("{to:?} is not an e-mail address ({e})")))?;
    let subject: String = notice.title.chars().filter(|c| !c.is_control()).take(200).collect();
    Message::builder()
        .from(from)
        .to(to)
        .subject(subject)
        .multipart(MultiPart::alternative_plain_html(text::plain(notice, now), html(notice, now)))
        .map_err(|e| SendError::Config(format!("the e-mail could not be written: {e}")))
}

pub async fn send(
    settings: &SmtpSettings,
    timeout: Duration,
    to: &str,
    notice: &Notice,
) -> Result<Delivery, SendError> {
    let (transport, from) = settings.transport(timeout).map_err(|e| SendError::Config(e.to_string()))?;
    let message = message(from, to, notice, SystemTime::now())?;
    let response = transport.send(message).await.map_err(smtp_error)?;
    let said = response.message().collect::<Vec<_>>().join(" ");
    Ok(Delivery { detail: format!("{} {said}", u16::from(response.code())).trim_end().to_string() })
}

fn smtp_error(e: lettre::transport::smtp::Error) -> SendError {
    match e.status() {
        Some(code) => SendError::Refused { status: u16::from(code), body: super::http::excerpt(&e.to_string()) },
        None if e.is_timeout() => SendError::Unreachable("the SMTP server gave no answer in time".into()),
        None => SendError::Unreachable(format!("the SMTP server could not be reached ({e})")),
    }
}
