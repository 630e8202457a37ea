//! Configuration from the environment: the model, where data lives, the workspace for built-in
//! tools, and the agent's limits.

use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct ModelConfig {
    pub base_url: String,
    pub api_key: Option<String>,
    pub model: String,
}

#[derive(Debug, Clone)]
pub struct Config {
    /// `None`: no model configured; the app starts and says what to set.
    pub model: Option<ModelConfig>,
    pub database_url: String,
    pub data_dir: PathBuf,
    pub workspace: PathBuf,
    pub max_steps: u32,
    /// `None`: approvals wait for ever.
    pub approval_timeout: Option<Duration>,
    /// Tool output longer than this is cut for the model (the full output is kept).
    pub tool_output_limit: usize,
    pub shell_timeout: Duration,
    /// Every shell command may use the network (`WARDEN_SHELL_NETWORK=1`); otherwise only a call the
    /// person approved "with network".
    pub shell_network: bool,
    pub model_idle_timeout: Duration,
    pub mcp_config_file: Option<PathBuf>,
}

impl Config {
    /// Defaults for a data directory: the SQLite file and the workspace live inside it.
    pub fn with_data_dir(data_dir: impl Into<PathBuf>) -> Self {
        let data_dir = data_dir.into();
        Self {
            model: None,
            database_url: format!("sqlite://{}?mode=rwc", data_dir.join("warden.db").display()),
            workspace: data_dir.join("workspace"),
            data_dir,
            max_steps: 10,
            approval_timeout: None,
            tool_output_limit: 16 * 1024,
            shell_timeout: Duration::from_secs(30),
            shell_network: false,
            model_idle_timeout: Duration::from_secs(120),
            mcp_config_file: None,
        }
    }

    /// Reads `OPENAI_BASE_URL`, `OPENAI_API_KEY`, `WARDEN_MODEL`, `WARDEN_DATA_DIR`,
    /// `WARDEN_DATABASE_URL`, `WARDEN_WORKSPACE`, `WARDEN_MAX_STEPS`,
    /// `WARDEN_APPROVAL_TIMEOUT_SECS`, `WARDEN_MCP_CONFIG`, `WARDEN_SHELL_NETWORK`.
    pub fn from_env() -> Result<Self, String> {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        let mut c = Self::with_data_dir(var("WARDEN_DATA_DIR").unwrap_or_else(|| "./data".into()));
        if let Some(url) = var("WARDEN_DATABASE_URL") {
            c.database_url = url;
        }
        if let Some(ws) = var("WARDEN_WORKSPACE") {
            c.workspace = ws.into();
        }
        if let Some(base_url) = var("OPENAI_BASE_URL") {
            c.model = Some(ModelConfig {
                base_url,
                api_key: var("OPENAI_API_KEY"),
                model: var("WARDEN_MODEL").unwrap_or_else(|| "gpt-4o-mini".into()),
            });
        }
        if let Some(n) = var("WARDEN_MAX_STEPS") {
            c.max_steps = n.parse().map_err(|_| format!("WARDEN_MAX_STEPS must be a number, got `{n}`"))?;
        }
        if let Some(s) = var("WARDEN_APPROVAL_TIMEOUT_SECS") {
            let secs: f64 =
                s.parse().map_err(|_| format!("WARDEN_APPROVAL_TIMEOUT_SECS must be a number, got `{s}`"))?;
            if secs > 0.0 {
                c.approval_timeout = Some(Duration::from_secs_f64(secs));
            }
        }
        c.mcp_config_file = var("WARDEN_MCP_CONFIG").map(Into::into);
        if let Some(v) = var("WARDEN_SHELL_NETWORK") {
            c.shell_network = match v.trim() {
                "1" | "true" | "yes" | "on" => true,
                "0" | "false" | "no" | "off" => false,
                other => return Err(format!("WARDEN_SHELL_NETWORK must be 1 or 0, got `{other}`")),
            };
        }
        Ok(c)
    }

    /// What no sandboxed command may read: the data dir (the workspace inside it stays open to it), the
    /// SQLite file wherever `WARDEN_DATABASE_URL` put it, and the MCP config file.
    pub fn private_paths(&self) -> Vec<PathBuf> {
        let mut paths = vec![self.data_dir.clone()];
        let database = self.database_url.strip_prefix("sqlite://").or_else(|| self.database_url.strip_prefix("sqlite:"));
        if let Some(file) = database.map(|rest| rest.split('?').next().unwrap_or(rest)) {
            if !file.is_empty() && file != ":memory:" {
                paths.push(PathBuf::from(file));
            }
        }
        paths.extend(self.mcp_config_file.clone());
        paths
    }
}
