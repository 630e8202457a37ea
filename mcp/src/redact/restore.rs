//! Filling masked values back in from storage, bound to the server's identity: a stored secret
//! goes only to the program or host it was entered for. Otherwise whoever can edit a config (or
//! call `/api/mcp/test`) could keep the masked key and point the command or URL elsewhere.
//!
//! Identity of a stdio server: its command, its arguments and its environment, each masked value
//! standing for the stored one. The environment counts because `NODE_OPTIONS`, `LD_PRELOAD` or a
//! `*_BASE_URL` variable hand the key to other code or another host as surely as a new command.
//! Identity of an HTTP server: the URL's scheme, host, port and path (headers and query values
//! may change; they still go to the same endpoint).

use std::collections::BTreeMap;

use super::{redact_args, redact_url, redact_value, MASK};
use crate::config::{McpServerConfig, Transport};
use crate::error::{Error, Result};

/// Puts stored secrets back where `incoming` carries masks (see the module docs and `redact`).
/// `stored` is the config saved under the same name, if any.
pub fn restore_secrets(incoming: &mut McpServerConfig, stored: Option<&McpServerConfig>) -> Result<()> {
    let stored_transport = stored.map(|s| &s.transport);
    match &mut incoming.transport {
        Transport::Stdio { command, args, env, .. } => {
            let Some(first) = first_masked_stdio(args, env) else {
                return Ok(());
            };
            let Some(Transport::Stdio { command: stored_command, args: stored_args, env: stored_env, .. }) =
                stored_transport
            else {
                return Err(masked_without_stored(stored_transport, first));
            };
            if command != stored_command {
                return Err(reenter(first, "command"));
            }
            let restored_args = restore_args(args, stored_args).map_err(|e| e.named(&first))?;
            let restored_env = restore_env(env, stored_env).map_err(|e| e.named(&first))?;
            *args = restored_args;
            *env = restored_env;
            Ok(())
        }
        Transport::Http { url, headers, .. } => {
            let url_masked = url.contains(MASK);
            let first_header = headers.iter().find(|(_, v)| v.starts_with(MASK)).map(|(k, _)| format!("header {k}"));
            let first = match (url_masked, first_header) {
                (true, _) => "URL".to_owned(),
                (false, Some(header)) => header,
                (false, None) => return Ok(()),
            };
            let Some(Transport::Http { url: stored_url, headers: stored_headers, .. }) = stored_transport else {
                return Err(masked_without_stored(stored_transport, first));
            };
            match (endpoint(url), endpoint(stored_url)) {
                (Some(new), Some(old)) if new == old => {}
                _ => return Err(reenter(first, "URL (scheme, host, port or path)")),
            }
            if url_masked {
                if redact_url(stored_url) != *url {
                    return Err(Error::RedactedWithoutStoredValue("URL".into()));
                }
                *url = stored_url.clone();
            }
            restore_headers(headers, stored_headers)
        }
    }
}

/// The first masked value of a stdio transport, named for an error message.
fn first_masked_stdio(args: &[String], env: &BTreeMap<String, String>) -> Option<String> {
    if let Some(key) = env.iter().find(|(_, v)| v.starts_with(MASK)).map(|(k, _)| k) {
        return Some(format!("environment variable {key}"));
    }
    args.iter().position(|a| a.contains(MASK)).map(|index| format!("argument {}", index + 1))
}

fn masked_without_stored(stored: Option<&Transport>, what: String) -> Error {
    match stored {
        // A server that changed between stdio and HTTP is a new program or host.
        Some(_) => reenter(what, "transport"),
        None => Error::RedactedWithoutStoredValue(what),
    }
}

fn reenter(secret: String, changed: &str) -> Error {
    Error::SecretNeedsReentry { secret, changed: changed.to_owned() }
}

