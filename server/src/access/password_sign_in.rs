//! Signing in with a login and a password, posted by the sign-in page's form (no script). Attempts are
//! limited per address and per login (a `governor` keyed limiter each), so guessing is slow whichever one
//! an attacker varies; a refusal never says whether the login exists.

use std::net::IpAddr;
use std::num::NonZeroU32;

use axum::http::HeaderMap;
use axum::response::Response;
use governor::clock::DefaultClock;
use governor::state::keyed::HashMapStateStore;
use governor::{Quota, RateLimiter};
use serde::Deserialize;

use super::middleware::start_session;
use super::sign_in_page::{self, Reason};
use super::Access;

/// Attempts a minute, from one address or for one login, after a first burst of as many.
const ATTEMPTS_PER_MINUTE: u32 = 10;

/// How many addresses (or logins) a limiter keeps before it drops those whose limit is full again.
const TIDY_FROM_KEYS: usize = 1024;

type Limiter<K> = RateLimiter<K, HashMapStateStore<K>, DefaultClock>;

/// How often anyone may try.
pub struct Attempts {
    by_address: Limiter<IpAddr>,
    by_login: Limiter<String>,
}

impl Default for Attempts {
    fn default() -> Self {
        let quota = Quota::per_minute(NonZeroU32::new(ATTEMPTS_PER_MINUTE).unwrap_or(NonZeroU32::MIN));
        Self { by_address: RateLimiter::hashmap(quota), by_login: RateLimiter::hashmap(quota) }
    }
}

impl Attempts {
    /// Whether one more attempt from `address` for `login` may be made now (it is counted if so).
    pub(super) fn allow(&self, address: Option<IpAddr>, login: &str) -> bool {
        let address_ok = address.is_none_or(|a| self.by_address.check_key(&a).is_ok());
        address_ok && self.by_login.check_key(&login.trim().to_lowercase()).is_ok()
    }

    /// Whether one more attempt from `address` may be made now, whoever it is for (a passkey sign-in's
    /// first step, before the person is known). Counted if so.
    pub(super) fn allow_address(&self, address: Option<IpAddr>) -> bool {
        self.tidy();
        address.is_none_or(|a| self.by_address.check_key(&a).is_ok())
    }

    /// Forgets keys whose limits are full again once a map holds many, so the maps do not grow with every
    /// address ever seen, and an attempt does not walk the whole map each time.
    fn tidy(&self) {
        if self.by_address.len() > TIDY_FROM_KEYS {
            self.by_address.retain_recent();
        }
        if self.by_login.len() > TIDY_FROM_KEYS {
            self.by_login.retain_recent();
        }
    }
}

#[derive(Deserialize)]
pub struct SignInForm {
    #[serde(default)]
    login: String,
    #[serde(default)]
    password: String,
}

/// The form's answer: signed in (a 303 to the app, with the session cookie), or the page again saying why not.
pub async fn sign_in(access: &Access, headers: &HeaderMap, peer: Option<IpAddr>, form: SignInForm) -> Response {
    let Some(people) = access.people() else { return sign_in_page::response(access, Reason::NotSignedIn) };
    access.attempts().tidy();
    if !access.attempts().allow(peer, &form.login) {
        tracing::warn!(?peer, "too many sign-in attempts");
        return sign_in_page::response_for(access, Reason::TooManyAttempts, &form.login);
    }
    match people.sign_in(&form.login, &form.password).await {
        Ok(Some(person)) => start_session(access, headers, peer, &person.id, "/").await,
        Ok(None) => {
            tracing::info!(?peer, "a sign-in with a wrong login or password");
            sign_in_page::response_for(access, Reason::WrongPassword, &form.login)
        }
        Err(error) => super::middleware::store_failed(&error),
    }
}
