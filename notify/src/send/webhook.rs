//! The generic JSON webhook: a POST of the notice's fields, signed as Stripe signs its webhooks. The header
//! `Warden-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "{t}.{body}" with the channel's secret>` lets the
//! receiver check both who sent it and when (refuse anything older than [`REPLAY_WINDOW`]); `Warden-Delivery`
//! is a unique id per send, to drop a repeat. docs/NOTIFICATIONS.md shows how to verify.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hmac::{Hmac, Mac};
use serde_json::json;
use sha2::Sha256;

use super::http::{status_line, Client};
use super::{Delivery, SendError};
use crate::notice::Notice;
use crate::text;

pub const SIGNATURE_HEADER: &str = "Warden-Signature";
pub const DELIVERY_HEADER: &str = "Warden-Delivery";
/// How old a signature a receiver should still take (and how far in the future).
pub const REPLAY_WINDOW: Duration = Duration::from_secs(5 * 60);

/// The signature header's value for `body` sent at `timestamp` (unix seconds).
pub fn sign(secret: &str, timestamp: u64, body: &str) -> String {
    // HMAC takes a key of any length: `new_from_slice` cannot refuse it.
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret.as_bytes()) else {
        return format!("t={timestamp},v1=");
    };
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body.as_bytes());
    format!("t={timestamp},v1={}", hex::encode(mac.finalize().into_bytes()))
}

/// The JSON body: the notice's fields, when it was sent, and the delivery's id.
pub fn body(notice: &Notice, delivery: &str, now: SystemTime) -> serde_json::Value {
    json!({
        "delivery": delivery,
        "kind": notice.kind.as_str(),
        "title": notice.title,
        "asked_by": notice.asked_by,
        "summary": text::summary(notice),
        "risk": notice.risk.label(),
        "expires_at": notice.expires_at,
        "time_left": text::time_left(notice, now),
        "quorum": notice.quorum,
        "links": notice.links,
        "sent_at": warden_db::timestamp::at(now),
    })
}

pub async fn send(http: &Client, url: &str, secret: &str, notice: &Notice) -> Result<Delivery, SendError> {
    let now = SystemTime::now();
    let delivery = warden_db::new_id();
    let body = body(notice, &delivery, now).to_string();
    let timestamp = now.duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or_default();
    let request = http
        .post(url)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .header(SIGNATURE_HEADER, sign(secret, timestamp, &body))
        .header(DELIVERY_HEADER, &delivery)
        .body(body);
    let answer = http.send(request).await?;
    Ok(Delivery { detail: status_line(answer.status) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_is_stripes_scheme_over_timestamp_dot_body() {
        // Computed independently: printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac whsec_test
        assert_eq!(
            sign("whsec_test", 1_700_000_000, r#"{"a":1}"#),
            "t=1700000000,v1=38877139021993b830af32feea6e18a8da83eb2f6e49ee50bd9e4cf4ca4d3789"
        );
    }
}