/// Why a stdio transport's masks cannot be filled in.
enum Refusal {
    /// This part of the identity differs from what is stored.
    Changed(&'static str),
    /// This masked value is not the redacted form of the stored value in its place.
    Unmatched(String),
}

impl Refusal {
    /// The error, naming `first` (the first masked value) when the identity changed.
    fn named(self, first: &str) -> Error {
        match self {
            Refusal::Changed(what) => reenter(first.to_owned(), what),
            Refusal::Unmatched(what) => Error::RedactedWithoutStoredValue(what),
        }
    }
}

/// Arguments by position: each is either as stored or the stored one's masked form.
fn restore_args(incoming: &[String], stored: &[String]) -> Result<Vec<String>, Refusal> {
    // With arguments added or removed, positions no longer say which stored value is meant.
    if incoming.len() != stored.len() {
        return Err(Refusal::Changed("arguments"));
    }
    let shown = redact_args(stored);
    let mut restored = Vec::with_capacity(incoming.len());
    let mut changed = false;
    for (index, (arg, (original, masked))) in incoming.iter().zip(stored.iter().zip(&shown)).enumerate() {
        if arg == original {
            restored.push(original.clone());
        } else if !arg.contains(MASK) {
            changed = true;
        } else if arg == masked && masked != original {
            restored.push(original.clone());
        } else {
            return Err(Refusal::Unmatched(format!("argument {}", index + 1)));
        }
    }
    if changed {
        return Err(Refusal::Changed("arguments"));
    }
    Ok(restored)
}

/// The environment by name: the same names, each value as stored or its masked form.
fn restore_env(
    incoming: &BTreeMap<String, String>,
    stored: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, String>, Refusal> {
    // A mask with nothing stored under its name is named first: that is the clearer mistake.
    for (key, value) in incoming.iter().filter(|(_, v)| v.starts_with(MASK)) {
        match stored.get(key) {
            Some(original) if value == original || *value == redact_value(original) => {}
            _ => return Err(Refusal::Unmatched(format!("environment variable {key}"))),
        }
    }
    if !incoming.keys().eq(stored.keys())
        || incoming.iter().any(|(key, value)| !value.starts_with(MASK) && stored.get(key) != Some(value))
    {
        return Err(Refusal::Changed("environment"));
    }
    Ok(stored.clone())
}

/// Headers by name (case-insensitive); unmasked headers may change freely.
fn restore_headers(incoming: &mut BTreeMap<String, String>, stored: &BTreeMap<String, String>) -> Result<()> {
    for (key, value) in incoming.iter_mut() {
        if !value.starts_with(MASK) {
            continue;
        }
        let original =
            stored.get(key).or_else(|| stored.iter().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, v)| v));
        match original {
            Some(original) if *value == redact_value(original) => *value = original.clone(),
            _ => return Err(Error::RedactedWithoutStoredValue(format!("header {key}"))),
        }
    }
    Ok(())
}

/// The parts of a URL that say where a request goes: scheme, host, port (default filled in) and
/// path, without user-info, query or fragment. `None` if it cannot be read as a URL.
fn endpoint(url: &str) -> Option<(String, String, u16, String)> {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    let (scheme, rest) = url[..end].split_once("://")?;
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    // `http` reads host and port, brackets of IPv6 included, as a request would.
    let uri: http::Uri = format!("{scheme}://{host_port}/").parse().ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let port = uri.port_u16().or(match scheme.as_str() {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    })?;
    let host = uri.host()?.to_ascii_lowercase();
    let path = if path.is_empty() { "/" } else { path };
    Some((scheme, host, port, path.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::endpoint;

    #[test]
    fn endpoint_ignores_credentials_query_case_and_default_ports() {
        let base = endpoint("https://mcp.example.com/mcp");
        assert!(base.is_some());
        for same in [
            "HTTPS://MCP.example.com:443/mcp",
            "https://••••@mcp.example.com/mcp?key=••••",
            "https://mcp.example.com/mcp#x",
        ] {
            assert_eq!(endpoint(same), base, "{same}");
        }
        for other in [
            "http://mcp.example.com/mcp",
            "https://mcp.example.com:8443/mcp",
            "https://evil.example/mcp",
            "https://mcp.example.com.evil.example/mcp",
            "https://mcp.example.com@evil.example/mcp",
            "https://mcp.example.com/other",
        ] {
            assert_ne!(endpoint(other), base, "{other}");
        }
        assert_eq!(endpoint("not a url"), None);
    }
}
