//! The browser's session cookie, set by the sign-in link. Its value is HMAC-SHA256 of a fixed
//! label keyed with the token, so the raw token never sits in the cookie jar, and the cookie stays
//! valid across restarts for as long as the token does. Its name carries the port, so Warden
//! servers on other ports of the same host (cookies ignore ports) do not overwrite each other's.

use axum::http::header::{COOKIE, SET_COOKIE};
use axum::http::{HeaderMap, HeaderValue};
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

use super::token::Token;

/// How long the browser keeps the cookie: a month, then the person opens the link again.
const MAX_AGE_SECS: u64 = 30 * 24 * 3600;

#[derive(Clone)]
pub struct Session {
    name: String,
    value: String,
}

impl Session {
    pub fn new(token: &Token, port: u16) -> Self {
        // HMAC accepts keys of any length, so this cannot fail; the fallback keeps it panic-free.
        let value = match Hmac::<Sha256>::new_from_slice(token.secret().as_bytes()) {
            Ok(mut mac) => {
                mac.update(b"warden session cookie v1");
                hex::encode(mac.finalize().into_bytes())
            }
            Err(_) => token.secret().to_string(),
        };
        Self { name: format!("warden_session_{port}"), value }
    }

    pub fn cookie_name(&self) -> &str {
        &self.name
    }

    /// The `Set-Cookie` header that signs the browser in.
    pub fn set_cookie(&self) -> (axum::http::HeaderName, HeaderValue) {
        let cookie = format!("{}={}; Path=/; HttpOnly; SameSite=Strict; Max-Age={MAX_AGE_SECS}", self.name, self.value);
        // Hex and a decimal port: always a valid header value.
        (SET_COOKIE, HeaderValue::from_str(&cookie).unwrap_or_else(|_| HeaderValue::from_static("")))
    }

    /// True when one of the request's cookies is this session, compared in constant time.
    pub fn is_signed_in(&self, headers: &HeaderMap) -> bool {
        headers
            .get_all(COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .filter(|(name, _)| *name == self.name)
            .any(|(_, value)| bool::from(value.trim_matches('"').as_bytes().ct_eq(self.value.as_bytes())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(cookie: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(COOKIE, HeaderValue::from_str(cookie).expect("header"));
        h
    }

    #[test]
    fn the_cookie_it_sets_signs_in_and_does_not_contain_the_token() {
        let token = Token::generate().expect("random");
        let session = Session::new(&token, 3000);
        let (_, set) = session.set_cookie();
        let set = set.to_str().expect("ascii");
        assert!(set.starts_with("warden_session_3000="), "{set}");
        assert!(set.contains("HttpOnly") && set.contains("SameSite=Strict") && set.contains("Path=/"), "{set}");
        assert!(!set.contains(token.secret()), "{set}");
        let pair = set.split(';').next().expect("pair");
        assert!(session.is_signed_in(&headers(&format!("theme=dark; {pair}"))));
    }

    #[test]
    fn another_token_or_port_or_value_is_not_signed_in() {
        let token = Token::generate().expect("random");
        let session = Session::new(&token, 3000);
        let (_, set) = session.set_cookie();
        let pair = set.to_str().expect("ascii").split(';').next().expect("pair").to_string();
        assert!(!Session::new(&Token::generate().expect("random"), 3000).is_signed_in(&headers(&pair)));
        assert!(!Session::new(&token, 3001).is_signed_in(&headers(&pair)));
        assert!(!session.is_signed_in(&headers(&format!("warden_session_3000={}", token.secret()))));
        assert!(!session.is_signed_in(&HeaderMap::new()));
    }
}
