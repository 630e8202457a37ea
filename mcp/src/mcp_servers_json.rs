//! The `mcpServers` JSON format that Claude Desktop, Cursor and VS Code use, to import and export
//! server configs: `{"mcpServers":{"name":{"command","args","env"} | {"url","headers"}}}`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::Validate;
use crate::config::{sanitize_name, McpServerConfig, Transport};
use crate::error::{Error, Result};

/// One entry as the file has it. Unknown keys (Cursor's `description`, VS Code's `inputs`) are ignored.
#[derive(Debug, Default, Deserialize, Serialize)]
struct Entry {
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    command: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    args: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    env: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    headers: Option<BTreeMap<String, String>>,
    /// Cline's and others' switch; exported for disabled servers.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    disabled: bool,
    /// Warden's sandbox for a stdio server (see `McpServerConfig::sandbox`); kept through export.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    sandbox: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    sandbox_paths: Vec<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    sandbox_network: bool,
}

/// Reads servers from an `mcpServers` document (VS Code's top-level `servers` key is accepted too).
/// Names are made valid (`my server` -> `my-server`); every config is validated.
pub fn import(json: &str) -> Result<Vec<McpServerConfig>> {
    let document: Value = serde_json::from_str(json).map_err(|e| Error::InvalidJson(e.to_string()))?;
    let servers = document
        .get("mcpServers")
        .or_else(|| document.get("servers"))
        .ok_or_else(|| Error::InvalidJson("no `mcpServers` object".into()))?;
    let servers = servers.as_object().ok_or_else(|| Error::InvalidJson("`mcpServers` is not an object".into()))?;

    let mut configs: Vec<McpServerConfig> = Vec::with_capacity(servers.len());
    for (label, value) in servers {
        let entry: Entry =
            serde_json::from_value(value.clone()).map_err(|e| Error::InvalidJson(format!("server `{label}`: {e}")))?;
        let name = sanitize_name(label);
        if configs.iter().any(|c| c.name == name) {
            return Err(Error::InvalidJson(format!("two servers are both named `{name}`")));
        }
        let sandbox = (entry.sandbox, entry.sandbox_paths.clone(), entry.sandbox_network);
        let (transport, enabled) = entry.into_transport(label)?;
        let mut config = McpServerConfig::new(name, transport);
        config.enabled = enabled;
        (config.sandbox, config.sandbox_paths, config.sandbox_network) = sandbox;
        config.validate()?;
        configs.push(config);
    }
    Ok(configs)
}

/// Writes servers as an `mcpServers` document, with whatever values the configs hold (pass
/// redacted configs when the result leaves the server). Warden-only settings are not exported, except
/// the sandbox (`sandbox`, `sandbox_paths`, `sandbox_network`), which says how the command may run.
pub fn export(configs: &[McpServerConfig]) -> String {
    let mut servers = serde_json::Map::new();
    for config in configs {
        let entry = match &config.transport {
            Transport::Stdio { command, args, env } => Entry {
                command: Some(command.clone()),
                args: Some(args.clone()),
                env: (!env.is_empty()).then(|| env.clone()),
                disabled: !config.enabled,
                sandbox: config.sandbox,
                sandbox_paths: config.sandbox_paths.clone(),
                sandbox_network: config.sandbox_network,
                ..Entry::default()
            },
            Transport::Http { url, headers } => Entry {
                url: Some(url.clone()),
                headers: (!headers.is_empty()).then(|| headers.clone()),
                disabled: !config.enabled,
                ..Entry::default()
            },
        };
        // Serialising a struct of strings cannot fail; an empty object is the harmless fallback.
        let value = serde_json::to_value(entry).unwrap_or_else(|_| Value::Object(Default::default()));
        servers.insert(config.name.clone(), value);
    }
    let document = serde_json::json!({ "mcpServers": servers });
    serde_json::to_string_pretty(&document).unwrap_or_else(|_| "{\"mcpServers\":{}}".to_owned())
}

impl Entry {
    /// The transport this entry describes, and whether it is enabled.
    fn into_transport(self, label: &str) -> Result<(Transport, bool)> {
        let enabled = !self.disabled;
        let kind = self.kind.as_deref();
        if let Some(kind) = kind {
            if kind == "sse" {
                return Err(Error::InvalidJson(format!(
                    "server `{label}` uses the old SSE transport, which Warden does not support; use its Streamable HTTP URL"
                )));
            }
            if !matches!(kind, "stdio" | "http" | "streamable-http" | "streamableHttp") {
                return Err(Error::InvalidJson(format!("server `{label}` has unknown type `{kind}`")));
            }
        }
        match (self.command, self.url) {
            (Some(command), None) => Ok((
                Transport::Stdio { command, args: self.args.unwrap_or_default(), env: self.env.unwrap_or_default() },
                enabled,
            )),
            (None, Some(url)) => Ok((Transport::Http { url, headers: self.headers.unwrap_or_default() }, enabled)),
            _ => Err(Error::InvalidJson(format!(
                "server `{label}` needs either a `command` or a `url`, not both or neither"
            ))),
        }
    }
}
