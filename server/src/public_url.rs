//! The address people reach this Warden at, for links sent away from the app (a notification's decision
//! links): `WARDEN_PUBLIC_URL` (`https://warden.example.com`, as a reverse proxy serves it), else this
//! server's own loopback address, which only this machine can open.

use crate::access::AllowedHosts;

/// Why `WARDEN_PUBLIC_URL` cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("WARDEN_PUBLIC_URL {given:?} {why}")]
pub struct PublicUrlError {
    given: String,
    why: &'static str,
}

/// The base of the links Warden sends (no trailing slash), checked against the hosts it answers to.
pub fn public_url(given: Option<&str>, hosts: &AllowedHosts) -> Result<String, PublicUrlError> {
    let Some(given) = given.map(str::trim).filter(|g| !g.is_empty()) else {
        return Ok(format!("http://127.0.0.1:{}", hosts.port()));
    };
    let refuse = |why| Err(PublicUrlError { given: given.to_string(), why });
    let Ok(url) = reqwest::Url::parse(given) else { return refuse("is not a URL") };
    if !matches!(url.scheme(), "http" | "https") {
        return refuse("must start with https:// (or http://)");
    }
    if !url.username().is_empty() || url.password().is_some() || url.query().is_some() || url.fragment().is_some() {
        return refuse("must be a plain address: no user, query or fragment");
    }
    if url.path() != "/" {
        return refuse("must be the server's root: Warden is not served under a path");
    }
    let origin = url.origin().ascii_serialization();
    if !hosts.allows_origin(&origin) {
        return refuse("names a host this server does not answer to: add it to WARDEN_ALLOWED_HOSTS");
    }
    Ok(origin)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_public_url_is_checked_and_defaults_to_loopback() {
        let hosts = AllowedHosts::loopback(3000).with_extra("warden.example.com").expect("hosts");
        assert_eq!(public_url(None, &hosts).unwrap(), "http://127.0.0.1:3000");
        assert_eq!(public_url(Some("  "), &hosts).unwrap(), "http://127.0.0.1:3000");
        assert_eq!(public_url(Some("https://warden.example.com/"), &hosts).unwrap(), "https://warden.example.com");
        for bad in [
            "warden.example.com",
            "ftp://warden.example.com",
            "https://other.example.com",
            "https://warden.example.com/warden",
            "https://u:p@warden.example.com",
        ] {
            assert!(public_url(Some(bad), &hosts).is_err(), "{bad}");
        }
    }
}
