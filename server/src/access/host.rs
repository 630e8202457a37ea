//! The names a request may address Warden by (its `Host`), and the origins allowed to change
//! anything. Loopback names by default (`localhost`, `127.0.0.1`, `[::1]`, bare or with the
//! listening port); `WARDEN_ALLOWED_HOSTS` adds more. Checking `Host` defeats DNS rebinding: a page on
//! `evil.example` that rebinds its name to 127.0.0.1 still sends `Host: evil.example`. Ports are always
//! compared unless the operator wrote `name:*`: browsers send cookies to every port of a name, so
//! another server on `name:8081` must not count as Warden's own origin.

/// Which ports an allowed name comes with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ports {
    /// Written without a port: no port (the scheme's default, as a reverse proxy on 80/443 publishes
    /// it) or the listening port.
    Default,
    /// `name:port`: that port only.
    Only(u16),
    /// `name:*`: any port, on the operator's word.
    Any,
}

/// One allowed name, with the ports it may come with.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    /// Lower case; an IPv6 address keeps its brackets.
    name: String,
    ports: Ports,
    /// Added by the operator (a reverse proxy's name, a LAN address), not a default loopback name.
    extra: bool,
}

#[derive(Debug, thiserror::Error)]
#[error(
    "WARDEN_ALLOWED_HOSTS: `{0}` is not a host name, `name:port`, `name:*` (any port), an IP address or `[IPv6]:port`"
)]
pub struct HostListError(String);

/// Which `Host` and `Origin` values are accepted.
///
/// - a default loopback name matches bare or with the listening port (an `Origin`: the listening port);
/// - an added name without a port matches bare (the scheme's default port) or the listening port;
/// - an added `name:port` matches that port only; an added `name:*` any port.
#[derive(Debug, Clone)]
pub struct AllowedHosts {
    entries: Vec<Entry>,
    port: u16,
}

impl AllowedHosts {
    /// The loopback names, for a server listening on `port`.
    pub fn loopback(port: u16) -> Self {
        let entries = ["localhost", "127.0.0.1", "[::1]"]
            .into_iter()
            .map(|name| Entry { name: name.to_string(), ports: Ports::Default, extra: false })
            .collect();
        Self { entries, port }
    }

