//! The generic webhook's receiver, written as a receiver's own code would be (not with Warden's signing code):
//! `Warden-Signature: t=<unix>,v1=<hex>` must be the HMAC-SHA256 of `"{t}.{body}"` with the secret, compared
//! in constant time, and `t` within 5 minutes of now. Anything else is a 401 that says why.

use std::time::{SystemTime, UNIX_EPOCH};

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;

use super::Shared;

const WINDOW_SECS: u64 = 5 * 60;

/// Why a signature is refused, or `Ok` with its timestamp.
pub fn verify(secret: &str, header: Option<&str>, body: &[u8], now: u64) -> Result<u64, &'static str> {
    let header = header.ok_or("no Warden-Signature header")?;
    let (mut timestamp, mut signatures) = (None, Vec::new());
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", t)) => timestamp = t.parse::<u64>().ok(),
            Some(("v1", v)) => signatures.push(v.to_string()),
            _ => {}
        }
    }
    let timestamp = timestamp.ok_or("no timestamp (t=) in the signature")?;
    if now.abs_diff(timestamp) > WINDOW_SECS {
        return Err("the signature's timestamp is outside the 5-minute window");
    }
    for signature in signatures {
        let Ok(expected) = hex::decode(signature) else { continue };
        let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret.as_bytes()) else { continue };
        mac.update(format!("{timestamp}.").as_bytes());
        mac.update(body);
        if mac.verify_slice(&expected).is_ok() {
            return Ok(timestamp);
        }
    }
    Err("no v1 signature matches the body")
}

pub async fn receive(State(shared): State<Shared>, headers: HeaderMap, body: axum::body::Bytes) -> Response {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or_default();
    let signature = headers.get("warden-signature").and_then(|v| v.to_str().ok());
    if let Err(why) = verify(&shared.webhook_secret, signature, &body, now) {
        return (StatusCode::UNAUTHORIZED, why).into_response();
    }
    let Ok(json) = serde_json::from_slice::<Value>(&body) else {
        return (StatusCode::BAD_REQUEST, "the body is not JSON").into_response();
    };
    let delivery = headers.get("warden-delivery").and_then(|v| v.to_str().ok());
    shared.keep("webhook", json!({ "json": json, "delivery": delivery, "signature_verified": true }));
    (StatusCode::OK, "received").into_response()
}
