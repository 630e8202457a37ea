//! MCP servers as Warden stores and shows them: a server's configuration (how to reach it, how its
//! tools are gated), its connection state and the tools it offers with the decision Warden will make.
//! Every string in here may come from a remote server or a config file: render it as text only.
//! Validation and secret redaction live in warden-mcp; `Debug` of a transport shows no value that
//! may be secret.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::tool::Risk;

/// Default per-call timeout when a config does not say.
pub const DEFAULT_CALL_TIMEOUT_SECS: u64 = 120;
/// Longest per-call timeout accepted.
pub const MAX_CALL_TIMEOUT_SECS: u64 = 3600;
/// Longest server name: it prefixes every tool name the model sees (`server__tool`, 64 chars max).
pub const MAX_NAME_LEN: usize = 32;
/// Most paths a sandboxed server may be given, and the longest one.
pub const MAX_SANDBOX_PATHS: usize = 64;

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
// `Debug` is written by hand below: it shows no value that may be secret.
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
}

impl std::fmt::Debug for Transport {
    /// Logs and error messages see the command or the URL's origin, and the names (never the values)
    /// of arguments, environment variables and headers.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Transport::Stdio { command, args, env } => f
                .debug_struct("Stdio")
                .field("command", command)
                .field("args", &format_args!("[{} hidden]", args.len()))
                .field("env", &env.keys().collect::<Vec<_>>())
                .finish(),
            Transport::Http { url, headers } => f
                .debug_struct("Http")
                .field("origin", &origin_of(url))
                .field("headers", &headers.keys().collect::<Vec<_>>())
                .finish(),
        }
    }
}

/// `scheme://host[:port]` of a URL, without user-info, path or query.
fn origin_of(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    format!("{scheme}://{host}")
}

/// The connection state of one server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ServerState {
    Disabled,
    /// First connection attempt under way.
    Connecting,
    Connected,
    /// The last attempt to connect failed; retrying with backoff.
    Failed {
        error: String,
    },
    /// The connection was lost (crash, disconnect); reconnecting with backoff.
    Offline {
        error: String,
    },
}

/// The server's own name and version from the MCP handshake.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerInfo {
    pub name: String,
    pub version: String,
}

impl ServerState {
    /// A short word for the state, also used as a CSS class suffix.
    pub fn label(&self) -> &'static str {
        match self {
            ServerState::Disabled => "disabled",
            ServerState::Connecting => "connecting",
            ServerState::Connected => "connected",
            ServerState::Failed { .. } => "failed",
            ServerState::Offline { .. } => "offline",
        }
    }

    /// The last error, for failed and offline servers.
    pub fn error(&self) -> Option<&str> {
        match self {
            ServerState::Failed { error } | ServerState::Offline { error } => Some(error),
            _ => None,
        }
    }
}

/// One tool of a server as the settings page shows it, with the decision Warden will make.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpToolStatus {
    /// The name on the server.
    pub name: String,
    /// The name the model sees: `server__tool`.
    pub qualified_name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub read_only_hint: bool,
    pub destructive_hint: bool,
    pub policy: ToolPolicy,
    /// The server is not connected: calls will be refused.
    pub offline: bool,
    pub needs_approval: bool,
    pub risk: Risk,
}

/// Everything the settings page shows about one server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpServerStatus {
    pub name: String,
    pub enabled: bool,
    pub state: ServerState,
    pub server_info: Option<ServerInfo>,
    pub tools: Vec<McpToolStatus>,
    /// Why some of the server's tools were left out (it listed more than Warden takes), if any were.
    #[serde(default)]
    pub tools_notice: Option<String>,
    /// The config with every secret redacted (see `redact`); send it back unchanged to keep them.
    pub config: McpServerConfig,
}

/// What a reconnect came to, for the Reconnect buttons (a call's offline notice, a server's card): the
/// server's state once the attempt connected or failed, and how many tools it offers. Not the whole
/// status: the chat page's code would carry every MCP record's decoding for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reconnected {
    pub state: ServerState,
    pub tools: usize,
}

/// What `test_connection` found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerProbe {
    pub server_info: Option<ServerInfo>,
    pub tools: Vec<McpToolStatus>,
    /// Why some of the server's tools were left out, if any were.
    #[serde(default)]
    pub tools_notice: Option<String>,
}

impl ToolPolicy {
    pub const ALL: [ToolPolicy; 4] =
        [ToolPolicy::Default, ToolPolicy::AlwaysAsk, ToolPolicy::NeverAsk, ToolPolicy::Disabled];

    /// The value of the `<option>` (the wire name).
    pub fn key(self) -> &'static str {
        match self {
            ToolPolicy::Default => "default",
            ToolPolicy::AlwaysAsk => "always_ask",
            ToolPolicy::NeverAsk => "never_ask",
            ToolPolicy::Disabled => "disabled",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            ToolPolicy::Default => "Default",
            ToolPolicy::AlwaysAsk => "Always ask",
            ToolPolicy::NeverAsk => "Never ask",
            ToolPolicy::Disabled => "Disabled",
        }
    }

    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.key() == key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_of_a_transport_shows_no_secret_value() {
        let stdio = Transport::Stdio {
            command: "srv".into(),
            args: vec!["--token=hunter2hunter2".into()],
            env: BTreeMap::from([("API_KEY".into(), "sk-secret-value".into())]),
        };
        let http = Transport::Http {
            url: "https://user:pw@mcp.example/x?key=sk-secret".into(),
            headers: BTreeMap::from([("Authorization".into(), "Bearer sk-secret".into())]),
        };
        let shown = format!("{stdio:?} {http:?}");
        for secret in ["hunter2", "sk-secret", "pw@", "key="] {
            assert!(!shown.contains(secret), "{secret} shown in {shown}");
        }
        assert!(shown.contains("API_KEY") && shown.contains("https://mcp.example") && shown.contains("Authorization"));
    }
}
