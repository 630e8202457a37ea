//! Opens one MCP session over the configured transport (a child process or Streamable HTTP),
//! performs the handshake and reads the tool list, all within a timeout.

use std::collections::{HashMap, VecDeque};
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::ServiceExt;
use tokio::io::{AsyncBufReadExt, BufReader};

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

/// A live session.
pub struct Connection {
    pub service: RunningService<RoleClient, Arc<WardenClient>>,
    pub client: Arc<WardenClient>,
    pub server_info: Option<ServerInfo>,
    pub tools: Vec<RemoteTool>,
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
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .back()
            .cloned()
    }

    fn text(&self) -> String {
        let lines = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        lines.iter().cloned().collect::<Vec<_>>().join("\n")
    }
}

/// Connects and lists tools, or explains why not.
pub async fn connect(config: &McpServerConfig) -> Result<Connection> {
    let client = Arc::new(WardenClient::default());
    let stderr = StderrTail::default();
    let attempt = async {
        let service = match &config.transport {
            Transport::Stdio { command, args, env } => {
                let mut cmd = tokio::process::Command::new(command);
                cmd.args(args).envs(env).kill_on_drop(true);
                let (transport, child_stderr) = TokioChildProcess::builder(cmd)
                    .stderr(Stdio::piped())
                    .spawn()
                    .map_err(|e| Error::Connect(format!("could not start `{command}`: {e}")))?;
                if let Some(child_stderr) = child_stderr {
                    tokio::spawn(forward_stderr(
                        config.name.clone(),
                        child_stderr,
                        stderr.clone(),
                    ));
                }
                client
                    .clone()
                    .serve(transport)
                    .await
                    .map_err(|e| Error::Connect(e.to_string()))?
            }
            Transport::Http { url, headers } => {
                let transport = StreamableHttpClientTransport::from_config(
                    StreamableHttpClientTransportConfig::with_uri(url.as_str())
                        .custom_headers(header_map(headers)?),
                );
                client
                    .clone()
                    .serve(transport)
                    .await
                    .map_err(|e| Error::Connect(describe_http_error(&e)))?
            }
        };
        let server_info = service
            .peer()
            .peer_info()
            .and_then(|info| info.server_info.clone())
            .map(|i| ServerInfo {
                name: i.name,
                version: i.version,
            });
        let tools = list_tools(&service.peer().clone()).await?;
        let stderr = matches!(config.transport, Transport::Stdio { .. }).then(|| stderr.clone());
        Ok(Connection {
            service,
            client: client.clone(),
            server_info,
            tools,
            stderr,
        })
    };
    let result = match tokio::time::timeout(CONNECT_TIMEOUT, attempt).await {
        Ok(result) => result,
        Err(_) => Err(Error::ConnectTimeout(CONNECT_TIMEOUT.as_secs())),
    };
    result.map_err(|error| with_stderr(error, &stderr))
}

/// All the server's tools (following pagination).
pub async fn list_tools(peer: &rmcp::Peer<RoleClient>) -> Result<Vec<RemoteTool>> {
    let tools = peer
        .list_all_tools()
        .await
        .map_err(|e| Error::Connect(format!("tools/list failed: {e}")))?;
    Ok(tools.iter().map(RemoteTool::from_rmcp).collect())
}

fn header_map(
    headers: &std::collections::BTreeMap<String, String>,
) -> Result<HashMap<http::HeaderName, http::HeaderValue>> {
    headers
        .iter()
        .map(|(name, value)| {
            let name = http::HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
                Error::InvalidConfig(format!("`{name}` is not a valid header name"))
            })?;
            let mut value = http::HeaderValue::from_str(value).map_err(|_| {
                Error::InvalidConfig(format!("the value of header `{name}` is not valid"))
            })?;
            value.set_sensitive(true);
            Ok((name, value))
        })
        .collect()
}

/// rmcp's errors nest the HTTP status deep inside; say plainly when it was a refusal.
fn describe_http_error(error: &rmcp::service::ClientInitializeError) -> String {
    let text = error.to_string();
    if error.is_authorization_required() || text.contains("401") || text.contains("Unauthorized") {
        format!("the server refused the credentials (HTTP 401 Unauthorized): {text}")
    } else {
        text
    }
}

fn with_stderr(error: Error, stderr: &StderrTail) -> Error {
    let tail = stderr.text();
    match error {
        Error::Connect(message) if !tail.is_empty() => {
            Error::Connect(format!("{message}\nstderr:\n{tail}"))
        }
        other => other,
    }
}

async fn forward_stderr(server: String, stderr: tokio::process::ChildStderr, tail: StderrTail) {
    let mut lines = BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        tracing::debug!(mcp_server = %server, "stderr: {line}");
        tail.push(line);
    }
}
