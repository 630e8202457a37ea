//! The configuration of one MCP server as Warden stores it: how to reach it, whether it is on, and
//! how its tools are gated. Validation lives here so every way in (UI, import, file) checks the same.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Default per-call timeout when a config does not say.
pub const DEFAULT_CALL_TIMEOUT_SECS: u64 = 120;
/// Longest per-call timeout accepted.
pub const MAX_CALL_TIMEOUT_SECS: u64 = 3600;
/// Longest server name: it prefixes every tool name the model sees (`server__tool`, 64 chars max).
pub const MAX_NAME_LEN: usize = 32;
/// Most paths a sandboxed server may be given, and the longest one.
pub const MAX_SANDBOX_PATHS: usize = 64;
const MAX_PATH_LEN: usize = 4096;

/// One configured MCP server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpServerConfig {
    /// Unique key; letters, digits, `-` and `_` (no `__`, which separates server and tool).
    pub name: String,
    #[serde(default = "enabled_by_default")]
    pub enabled: bool,
    pub transport: Transport,
    /// Let tools annotated `readOnlyHint: true` run without approval (default: ask).
    #[serde(default)]
    pub trust_read_only_hints: bool,
    /// Per-tool overrides, keyed by the tool's name on the server (not the `server__tool` name).
    #[serde(default)]
    pub tool_policies: BTreeMap<String, ToolPolicy>,
    #[serde(default = "default_call_timeout")]
    pub call_timeout_secs: u64,
    /// Run this stdio server confined by `warden-sandbox`: a private empty `HOME` and `TMPDIR`, writes
    /// only there and in `sandbox_paths`, nothing of Warden's data dir readable, no network unless
    /// `sandbox_network`, and every process it starts ends with it. Without a sandbox on the machine
    /// the server is not started.
    #[serde(default, skip_serializing_if = "is_false")]
    pub sandbox: bool,
    /// Absolute paths a sandboxed server may read and write (e.g. the folder a filesystem server serves).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sandbox_paths: Vec<String>,
    /// A sandboxed server may use the network (e.g. `npx -y` downloading it, or an API it wraps).
    #[serde(default, skip_serializing_if = "is_false")]
    pub sandbox_network: bool,
}

fn is_false(value: &bool) -> bool {
    !*value
}

fn enabled_by_default() -> bool {
    true
}

fn default_call_timeout() -> u64 {
    DEFAULT_CALL_TIMEOUT_SECS
}

/// How Warden reaches a server.
// `Debug` is written by hand in `redact`: it masks the secrets.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Transport {
    /// A child process speaking MCP on stdin/stdout.
    Stdio {
        command: String,
        #[serde(default)]
        args: Vec<String>,
        /// Secret by assumption: shown redacted.
        #[serde(default)]
        env: BTreeMap<String, String>,
    },
    /// A Streamable HTTP endpoint.
    Http {
        url: String,
        /// Secret by assumption (e.g. `Authorization: Bearer ...`): shown redacted.
        #[serde(default)]
        headers: BTreeMap<String, String>,
    },
}

/// A person's override for one tool.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolPolicy {
    /// Decide from the tool's annotations and the server's trust setting.
    #[default]
    Default,
    AlwaysAsk,
    NeverAsk,
    /// Not offered to the model.
    Disabled,
}

impl McpServerConfig {
    /// A config with Warden's defaults: enabled, untrusted read-only hints, no overrides.
    pub fn new(name: impl Into<String>, transport: Transport) -> Self {
        Self {
            name: name.into(),
            enabled: true,
            transport,
            trust_read_only_hints: false,
            tool_policies: BTreeMap::new(),
            call_timeout_secs: DEFAULT_CALL_TIMEOUT_SECS,
            sandbox: false,
            sandbox_paths: Vec::new(),
            sandbox_network: false,
        }
    }

    /// The policy for one tool (by its name on the server).
    pub fn policy(&self, tool: &str) -> ToolPolicy {
        self.tool_policies.get(tool).copied().unwrap_or_default()
    }

    /// Checks everything a connection or the model's tool list relies on.
    pub fn validate(&self) -> Result<()> {
        validate_name(&self.name)?;
        if self.call_timeout_secs == 0 || self.call_timeout_secs > MAX_CALL_TIMEOUT_SECS {
            return Err(invalid(format!(
                "call timeout must be between 1 and {MAX_CALL_TIMEOUT_SECS} seconds"
            )));
        }
        self.validate_sandbox()?;
        match &self.transport {
            Transport::Stdio { command, env, .. } => {
                if command.trim().is_empty() {
                    return Err(invalid("the command is empty"));
                }
                if let Some(key) = env
                    .keys()
                    .find(|k| k.is_empty() || k.contains('=') || k.contains('\0'))
                {
                    return Err(invalid(format!(
                        "`{key}` is not a valid environment variable name"
                    )));
                }
            }
            Transport::Http { url, headers } => {
                let lower = url.to_ascii_lowercase();
                if !(lower.starts_with("http://") || lower.starts_with("https://")) {
                    return Err(invalid("the URL must start with http:// or https://"));
                }
                for (name, value) in headers {
                    if http::HeaderName::from_bytes(name.as_bytes()).is_err() {
                        return Err(invalid(format!("`{name}` is not a valid header name")));
                    }
                    if http::HeaderValue::from_str(value).is_err() {
                        return Err(invalid(format!(
                            "the value of header `{name}` is not valid"
                        )));
                    }
                }
            }
        }
        Ok(())
    }
}

impl McpServerConfig {
    fn validate_sandbox(&self) -> Result<()> {
        if !self.sandbox {
            if !self.sandbox_paths.is_empty() || self.sandbox_network {
                return Err(invalid(
                    "`sandbox_paths` and `sandbox_network` need `sandbox: true`",
                ));
            }
            return Ok(());
        }
        if !matches!(self.transport, Transport::Stdio { .. }) {
            return Err(invalid(
                "only a stdio server (a command) can run in a sandbox",
            ));
        }
        if self.sandbox_paths.len() > MAX_SANDBOX_PATHS {
            return Err(invalid(format!(
                "at most {MAX_SANDBOX_PATHS} sandbox paths"
            )));
        }
        for path in &self.sandbox_paths {
            if !path.starts_with('/') || path.contains('\0') || path.len() > MAX_PATH_LEN {
                return Err(invalid(format!(
                    "sandbox path `{path}` must be an absolute path"
                )));
            }
        }
        Ok(())
    }
}

/// Checks a server name: it becomes the prefix of tool names, which providers restrict to
/// `[A-Za-z0-9_-]{1,64}`.
pub fn validate_name(name: &str) -> Result<()> {
    if name.is_empty() || name.len() > MAX_NAME_LEN {
        return Err(invalid(format!(
            "the name must have 1 to {MAX_NAME_LEN} characters"
        )));
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(invalid(
            "the name may only contain letters, digits, `-` and `_`",
        ));
    }
    if name.contains("__") {
        return Err(invalid("the name may not contain `__`"));
    }
    Ok(())
}

/// Turns any label (e.g. a key from someone's mcpServers file) into a valid server name.
pub fn sanitize_name(label: &str) -> String {
    let mut name = String::new();
    for c in label.chars() {
        let c = if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
            c
        } else {
            '-'
        };
        if c == '_' && name.ends_with('_') {
            continue;
        }
        name.push(c);
        if name.len() == MAX_NAME_LEN {
            break;
        }
    }
    if name.is_empty() {
        name.push_str("server");
    }
    name
}

fn invalid(message: impl Into<String>) -> Error {
    Error::InvalidConfig(message.into())
}
