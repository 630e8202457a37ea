//! Opens one MCP session over the configured transport (a child process or Streamable HTTP),
//! performs the handshake and reads the tool list, all within a timeout. A child process gets only
//! the environment it needs, and runs confined by `warden-sandbox` when its config says `sandbox`.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::ServiceExt;
use tokio::io::{AsyncBufReadExt, BufReader};
use warden_llm::redirects;
use warden_sandbox::{Policy, Scratch};

use crate::client::WardenClient;
use crate::config::{McpServerConfig, Transport};
use crate::error::{Error, Result};
use crate::model::{RemoteTool, ServerInfo};

/// Handshake plus first tool list. Generous: `npx -y` may download the server first.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(60);
/// A later `tools/list` (after `list_changed`).
pub const LIST_TIMEOUT: Duration = Duration::from_secs(30);
/// Lines of a child's stderr kept to explain a failed start.
const STDERR_LINES: usize = 20;
/// What a stdio server inherits from Warden's environment, as the MCP SDKs' `get_default_environment`
/// does: never the rest (model keys, `WARDEN_TOKEN`). Its configured `env` comes on top.
pub const INHERITED_ENV: [&str; 6] = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/// A live session.
pub struct Connection {
    pub service: RunningService<RoleClient, Arc<WardenClient>>,
    pub client: Arc<WardenClient>,
    pub server_info: Option<ServerInfo>,
    pub tools: Vec<RemoteTool>,
    /// Why some tools were left out (see [`ToolListing`]).
    pub tools_notice: Option<String>,
    /// What a child process last wrote to stderr (stdio servers only).
    pub stderr: Option<StderrTail>,
}

/// The last lines a child wrote to stderr.
#[derive(Clone, Default)]
pub struct StderrTail(Arc<Mutex<VecDeque<String>>>);

impl StderrTail {
    fn push(&self, line: String) {
        let mut lines = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if lines.len() == STDERR_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    pub fn last_line(&self) -> Option<String> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).back().cloned()
    }

    fn text(&self) -> String {
        let lines = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        lines.iter().cloned().collect::<Vec<_>>().join("\n")
    }
}

/// Connects and lists tools, or explains why not. `private_paths` are what a sandboxed server may not
/// read (Warden's data dir, see the engine's `Config::private_paths`).
pub async fn connect(config: &McpServerConfig, private_paths: &[PathBuf]) -> Result<Connection> {
    let client = Arc::new(WardenClient::default());
    let stderr = StderrTail::default();
    let refused = redirects::RefusedRedirect::default();
    let attempt = async {
        let service = match &config.transport {
            Transport::Stdio { command, args, env } => {
                let mut cmd = tokio::process::Command::new(command);
                cmd.args(args).env_clear().envs(inherited_env()).kill_on_drop(true);
                // Confined or not, the server starts in a session of its own, away from Warden's terminal.
                let scratch = if config.sandbox {
                    Some(confine(&mut cmd, config, private_paths)?)
                } else {
                    warden_sandbox::own_session(&mut cmd);
                    None
                };
                cmd.envs(env);
                let (transport, child_stderr) = TokioChildProcess::builder(cmd)
                    .stderr(Stdio::piped())
                    .spawn()
                    .map_err(|e| Error::Connect(format!("could not start `{command}`: {e}")))?;
                if let Some(child_stderr) = child_stderr {
                    tokio::spawn(forward_stderr(config.name.clone(), child_stderr, stderr.clone(), scratch));
                }
                client.clone().serve(transport).await.map_err(|e| Error::Connect(e.to_string()))?
            }
            Transport::Http { url, headers } => {
                warden_llm::tls::install_crypto_provider();
                // rmcp's own client stops at a redirect to another origin too; ours says where it pointed.
                let http = reqwest::Client::builder()
                    .pool_max_idle_per_host(0)
                    .redirect(redirects::noting_refused(refused.clone()))
                    .build()
                    .map_err(|e| Error::Connect(format!("cannot set up the HTTP client: {e}")))?;
                let transport = StreamableHttpClientTransport::with_client(
                    http,
                    StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(header_map(headers)?),
                );
                client.clone().serve(transport).await.map_err(|e| Error::Connect(describe_http_error(&e, &refused)))?
            }
        };
        let server_info = service
            .peer()
            .peer_info()
            .and_then(|info| info.server_info.clone())
            .map(|i| ServerInfo { name: i.name, version: i.version });
        let ToolListing { tools, notice: tools_notice } = list_tools(&service.peer().clone()).await?;
        if let Some(notice) = &tools_notice {
            tracing::warn!(mcp_server = %config.name, "{notice}");
        }
        let stderr = matches!(config.transport, Transport::Stdio { .. }).then(|| stderr.clone());
        Ok(Connection { service, client: client.clone(), server_info, tools, tools_notice, stderr })
    };
    let result = match tokio::time::timeout(CONNECT_TIMEOUT, attempt).await {
        Ok(result) => result,
        Err(_) => Err(Error::ConnectTimeout(CONNECT_TIMEOUT.as_secs())),
    };
    result.map_err(|error| with_stderr(error, &stderr))
}

/// The most tools Warden takes from one server; a server that lists more has the rest left out (and
/// its status says so). Every tool is offered to the model and looked up at each decision: 100,000 of
/// them made each decision take seconds.
pub const MAX_TOOLS_PER_SERVER: usize = 1_000;
/// The most pages of `tools/list` Warden reads from one server: a server whose cursor never ends
/// (or that sends a tool a page) is not followed forever.
pub const MAX_TOOL_PAGES: usize = 200;

