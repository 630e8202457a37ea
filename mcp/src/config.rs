//! Validation of an MCP server's configuration (the config itself is a warden-types record): every
//! way in (UI, import, file) checks the same.

pub use warden_types::mcp::{
    McpServerConfig, ToolPolicy, Transport, DEFAULT_CALL_TIMEOUT_SECS, MAX_CALL_TIMEOUT_SECS, MAX_NAME_LEN,
    MAX_SANDBOX_PATHS,
};

use crate::error::{Error, Result};

const MAX_PATH_LEN: usize = 4096;

/// Checks a config before it is stored or connected.
pub trait Validate {
    /// Checks everything a connection or the model's tool list relies on.
    fn validate(&self) -> Result<()>;
}

impl Validate for McpServerConfig {
    /// Checks everything a connection or the model's tool list relies on.
    fn validate(&self) -> Result<()> {
        validate_name(&self.name)?;
        if self.call_timeout_secs == 0 || self.call_timeout_secs > MAX_CALL_TIMEOUT_SECS {
            return Err(invalid(format!("call timeout must be between 1 and {MAX_CALL_TIMEOUT_SECS} seconds")));
        }
        validate_sandbox(self)?;
        match &self.transport {
            Transport::Stdio { command, env, .. } => {
                if command.trim().is_empty() {
                    return Err(invalid("the command is empty"));
                }
                if let Some(key) = env.keys().find(|k| k.is_empty() || k.contains('=') || k.contains('\0')) {
                    return Err(invalid(format!("`{key}` is not a valid environment variable name")));
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
                        return Err(invalid(format!("the value of header `{name}` is not valid")));
                    }
                }
            }
        }
        Ok(())
    }
}

fn validate_sandbox(config: &McpServerConfig) -> Result<()> {
    if !config.sandbox {
        if !config.sandbox_paths.is_empty() || config.sandbox_network {
            return Err(invalid("`sandbox_paths` and `sandbox_network` need `sandbox: true`"));
        }
        return Ok(());
    }
    if !matches!(config.transport, Transport::Stdio { .. }) {
        return Err(invalid("only a stdio server (a command) can run in a sandbox"));
    }
    if config.sandbox_paths.len() > MAX_SANDBOX_PATHS {
        return Err(invalid(format!("at most {MAX_SANDBOX_PATHS} sandbox paths")));
    }
    for path in &config.sandbox_paths {
        if !path.starts_with('/') || path.contains('\0') || path.len() > MAX_PATH_LEN {
            return Err(invalid(format!("sandbox path `{path}` must be an absolute path")));
        }
    }
    Ok(())
}

/// Checks a server name: it becomes the prefix of tool names, which providers restrict to
/// `[A-Za-z0-9_-]{1,64}`.
pub fn validate_name(name: &str) -> Result<()> {
    if name.is_empty() || name.len() > MAX_NAME_LEN {
        return Err(invalid(format!("the name must have 1 to {MAX_NAME_LEN} characters")));
    }
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        return Err(invalid("the name may only contain letters, digits, `-` and `_`"));
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
        let c = if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '-' };
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
