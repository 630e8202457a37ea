//! Secrets never leave the server in full: env values, header values, URL query values and
//! credentials, and arguments that look secret are masked for display; a masked value coming
//! back from the UI means "unchanged", under the rules of [`restore_secrets`].
//!
//! What counts as a mask: an env or header value that starts with [`MASK`], an argument or URL
//! that contains it. A mask is restored only when it equals, whole, the redacted form of the
//! stored value under the same key (env variable, header name) or position (argument), and only
//! while the server's identity is unchanged (see `restore`). Anything else that carries [`MASK`]
//! is refused, never stored literally: a stale or edited mask would otherwise become the secret.
//! So a real secret that itself starts with `••••` cannot be entered; no known credential does.

mod args;
mod restore;

use std::collections::BTreeMap;

use crate::config::{McpServerConfig, Transport};

pub use args::{looks_like_credential, redact_args};
pub use restore::restore_secrets;

pub use warden_types::secret::{mask as redact_value, MASK};

/// The URL with its user-info and query values masked (`https://••••@host/p?key=••••1234`).
pub fn redact_url(url: &str) -> String {
    let (before_fragment, fragment) = match url.split_once('#') {
        Some((b, f)) => (b, Some(f)),
        None => (url, None),
    };
    let (base, query) = match before_fragment.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (before_fragment, None),
    };
    let mut out = redact_userinfo(base);
    if let Some(query) = query {
        out.push('?');
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((key, value)) => format!("{key}={}", redact_value(value)),
                None => pair.to_owned(),
            })
            .collect();
        out.push_str(&pairs.join("&"));
    }
    if let Some(fragment) = fragment {
        out.push('#');
        out.push_str(fragment);
    }
    out
}

fn redact_userinfo(base: &str) -> String {
    let Some((scheme, rest)) = base.split_once("://") else {
        return base.to_owned();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((_, host)) => format!("{scheme}://{MASK}@{host}{path}"),
        None => base.to_owned(),
    }
}

/// A copy of the config that is safe to show: every secret masked.
pub fn redact_config(config: &McpServerConfig) -> McpServerConfig {
    let mut out = config.clone();
    // Fields are changed in place so settings added to a transport later are kept as they are.
    match &mut out.transport {
        Transport::Stdio { args, env, .. } => {
            *args = redact_args(args);
            redact_map(env);
        }
        Transport::Http { url, headers, .. } => {
            *url = redact_url(url);
            redact_map(headers);
        }
    }
    out
}

fn redact_map(map: &mut BTreeMap<String, String>) {
    for value in map.values_mut() {
        *value = redact_value(value);
    }
}
