//! A small OpenID Connect provider on loopback, for Warden's sign-in tests: a discovery document, its JWKS (an
//! RSA key made at start), an authorization endpoint that signs in whoever the test says (no page: it
//! redirects at once with a code), and a token endpoint that checks the client's secret, the code (used once,
//! for the redirect URI it was made for) and the PKCE verifier, and answers an RS256-signed ID token. A test
//! may have it misbehave (`Tamper`) to see Warden refuse.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::extract::{Form, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use jsonwebtoken::jwk::{Jwk, JwkSet, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use rsa::pkcs1::EncodeRsaPrivateKey;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use tokio::task::JoinHandle;

/// The signing key's id, in the JWKS and each token's header.
const KEY_ID: &str = "test-key-1";

/// How the provider misbehaves in its next answers (each test sees Warden refuse one of them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tamper {
    #[default]
    None,
    /// The ID token carries another nonce than the one Warden sent.
    Nonce,
    /// The redirect back carries another `state` than the one Warden sent.
    State,
    /// The ID token's signature is broken.
    Signature,
    /// The ID token is for another client (`aud`).
    Audience,
}

/// Who the authorization endpoint signs in next.
#[derive(Debug, Clone)]
pub struct User {
    pub subject: String,
    pub name: String,
    pub email: String,
    pub preferred_username: String,
    /// More claims for the ID token (a role claim, say).
    pub extra: Map<String, Value>,
}

impl User {
    pub fn new(subject: &str, name: &str, username: &str) -> Self {
        Self {
            subject: subject.into(),
            name: name.into(),
            email: format!("{username}@example.test"),
            preferred_username: username.into(),
            extra: Map::new(),
        }
    }

    pub fn with_claim(mut self, name: &str, value: Value) -> Self {
        self.extra.insert(name.into(), value);
        self
    }
}

struct Grant {
    user: User,
    redirect_uri: String,
    nonce: Option<String>,
    challenge: String,
}

struct Inner {
    issuer: String,
    client_id: String,
    client_secret: String,
    key: EncodingKey,
    jwks: JwkSet,
    user: Mutex<User>,
    tamper: Mutex<Tamper>,
    codes: Mutex<HashMap<String, Grant>>,
    /// Token requests refused so far, and why (what a test asserts on when Warden should not get in).
    refusals: Mutex<Vec<String>>,
}

/// The running provider; stopped when dropped.
pub struct OidcIssuer {
    inner: Arc<Inner>,
    task: JoinHandle<()>,
}

impl OidcIssuer {
    /// Starts a provider on a free loopback port for the client `client_id` with `client_secret`.
    pub async fn start(client_id: &str, client_secret: &str) -> std::io::Result<Self> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let issuer = format!("http://{}", listener.local_addr()?);
        let (key, jwks) = tokio::task::spawn_blocking(signing_key).await.map_err(std::io::Error::other)??;
        let inner = Arc::new(Inner {
            issuer,
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            key,
            jwks,
            user: Mutex::new(User::new("subject-1", "Ada Lovelace", "ada")),
            tamper: Mutex::default(),
            codes: Mutex::default(),
            refusals: Mutex::default(),
        });
        let app = Router::new()
            .route("/.well-known/openid-configuration", get(discovery))
            .route("/jwks", get(published_keys))
            .route("/authorize", get(authorize))
            .route("/token", post(token))
            .with_state(inner.clone());
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(Self { inner, task })
    }

    /// The issuer URL (what `WARDEN_OIDC_ISSUER` is set to).
    pub fn issuer(&self) -> &str {
        &self.inner.issuer
    }

    /// Whom the next sign-ins are for.
    pub fn sign_in_as(&self, user: User) {
        *lock(&self.inner.user) = user;
    }

    pub fn tamper(&self, tamper: Tamper) {
        *lock(&self.inner.tamper) = tamper;
    }

    /// Why token requests were refused so far.
    pub fn refusals(&self) -> Vec<String> {
        lock(&self.inner.refusals).clone()
    }
}

impl Drop for OidcIssuer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A fresh 2048-bit RSA key, as jsonwebtoken signs with it and as the JWKS publishes it.
fn signing_key() -> std::io::Result<(EncodingKey, JwkSet)> {
    let private = rsa::RsaPrivateKey::new(&mut rsa::rand_core::OsRng, 2048).map_err(std::io::Error::other)?;
    let der = private.to_pkcs1_der().map_err(std::io::Error::other)?;
    let key = EncodingKey::from_rsa_der(der.as_bytes());
    let mut jwk = Jwk::from_encoding_key(&key, Algorithm::RS256).map_err(std::io::Error::other)?;
    jwk.common.key_id = Some(KEY_ID.into());
    jwk.common.public_key_use = Some(PublicKeyUse::Signature);
    jwk.common.key_algorithm = Some(KeyAlgorithm::RS256);
    Ok((key, JwkSet { keys: vec![jwk] }))
}

