//! The add/edit form's text fields and their translation to and from a server config: arguments one
//! per line (or space separated on one line), `KEY=VALUE` environment lines, `Name: value` headers.
//! Parsing is plain functions so it is tested without a browser; the server validates the rest.

use std::collections::BTreeMap;

use warden_types::mcp::{McpServerConfig, Transport};

/// Per-call timeout the server applies when a new config does not choose one.
pub const DEFAULT_CALL_TIMEOUT_SECS: u64 = 120;

/// Which transport the form is showing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransportKind {
    Stdio,
    Http,
}

/// The form's values as typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormFields {
    pub name: String,
    pub kind: TransportKind,
    pub command: String,
    pub args: String,
    pub env: String,
    pub url: String,
    pub headers: String,
    pub trust_read_only_hints: bool,
}

impl Default for FormFields {
    fn default() -> Self {
        Self {
            name: String::new(),
            kind: TransportKind::Stdio,
            command: String::new(),
            args: String::new(),
            env: String::new(),
            url: String::new(),
            headers: String::new(),
            trust_read_only_hints: false,
        }
    }
}

impl FormFields {
    /// The fields for editing a stored server (its secrets stay redacted).
    pub fn from_config(config: &McpServerConfig) -> Self {
        let mut fields =
            Self { name: config.name.clone(), trust_read_only_hints: config.trust_read_only_hints, ..Self::default() };
        match &config.transport {
            Transport::Stdio { command, args, env } => {
                fields.command = command.clone();
                fields.args = args.join("\n");
                fields.env = env.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("\n");
            }
            Transport::Http { url, headers } => {
                fields.kind = TransportKind::Http;
                fields.url = url.clone();
                fields.headers = headers.iter().map(|(k, v)| format!("{k}: {v}")).collect::<Vec<_>>().join("\n");
            }
        }
        fields
    }

    /// The config to test or save. `base` is the stored config when editing: its enabled flag,
    /// tool policies and timeout are kept.
    pub fn to_config(&self, base: Option<&McpServerConfig>) -> Result<McpServerConfig, String> {
        let name = self.name.trim().to_string();
        if name.is_empty() {
            return Err("Enter a name for the server.".into());
        }
        let transport = match self.kind {
            TransportKind::Stdio => {
                let command = self.command.trim().to_string();
                if command.is_empty() {
                    return Err("Enter the command that starts the server.".into());
                }
                Transport::Stdio {
                    command,
                    args: parse_args(&self.args),
                    env: parse_pairs(&self.env, '=', "environment")?,
                }
            }
            TransportKind::Http => {
                let url = self.url.trim().to_string();
                if url.is_empty() {
                    return Err("Enter the server's URL.".into());
                }
                Transport::Http { url, headers: parse_pairs(&self.headers, ':', "header")? }
            }
        };
        // The sandbox settings are kept for a stdio server only (an HTTP server has no process to confine).
        let sandboxed = base.filter(|_| matches!(transport, Transport::Stdio { .. }));
        Ok(McpServerConfig {
            name,
            enabled: base.map(|b| b.enabled).unwrap_or(true),
            transport,
            trust_read_only_hints: self.trust_read_only_hints,
            tool_policies: base.map(|b| b.tool_policies.clone()).unwrap_or_default(),
            call_timeout_secs: base.map(|b| b.call_timeout_secs).unwrap_or(DEFAULT_CALL_TIMEOUT_SECS),
            sandbox: sandboxed.is_some_and(|b| b.sandbox),
            sandbox_paths: sandboxed.map(|b| b.sandbox_paths.clone()).unwrap_or_default(),
            sandbox_network: sandboxed.is_some_and(|b| b.sandbox_network),
        })
    }
}

/// Arguments: one per line when there are several lines (so an argument may contain spaces),
/// otherwise separated by whitespace.
pub fn parse_args(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    if lines.len() > 1 {
        lines.into_iter().map(str::to_string).collect()
    } else {
        text.split_whitespace().map(str::to_string).collect()
    }
}

/// `KEY<sep>VALUE` lines into a map; blank lines are skipped, the value may contain `sep`.
pub fn parse_pairs(text: &str, sep: char, what: &str) -> Result<BTreeMap<String, String>, String> {
    let mut pairs = BTreeMap::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let (key, value) =
            line.split_once(sep).ok_or_else(|| format!("Line {} of the {what} lines has no `{sep}`.", index + 1))?;
        let key = key.trim();
        if key.is_empty() {
            return Err(format!("Line {} of the {what} lines has no name before `{sep}`.", index + 1));
        }
        pairs.insert(key.to_string(), value.trim().to_string());
    }
    Ok(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args_on_one_line_split_on_spaces_and_several_lines_keep_spaces() {
        assert_eq!(parse_args("  -y  @scope/server  "), vec!["-y", "@scope/server"]);
        assert_eq!(parse_args("--title\nmy notes\n\n"), vec!["--title", "my notes"]);
        assert!(parse_args("   ").is_empty());
    }

    #[test]
    fn env_and_header_lines_become_maps_and_bad_lines_are_named() {
        let env = parse_pairs("A=1\n\nB = x=y\n", '=', "environment").unwrap();
        assert_eq!(env.get("A").map(String::as_str), Some("1"));
        assert_eq!(env.get("B").map(String::as_str), Some("x=y"));
        let headers = parse_pairs("Authorization: Bearer abc", ':', "header").unwrap();
        assert_eq!(headers.get("Authorization").map(String::as_str), Some("Bearer abc"));
        assert_eq!(
            parse_pairs("x\nNOPE", '=', "environment").unwrap_err(),
            "Line 1 of the environment lines has no `=`."
        );
    }

    #[test]
    fn editing_round_trips_and_keeps_policies_of_the_stored_config() {
        let stored = McpServerConfig {
            name: "files".into(),
            enabled: false,
            transport: Transport::Stdio {
                command: "npx".into(),
                args: vec!["-y".into(), "a b".into()],
                env: BTreeMap::from([("TOKEN".into(), "••••".into())]),
            },
            trust_read_only_hints: true,
            tool_policies: BTreeMap::from([("rm".into(), warden_types::mcp::ToolPolicy::AlwaysAsk)]),
            call_timeout_secs: 30,
            sandbox: true,
            sandbox_paths: vec!["/srv/files".into()],
            sandbox_network: false,
        };
        let fields = FormFields::from_config(&stored);
        assert_eq!(fields.to_config(Some(&stored)).unwrap(), stored);
    }

    #[test]
    fn a_new_http_server_gets_defaults() {
        let fields = FormFields {
            name: " web ".into(),
            kind: TransportKind::Http,
            url: "https://example.test/mcp".into(),
            ..FormFields::default()
        };
        let config = fields.to_config(None).unwrap();
        assert_eq!(config.name, "web");
        assert!(config.enabled);
        assert_eq!(config.call_timeout_secs, DEFAULT_CALL_TIMEOUT_SECS);
        assert_eq!(FormFields { url: String::new(), ..fields }.to_config(None).unwrap_err(), "Enter the server's URL.");
    }
}
