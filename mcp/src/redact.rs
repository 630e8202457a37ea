//! Secrets never leave the server in full: env values, header values and URL query values and
//! credentials are masked for display, and a masked value coming back from the UI means "unchanged".
//!
//! The rule for updates: a value that starts with [`MASK`] is replaced by the stored value under
//! the same key (env variable, header name, or the whole URL when it equals the stored URL's
//! redacted form). A masked value with nothing stored under its key is refused.

use std::collections::BTreeMap;

use crate::config::{McpServerConfig, Transport};
use crate::error::{Error, Result};

/// What a hidden secret looks like.
pub const MASK: &str = "••••";
/// Values shorter than this are masked entirely; longer ones keep their last 4 characters.
const SHOW_TAIL_FROM_LEN: usize = 12;

/// `••••` plus at most the last 4 characters of a long value.
pub fn redact_value(value: &str) -> String {
    let chars: Vec<char> = value.chars().collect();
    if chars.len() < SHOW_TAIL_FROM_LEN {
        return MASK.to_owned();
    }
    let tail: String = chars[chars.len() - 4..].iter().collect();
    format!("{MASK}{tail}")
}

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
    out.transport = match &config.transport {
        Transport::Stdio { command, args, env } => Transport::Stdio {
            command: command.clone(),
            args: args.clone(),
            env: redact_map(env),
        },
        Transport::Http { url, headers } => Transport::Http {
            url: redact_url(url),
            headers: redact_map(headers),
        },
    };
    out
}

fn redact_map(map: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    map.iter()
        .map(|(k, v)| (k.clone(), redact_value(v)))
        .collect()
}

/// Puts stored secrets back where `incoming` carries masked values (see the module docs).
/// `stored` is the config saved under the same name, if any.
pub fn restore_secrets(
    incoming: &mut McpServerConfig,
    stored: Option<&McpServerConfig>,
) -> Result<()> {
    let stored_transport = stored.map(|s| &s.transport);
    match &mut incoming.transport {
        Transport::Stdio { env, .. } => {
            let stored_env = match stored_transport {
                Some(Transport::Stdio { env, .. }) => Some(env),
                _ => None,
            };
            restore_map(env, stored_env, "environment variable")
        }
        Transport::Http { url, headers } => {
            let (stored_url, stored_headers) = match stored_transport {
                Some(Transport::Http { url, headers }) => (Some(url), Some(headers)),
                _ => (None, None),
            };
            if url.contains(MASK) {
                match stored_url {
                    Some(stored_url) if redact_url(stored_url) == *url => *url = stored_url.clone(),
                    _ => return Err(Error::RedactedWithoutStoredValue("URL".into())),
                }
            }
            restore_map(headers, stored_headers, "header")
        }
    }
}

fn restore_map(
    incoming: &mut BTreeMap<String, String>,
    stored: Option<&BTreeMap<String, String>>,
    what: &str,
) -> Result<()> {
    for (key, value) in incoming.iter_mut() {
        if !value.starts_with(MASK) {
            continue;
        }
        let original = stored.and_then(|stored| {
            stored.get(key).or_else(|| {
                // Header names are case-insensitive; environment variable names are not.
                let headers = what == "header";
                stored
                    .iter()
                    .find(|(k, _)| headers && k.eq_ignore_ascii_case(key))
                    .map(|(_, v)| v)
            })
        });
        match original {
            Some(original) => *value = original.clone(),
            None => return Err(Error::RedactedWithoutStoredValue(format!("{what} {key}"))),
        }
    }
    Ok(())
}