/// What a server's `tools/list` came to: its tools, at most [`MAX_TOOLS_PER_SERVER`], and why some were
/// left out, if any were.
#[derive(Debug, Clone, Default)]
pub struct ToolListing {
    pub tools: Vec<RemoteTool>,
    pub notice: Option<String>,
}

/// The server's tools, following pagination up to [`MAX_TOOL_PAGES`] pages and
/// [`MAX_TOOLS_PER_SERVER`] tools.
pub async fn list_tools(peer: &rmcp::Peer<RoleClient>) -> Result<ToolListing> {
    let mut tools = Vec::new();
    let mut cursor = None;
    for page in 1..=MAX_TOOL_PAGES {
        let params = rmcp::model::PaginatedRequestParams::default().with_cursor(cursor);
        let listed =
            peer.list_tools(Some(params)).await.map_err(|e| Error::Connect(format!("tools/list failed: {e}")))?;
        let room = MAX_TOOLS_PER_SERVER - tools.len();
        let more_on_page = listed.tools.len() > room;
        tools.extend(listed.tools.iter().take(room).map(RemoteTool::from_rmcp));
        cursor = listed.next_cursor;
        if more_on_page || (tools.len() == MAX_TOOLS_PER_SERVER && cursor.is_some()) {
            let notice = format!(
                "The server lists more than {MAX_TOOLS_PER_SERVER} tools; Warden took the first \
                 {MAX_TOOLS_PER_SERVER} and left the rest out."
            );
            return Ok(ToolListing { tools, notice: Some(notice) });
        }
        if cursor.is_none() {
            return Ok(ToolListing { tools, notice: None });
        }
        if page == MAX_TOOL_PAGES {
            let notice = format!(
                "The server's tool list went on past {MAX_TOOL_PAGES} pages; Warden took the {} tools of \
                 those pages and left the rest out.",
                tools.len()
            );
            return Ok(ToolListing { tools, notice: Some(notice) });
        }
    }
    Ok(ToolListing { tools, notice: None })
}

fn header_map(
    headers: &std::collections::BTreeMap<String, String>,
) -> Result<HashMap<http::HeaderName, http::HeaderValue>> {
    headers
        .iter()
        .map(|(name, value)| {
            let name = http::HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| Error::InvalidConfig(format!("`{name}` is not a valid header name")))?;
            let mut value = http::HeaderValue::from_str(value)
                .map_err(|_| Error::InvalidConfig(format!("the value of header `{name}` is not valid")))?;
            value.set_sensitive(true);
            Ok((name, value))
        })
        .collect()
}

/// rmcp's errors nest the HTTP status deep inside; say plainly when it was a refusal.
fn describe_http_error(error: &rmcp::service::ClientInitializeError, refused: &redirects::RefusedRedirect) -> String {
    let text = error.to_string();
    if let Some(to) = refused.get() {
        format!("the server answered with {} ({text})", redirects::refused_text(Some(&to)))
    } else if error.is_authorization_required() || text.contains("401") || text.contains("Unauthorized") {
        format!("the server refused the credentials (HTTP 401 Unauthorized): {text}")
    } else {
        text
    }
}

fn with_stderr(error: Error, stderr: &StderrTail) -> Error {
    let tail = stderr.text();
    match error {
        Error::Connect(message) if !tail.is_empty() => Error::Connect(format!("{message}\nstderr:\n{tail}")),
        other => other,
    }
}

/// Reads the child's stderr until every process holding it has ended, keeping a sandboxed server's
/// private `HOME` and `TMPDIR` until then (they are removed when `_scratch` drops).
async fn forward_stderr(
    server: String,
    stderr: tokio::process::ChildStderr,
    tail: StderrTail,
    _scratch: Option<Scratch>,
) {
    let mut lines = BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        tracing::debug!(mcp_server = %server, "stderr: {line}");
        tail.push(line);
    }
}

/// `INHERITED_ENV` as Warden has it, leaving out shell function exports (`() {...}`), as the SDKs do.
fn inherited_env() -> Vec<(&'static str, std::ffi::OsString)> {
    INHERITED_ENV
        .iter()
        .filter_map(|&name| std::env::var_os(name).map(|value| (name, value)))
        .filter(|(_, value)| !value.as_encoded_bytes().starts_with(b"()"))
        .collect()
}

/// Confines a stdio server by its config: a private `HOME` and `TMPDIR` (returned; they must live as
/// long as the server), write access there and in `sandbox_paths`, read access to all but
/// `private_paths`, network only with `sandbox_network`. Refuses to start it without a sandbox.
fn confine(cmd: &mut tokio::process::Command, config: &McpServerConfig, private_paths: &[PathBuf]) -> Result<Scratch> {
    let sandbox_failed = |e: &dyn std::fmt::Display| {
        Error::Connect(format!("`{}` is configured to run in a sandbox, which could not be set up: {e}", config.name))
    };
    let status = warden_sandbox::status();
    if !status.available {
        return Err(sandbox_failed(&status.detail));
    }
    let scratch = Scratch::new().map_err(|e| sandbox_failed(&e))?;
    cmd.env("HOME", scratch.home()).env("TMPDIR", scratch.tmp());
    let writable = config.sandbox_paths.iter().map(|p| Path::new(p).to_path_buf()).collect();
    let policy =
        Policy::new(writable, private_paths.to_vec()).with_scratch(&scratch).with_network(config.sandbox_network);
    warden_sandbox::confine(cmd, &policy).map_err(|e| sandbox_failed(&e))?;
    Ok(scratch)
}