    /// Adds the comma-separated names of `WARDEN_ALLOWED_HOSTS`.
    pub fn with_extra(mut self, list: &str) -> Result<Self, HostListError> {
        for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let bad = || HostListError(item.to_string());
            let entry = match item.strip_suffix(":*") {
                Some(name) => match split_authority(name).ok_or_else(bad)? {
                    (name, None) => Entry { name, ports: Ports::Any, extra: true },
                    (_, Some(_)) => return Err(bad()),
                },
                None => {
                    let (name, port) = split_authority(item).ok_or_else(bad)?;
                    Entry { name, ports: port.map_or(Ports::Default, Ports::Only), extra: true }
                }
            };
            self.entries.push(entry);
        }
        Ok(self)
    }

    /// Adds one name (the address Warden is bound to when that is a specific non-loopback one).
    pub fn with_name(mut self, name: &str) -> Self {
        self.entries.push(Entry { name: name.to_ascii_lowercase(), ports: Ports::Only(self.port), extra: true });
        self
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Whether a request addressed to `host` (the `Host` header or the URI's authority) is served.
    pub fn allows_host(&self, host: &str) -> bool {
        match split_authority(host) {
            Some((name, port)) => self.entries.iter().any(|e| {
                e.name == name
                    && match (e.ports, port) {
                        (Ports::Any, _) => true,
                        (Ports::Only(want), got) => got == Some(want),
                        (Ports::Default, None) => true,
                        (Ports::Default, Some(got)) => got == self.port,
                    }
            }),
            None => false,
        }
    }

    /// Whether a browser page from `origin` (the `Origin` header) may change anything. The port is
    /// compared too: another server on a loopback port is a different origin, though cookies
    /// (which ignore ports) would reach us from it.
    pub fn allows_origin(&self, origin: &str) -> bool {
        let Some((scheme, authority)) = origin.split_once("://") else { return false };
        let default_port = match scheme.to_ascii_lowercase().as_str() {
            "http" => 80,
            "https" => 443,
            _ => return false,
        };
        let Some((name, port)) = split_authority(authority) else { return false };
        let port = port.unwrap_or(default_port);
        self.entries.iter().any(|e| {
            e.name == name
                && match e.ports {
                    Ports::Any => true,
                    Ports::Only(want) => port == want,
                    // An added name published by a reverse proxy on the scheme's own port.
                    Ports::Default if e.extra => port == default_port || port == self.port,
                    Ports::Default => port == self.port,
                }
        })
    }
}

/// Splits `name[:port]` (`[v6][:port]` for IPv6), lower-casing the name. `None` when malformed:
/// empty, a path or user info, an unbracketed IPv6 address, or a bad port.
fn split_authority(authority: &str) -> Option<(String, Option<u16>)> {
    let valid_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_');
    let (name, port) = if let Some(rest) = authority.strip_prefix('[') {
        let (inner, after) = rest.split_once(']')?;
        if inner.is_empty() || !inner.chars().all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.') {
            return None;
        }
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':')?),
        };
        (format!("[{inner}]"), port)
    } else {
        let (name, port) = match authority.split_once(':') {
            Some((n, p)) => (n, Some(p)),
            None => (authority, None),
        };
        if name.is_empty() || !name.chars().all(valid_char) {
            return None;
        }
        (name.to_string(), port)
    };
    let port = match port {
        None => None,
        Some(p) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => Some(p.parse().ok()?),
        Some(_) => return None,
    };
    Some((name.to_ascii_lowercase(), port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_names_pass_bare_or_with_the_listening_port_only() {
        let hosts = AllowedHosts::loopback(3000);
        for ok in ["localhost", "localhost:3000", "LOCALHOST:3000", "127.0.0.1:3000", "[::1]:3000", "[::1]"] {
            assert!(hosts.allows_host(ok), "{ok}");
        }
        for bad in [
            "evil.example",
            "evil.example:3000",
            "localhost:3001",
            "localhost.:3000",
            "127.0.0.2:3000",
            "",
            "localhost:",
            "a@localhost:3000",
            "::1",
            "localhost:3000/x",
        ] {
            assert!(!hosts.allows_host(bad), "{bad}");
        }
    }

    #[test]
    fn origins_must_be_an_allowed_name_on_the_listening_port() {
        let hosts = AllowedHosts::loopback(3000);
        assert!(hosts.allows_origin("http://localhost:3000"));
        assert!(hosts.allows_origin("http://127.0.0.1:3000"));
        for bad in [
            "http://evil.example:3000",
            "http://localhost:8080",
            "http://localhost",
            "null",
            "file://",
            "http://localhost.:3000",
        ] {
            assert!(!hosts.allows_origin(bad), "{bad}");
        }
        assert!(AllowedHosts::loopback(80).allows_origin("http://localhost"));
    }

    #[test]
    fn an_added_name_without_a_port_matches_the_default_or_listening_port_only() {
        let hosts =
            AllowedHosts::loopback(3000).with_extra(" warden.lan , box.lan:8443,[fd00::1]:3000").expect("valid list");
        assert!(hosts.allows_host("warden.lan"));
        assert!(hosts.allows_host("warden.lan:3000"));
        assert!(hosts.allows_origin("https://warden.lan"));
        assert!(hosts.allows_origin("http://warden.lan"));
        assert!(hosts.allows_origin("http://warden.lan:3000"));
        // Another server on another port of the same name is not Warden (its page gets the cookie).
        assert!(!hosts.allows_host("warden.lan:8081"));
        assert!(!hosts.allows_origin("http://warden.lan:8081"));
        assert!(hosts.allows_host("box.lan:8443"));
        assert!(!hosts.allows_host("box.lan:3000"));
        assert!(!hosts.allows_host("box.lan"));
        assert!(hosts.allows_origin("https://box.lan:8443"));
        assert!(!hosts.allows_origin("https://box.lan"));
        assert!(hosts.allows_host("[fd00::1]:3000"));
    }

    #[test]
    fn a_star_port_matches_any_port_and_bad_entries_are_start_up_errors() {
        let hosts = AllowedHosts::loopback(3000).with_extra("proxy.lan:*, [fd00::2]:*").expect("valid list");
        for ok in ["proxy.lan", "proxy.lan:8081", "proxy.lan:3000", "[fd00::2]:1"] {
            assert!(hosts.allows_host(ok), "{ok}");
        }
        assert!(hosts.allows_origin("http://proxy.lan:8081"));
        assert!(!hosts.allows_host("localhost:8081"), "a star applies to its own name only");
        for bad in ["bad host", "x:99999", "*", "*.lan", "x:*:*", "x:80:*", "x:*8", "x:", ":*", "x:**"] {
            let error = AllowedHosts::loopback(3000).with_extra(bad).expect_err(bad).to_string();
            assert!(error.contains("WARDEN_ALLOWED_HOSTS") && error.contains("name:*"), "{error}");
        }
    }
}
