//! The session cookie: its name, the `Set-Cookie` that signs a browser in, and reading it back. The
//! value is a random secret of the session the sign-in started (`warden_sessions`); the database keeps
//! only its hash. The name carries the port, so Warden servers on other ports of the same host
//! (cookies ignore ports) do not overwrite each other's; served over https it is `__Host-` prefixed
//! and `Secure`, so no other name on the host, nor plain HTTP, can set or read it.

use axum::http::header::{COOKIE, SET_COOKIE};
use axum::http::{HeaderMap, HeaderName, HeaderValue};

/// The cookie's name part after the optional prefix.
const BASE_NAME: &str = "warden_session_";
/// The prefix a browser accepts only on a `Secure`, `Path=/` cookie without `Domain`.
const HOST_PREFIX: &str = "__Host-";

#[derive(Clone)]
pub struct SessionCookie {
    /// `warden_session_<port>`.
    name: String,
    /// How long the browser keeps it: the session's absolute limit (the server checks it anyway).
    max_age_secs: u64,
}

impl SessionCookie {
    pub fn new(port: u16, max_age_secs: u64) -> Self {
        Self { name: format!("{BASE_NAME}{port}"), max_age_secs }
    }

    /// The cookie's name as set over plain HTTP or over https.
    pub fn name(&self, secure: bool) -> String {
        if secure {
            format!("{HOST_PREFIX}{}", self.name)
        } else {
            self.name.clone()
        }
    }

    /// The `Set-Cookie` header that signs the browser in with `secret` (hex: always a valid value).
    pub fn set(&self, secret: &str, secure: bool) -> (HeaderName, HeaderValue) {
        let secure_attr = if secure { "; Secure" } else { "" };
        let cookie = format!(
            "{}={secret}; Path=/; HttpOnly; SameSite=Strict; Max-Age={}{secure_attr}",
            self.name(secure),
            self.max_age_secs
        );
        (SET_COOKIE, HeaderValue::from_str(&cookie).unwrap_or_else(|_| HeaderValue::from_static("")))
    }

    /// The values of this cookie in the request (either name), in the order sent.
    pub fn values<'h>(&self, headers: &'h HeaderMap) -> impl Iterator<Item = &'h str> + 'h {
        let name = self.name.clone();
        headers
            .get_all(COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .filter(move |(n, _)| n.strip_prefix(HOST_PREFIX).unwrap_or(n) == name)
            .map(|(_, value)| value.trim_matches('"'))
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
    fn plain_http_sets_a_strict_http_only_cookie_and_https_a_secure_host_prefixed_one() {
        let cookie = SessionCookie::new(3000, 60);
        let (_, plain) = cookie.set("ab12", false);
        assert_eq!(plain, "warden_session_3000=ab12; Path=/; HttpOnly; SameSite=Strict; Max-Age=60");
        let (_, secure) = cookie.set("ab12", true);
        assert_eq!(secure, "__Host-warden_session_3000=ab12; Path=/; HttpOnly; SameSite=Strict; Max-Age=60; Secure");
    }

    #[test]
    fn values_are_read_under_either_name_of_this_port_only() {
        let cookie = SessionCookie::new(3000, 60);
        let h = headers("theme=dark; warden_session_3001=x; warden_session_3000=a; __Host-warden_session_3000=\"b\"");
        assert_eq!(cookie.values(&h).collect::<Vec<_>>(), vec!["a", "b"]);
        assert_eq!(cookie.values(&HeaderMap::new()).count(), 0);
    }
}
