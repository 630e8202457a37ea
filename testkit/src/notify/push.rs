//! A push service for the tests: it makes subscriptions (a P-256 key pair and an auth secret per subscription,
//! as a browser does), and on a push checks the VAPID `Authorization: vapid t=<JWT>, k=<key>` (ES256 signature
//! by `k`, audience this origin, not expired, a subject) and decrypts the aes128gcm payload with the
//! subscription's private key. 201 with a `Location`, as push services answer; 410 for a gone subscription.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde::Serialize;
use serde_json::{json, Value};
use web_push_native::jwt_simple::algorithms::{ECDSAP256PublicKeyLike, ES256PublicKey};
use web_push_native::jwt_simple::claims::NoCustomClaims;
use web_push_native::jwt_simple::common::VerificationOptions;
use web_push_native::p256::elliptic_curve::sec1::ToEncodedPoint;
use web_push_native::p256::SecretKey;

use super::{Gone, IdPath, Shared};

/// A subscription as `PushSubscription.toJSON()` gives it.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Subscription {
    pub endpoint: String,
    pub keys: Keys,
}

#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Keys {
    pub p256dh: String,
    pub auth: String,
}

struct Held {
    secret: SecretKey,
    auth: [u8; 16],
    gone: bool,
}

#[derive(Clone, Default)]
pub struct Subscriptions(Arc<Mutex<HashMap<String, Arc<Held>>>>);

fn random<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    // The test kit has no use without randomness.
    getrandom::fill(&mut bytes).unwrap_or_else(|e| panic!("no random bytes: {e}"));
    bytes
}

impl Subscriptions {
    pub fn make(&self, origin: &str, gone: bool) -> Subscription {
        let secret = loop {
            if let Ok(key) = SecretKey::from_slice(&random::<32>()) {
                break key;
            }
        };
        let auth = random::<16>();
        let id = hex::encode(random::<12>());
        let public = secret.public_key().as_affine().to_encoded_point(false);
        let subscription = Subscription {
            endpoint: format!("{origin}/push/send/{id}"),
            keys: Keys { p256dh: URL_SAFE_NO_PAD.encode(public.as_bytes()), auth: URL_SAFE_NO_PAD.encode(auth) },
        };
        self.0.lock().unwrap_or_else(PoisonError::into_inner).insert(id, Arc::new(Held { secret, auth, gone }));
        subscription
    }

    fn get(&self, id: &str) -> Option<Arc<Held>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).get(id).cloned()
    }
}

/// `GET /push/subscription[?gone=1]`: a new subscription's JSON.
pub async fn subscribe(State(shared): State<Shared>, gone: Gone) -> Json<Subscription> {
    Json(shared.push.make(&shared.origin, gone.gone.unwrap_or(0) == 1))
}

/// The VAPID header's claims, checked; or why not.
pub fn check_vapid(authorization: Option<&str>, audience: &str) -> Result<Value, String> {
    let value = authorization.ok_or("no Authorization header")?;
    let rest = value.strip_prefix("vapid ").ok_or("the Authorization scheme is not vapid")?;
    let (mut token, mut key) = (None, None);
    for part in rest.split(',') {
        match part.trim().split_once('=') {
            Some(("t", t)) => token = Some(t.trim()),
            Some(("k", k)) => key = Some(k.trim()),
            _ => {}
        }
    }
    let (token, key) = (token.ok_or("no t= in vapid")?, key.ok_or("no k= in vapid")?);
    let key = URL_SAFE_NO_PAD.decode(key.trim_end_matches('=')).map_err(|e| format!("k= is not base64url: {e}"))?;
    let public = ES256PublicKey::from_bytes(&key).map_err(|e| format!("k= is not a P-256 key: {e}"))?;
    let options = VerificationOptions {
        allowed_audiences: Some(HashSet::from([audience.to_string()])),
        max_validity: Some(std::time::Duration::from_secs(24 * 3600).into()),
        ..Default::default()
    };
    let claims = public.verify_token::<NoCustomClaims>(token, Some(options)).map_err(|e| format!("the JWT: {e}"))?;
    let subject = claims.subject.ok_or("the JWT has no subject (sub)")?;
    if claims.expires_at.is_none() {
        return Err("the JWT has no expiry (exp)".into());
    }
    Ok(json!({ "sub": subject, "k": URL_SAFE_NO_PAD.encode(&key) }))
}

/// `POST /push/send/{id}`: a push message for subscription `id`.
pub async fn receive(
    State(shared): State<Shared>,
    id: IdPath,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    let Some(held) = shared.push.get(&id) else {
        return (StatusCode::NOT_FOUND, "no such subscription").into_response();
    };
    if held.gone {
        return (StatusCode::GONE, "push subscription has unsubscribed or expired").into_response();
    }
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
    let vapid = match check_vapid(header(header::AUTHORIZATION.as_str()).as_deref(), &shared.origin) {
        Ok(vapid) => vapid,
        Err(why) => return (StatusCode::UNAUTHORIZED, why).into_response(),
    };
    if header("content-encoding").as_deref() != Some("aes128gcm") {
        return (StatusCode::UNSUPPORTED_MEDIA_TYPE, "Content-Encoding must be aes128gcm").into_response();
    }
    if header("ttl").is_none() {
        return (StatusCode::BAD_REQUEST, "a TTL header is required").into_response();
    }
    let auth = web_push_native::Auth::from(held.auth);
    let plain = match web_push_native::decrypt(body.to_vec(), &held.secret, &auth) {
        Ok(plain) => plain,
        Err(e) => return (StatusCode::BAD_REQUEST, format!("the payload does not decrypt: {e}")).into_response(),
    };
    let text = String::from_utf8_lossy(&plain).into_owned();
    let payload = serde_json::from_str::<Value>(&text).unwrap_or(Value::String(text));
    let n = shared.keep(
        "web_push",
        json!({ "subscription": id.0, "payload": payload, "vapid": vapid, "urgency": header("urgency"),
                "topic": header("topic"), "ttl": header("ttl") }),
    );
    (StatusCode::CREATED, [(header::LOCATION, format!("{}/push/messages/{n}", shared.origin))]).into_response()
}
