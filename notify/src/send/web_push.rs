//! Web Push: the notice as a small JSON payload (title, body, the link a tap opens), encrypted for the browser
//! (RFC 8291, aes128gcm) by `web-push-native` and signed with this Warden's VAPID key (RFC 8292), then sent
//! with our HTTP client. The push service answers 201 with a `Location`; 404 or 410 mean the subscription is
//! gone.

use std::time::{Duration, SystemTime};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde_json::json;
use warden_types::tool::Risk;
use web_push_native::jwt_simple::algorithms::ECDSAP256KeyPairLike;
use web_push_native::jwt_simple::claims::Claims;
use web_push_native::jwt_simple::prelude::Duration as JwtDuration;
use web_push_native::p256::PublicKey;
use web_push_native::{Auth, WebPushBuilder};

use super::http::{status_line, Client};
use super::{Delivery, SendError};
use crate::notice::Notice;
use crate::text;
use crate::vapid::Vapid;

/// How long a push service keeps a message for a browser that is offline.
const TTL: Duration = Duration::from_secs(60 * 60);

pub struct Subscription<'a> {
    pub endpoint: &'a str,
    pub p256dh: &'a str,
    pub auth: &'a str,
}

/// What the service worker reads (`public/warden-sw.js`).
pub fn payload(notice: &Notice, now: SystemTime) -> String {
    let mut body = text::facts(notice, now).join(" · ");
    body.push('\n');
    body.push_str(&text::summary(notice));
    json!({
        "title": notice.title,
        "body": body,
        "url": notice.main_link().map(|l| l.url.clone()),
        // The decision links, as the notification's action buttons (Approve…, Deny…: each opens its confirm page).
        "links": notice.links,
        "kind": notice.kind.as_str(),
        "risk": notice.risk.label(),
    })
    .to_string()
}

fn config(message: &str) -> SendError {
    SendError::Config(format!("this browser's subscription cannot be used ({message}): allow notifications again"))
}

pub async fn send(
    http: &Client,
    vapid: &Vapid,
    subject: &str,
    subscription: &Subscription<'_>,
    notice: &Notice,
) -> Result<Delivery, SendError> {
    let p256dh =
        URL_SAFE_NO_PAD.decode(subscription.p256dh.trim_end_matches('=')).map_err(|e| config(&e.to_string()))?;
    let auth = URL_SAFE_NO_PAD.decode(subscription.auth.trim_end_matches('=')).map_err(|e| config(&e.to_string()))?;
    let auth: [u8; 16] = auth.try_into().map_err(|_| config("its auth secret is not 16 bytes"))?;
    let public = PublicKey::from_sec1_bytes(&p256dh).map_err(|e| config(&e.to_string()))?;
    let endpoint = subscription.endpoint.parse().map_err(|_| config("its endpoint is not a URL"))?;
    let built = WebPushBuilder::new(endpoint, public, Auth::from(auth))
        .with_valid_duration(TTL)
        .build(payload(notice, SystemTime::now()))
        .map_err(|e| config(&e.to_string()))?;
    let (parts, body) = built.into_parts();
    let authorization = vapid_header(vapid, subject, subscription.endpoint)?;
    let urgency = match notice.risk {
        Risk::High => "high",
        _ => "normal",
    };
    let mut request = http
        .post(subscription.endpoint)
        .headers(parts.headers)
        .header(reqwest::header::AUTHORIZATION, authorization)
        .header("Urgency", urgency)
        .body(body);
    // A notification replaces the one before it for the same request (the Topic header, RFC 8030).
    if let Some(link) = notice.main_link() {
        let topic: String = URL_SAFE_NO_PAD.encode(sha_short(&link.url));
        request = request.header("Topic", topic);
    }
    match http.send(request).await {
        Ok(answer) => {
            let location = answer.headers.get(reqwest::header::LOCATION).and_then(|v| v.to_str().ok());
            let detail = match location {
                Some(location) => format!("{} {location}", status_line(answer.status)),
                None => status_line(answer.status),
            };
            Ok(Delivery { detail })
        }
        Err(SendError::Refused { status: status @ (404 | 410), .. }) => Err(SendError::Gone { status }),
        Err(e) => Err(e),
    }
}

/// `vapid t=<JWT>, k=<public key>` (RFC 8292). The JWT's audience is the endpoint's origin with its port when
/// it is not the scheme's default (web-push-native's own header leaves the port out).
fn vapid_header(vapid: &Vapid, subject: &str, endpoint: &str) -> Result<String, SendError> {
    let url = reqwest::Url::parse(endpoint).map_err(|_| config("its endpoint is not a URL"))?;
    let claims = Claims::create(JwtDuration::from_secs(TTL.as_secs()))
        .with_audience(url.origin().ascii_serialization())
        .with_subject(subject);
    let token = vapid.key_pair().sign(claims).map_err(|e| config(&e.to_string()))?;
    Ok(format!("vapid t={token}, k={}", vapid.public_key()))
}

/// 18 bytes of the link's SHA-256: a topic is at most 32 base64url characters.
fn sha_short(text: &str) -> Vec<u8> {
    use sha2::Digest;
    sha2::Sha256::digest(text.as_bytes())[..18].to_vec()
}