fn random_code() -> String {
    let mut bytes = [0u8; 16];
    rsa::rand_core::RngCore::fill_bytes(&mut rsa::rand_core::OsRng, &mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

async fn discovery(State(inner): State<Arc<Inner>>) -> Json<Value> {
    let issuer = &inner.issuer;
    Json(json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/authorize"),
        "token_endpoint": format!("{issuer}/token"),
        "jwks_uri": format!("{issuer}/jwks"),
        "response_types_supported": ["code"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        "code_challenge_methods_supported": ["S256"],
        "scopes_supported": ["openid", "profile", "email"],
        "claims_supported": ["sub", "iss", "aud", "exp", "iat", "nonce", "name", "email", "preferred_username"]
    }))
}

async fn published_keys(State(inner): State<Arc<Inner>>) -> Json<JwkSet> {
    Json(inner.jwks.clone())
}

#[derive(Deserialize)]
struct AuthorizeQuery {
    response_type: String,
    client_id: String,
    redirect_uri: String,
    scope: String,
    state: String,
    nonce: Option<String>,
    code_challenge: Option<String>,
    code_challenge_method: Option<String>,
}

/// Signs in the configured user at once and sends the browser back with a code.
async fn authorize(State(inner): State<Arc<Inner>>, Query(q): Query<AuthorizeQuery>) -> Response {
    let scopes: Vec<&str> = q.scope.split(' ').collect();
    let (Some(challenge), Some("S256")) = (q.code_challenge, q.code_challenge_method.as_deref()) else {
        return (StatusCode::BAD_REQUEST, "PKCE with S256 is required").into_response();
    };
    if q.response_type != "code" || q.client_id != inner.client_id || !scopes.contains(&"openid") {
        return (StatusCode::BAD_REQUEST, "not a code request of the known client with the openid scope")
            .into_response();
    }
    let code = random_code();
    let user = lock(&inner.user).clone();
    let grant = Grant { user, redirect_uri: q.redirect_uri.clone(), nonce: q.nonce, challenge };
    lock(&inner.codes).insert(code.clone(), grant);
    let state = if *lock(&inner.tamper) == Tamper::State { "not-the-state-sent".to_string() } else { q.state };
    let location =
        format!("{}?{}", q.redirect_uri, form_pairs(&[("code", &code), ("state", &state), ("iss", &inner.issuer)]));
    (StatusCode::SEE_OTHER, [(header::LOCATION, location)]).into_response()
}

fn form_pairs(pairs: &[(&str, &str)]) -> String {
    form_urlencoded::Serializer::new(String::new()).extend_pairs(pairs).finish()
}

#[derive(Deserialize)]
struct TokenForm {
    grant_type: String,
    code: String,
    redirect_uri: String,
    code_verifier: Option<String>,
    client_id: Option<String>,
    client_secret: Option<String>,
}

/// The client's id and secret: HTTP Basic (as openidconnect sends them) or in the form.
fn client_of(headers: &HeaderMap, form: &TokenForm) -> Option<(String, String)> {
    if let Some(basic) =
        headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Basic "))
    {
        let decoded = String::from_utf8(STANDARD.decode(basic.trim()).ok()?).ok()?;
        let (id, secret) = decoded.split_once(':')?;
        return Some((url_decoded(id), url_decoded(secret)));
    }
    Some((form.client_id.clone()?, form.client_secret.clone()?))
}

/// RFC 6749 §2.3.1: the client's id and secret are form-encoded before Basic.
fn url_decoded(text: &str) -> String {
    form_urlencoded::parse(format!("v={text}").as_bytes()).next().map(|(_, v)| v.into_owned()).unwrap_or_default()
}

async fn token(State(inner): State<Arc<Inner>>, headers: HeaderMap, Form(form): Form<TokenForm>) -> Response {
    let refuse = |why: &str| {
        lock(&inner.refusals).push(why.to_string());
        (StatusCode::BAD_REQUEST, Json(json!({ "error": "invalid_grant", "error_description": why }))).into_response()
    };
    if form.grant_type != "authorization_code" {
        return refuse("not the authorization code grant");
    }
    match client_of(&headers, &form) {
        Some((id, secret)) if id == inner.client_id && secret == inner.client_secret => {}
        _ => {
            lock(&inner.refusals).push("wrong client credentials".into());
            return (StatusCode::UNAUTHORIZED, Json(json!({ "error": "invalid_client" }))).into_response();
        }
    }
    let Some(grant) = lock(&inner.codes).remove(&form.code) else { return refuse("unknown or used code") };
    if grant.redirect_uri != form.redirect_uri {
        return refuse("the redirect URI differs from the authorization request's");
    }
    let verifier = form.code_verifier.unwrap_or_default();
    if URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes())) != grant.challenge {
        return refuse("the PKCE verifier does not match the challenge");
    }
    let tamper = *lock(&inner.tamper);
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or_default();
    let mut claims = grant.user.extra.clone();
    let audience = if tamper == Tamper::Audience { "another-client".to_string() } else { inner.client_id.clone() };
    let nonce = if tamper == Tamper::Nonce { Some("not-the-nonce-sent".to_string()) } else { grant.nonce };
    for (name, value) in [
        ("iss", json!(inner.issuer)),
        ("sub", json!(grant.user.subject)),
        ("aud", json!(audience)),
        ("iat", json!(now)),
        ("exp", json!(now + 300)),
        ("nonce", json!(nonce)),
        ("name", json!(grant.user.name)),
        ("email", json!(grant.user.email)),
        ("preferred_username", json!(grant.user.preferred_username)),
    ] {
        claims.insert(name.into(), value);
    }
    let mut header = Header::new(Algorithm::RS256);
    header.kid = Some(KEY_ID.into());
    let Ok(mut id_token) = jsonwebtoken::encode(&header, &Value::Object(claims), &inner.key) else {
        return refuse("the ID token could not be signed");
    };
    if tamper == Tamper::Signature {
        // Another signature of the right length: one character of its middle changed.
        let at = id_token.rfind('.').unwrap_or_default() + 100;
        if let Some(c) = id_token.get(at..=at) {
            let other = if c == "A" { "B" } else { "A" };
            id_token.replace_range(at..=at, other);
        }
    }
    Json(json!({
        "access_token": random_code(),
        "token_type": "Bearer",
        "expires_in": 300,
        "id_token": id_token
    }))
    .into_response()
}
