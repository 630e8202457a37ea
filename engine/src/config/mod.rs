//! Configuration from the environment: the model, where data lives, the workspace for built-in
//! tools, and the agent's limits. Every value is parsed without panics: a bad one is a start-up
//! error that names the variable.

mod models;

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

pub use models::{EnvModels, DEFAULT_ANTHROPIC_MODEL, DEFAULT_GEMINI_MODEL, DEFAULT_OPENAI_MODEL};

/// What `Debug` shows instead of a secret.
use warden_db::private_files::DATABASE_SIDE_FILES;
use warden_types::secret::MASK;

#[derive(Clone)]
pub struct ModelConfig {
    pub base_url: String,
    pub api_key: Option<String>,
    pub model: String,
}

// The key must never reach a log line or an error body through `{:?}`.
impl fmt::Debug for ModelConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModelConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| MASK))
            .field("model", &self.model)
            .finish()
    }
}

#[derive(Debug, Clone)]
pub struct Config {
    /// The OpenAI-compatible server from `OPENAI_BASE_URL` (`None`: not configured by the environment).
    pub model: Option<ModelConfig>,
    /// Anthropic from `ANTHROPIC_API_KEY` (+ `ANTHROPIC_BASE_URL`).
    pub anthropic: Option<ModelConfig>,
    /// Gemini from `GEMINI_API_KEY` (+ `GEMINI_BASE_URL`).
    pub gemini: Option<ModelConfig>,
    /// The provider `WARDEN_MODEL` names: threads without a choice of their own use it when it is set up.
    pub preferred_provider: Option<warden_types::provider::ProviderKind>,
    /// The built-in model's GGUF file, used when no `model` is configured and the file exists
    /// (`WARDEN_LOCAL_MODEL`; by default `<data dir>/models/SmolLM2-135M-Instruct.Q4_1.gguf`).
    pub local_model: Option<PathBuf>,
    pub database_url: String,
    pub data_dir: PathBuf,
    pub workspace: PathBuf,
    pub max_steps: u32,
    /// `None`: approvals wait for ever.
    pub approval_timeout: Option<Duration>,
    /// Tool output longer than this is cut for the model (the full output is kept).
    pub tool_output_limit: usize,
    /// Bytes of a tool result above which the model sees a summary made by the run's model (plus a
    /// handle to page through the whole with `read_result`) instead of the result; 0: never summarise.
    pub summarize_results_above: usize,
    /// Number of tools above which the model is offered `search_tools` and the tools it found instead
    /// of every tool; 0: always every tool.
    pub tool_search_above: usize,
    pub shell_timeout: Duration,
    /// Every shell command may use the network (`WARDEN_SHELL_NETWORK=1`); otherwise only a call the
    /// person approved "with network".
    pub shell_network: bool,
    pub model_idle_timeout: Duration,
    /// How often a model request that failed before anything streamed (overload, rate limit, a dropped
    /// connection) is tried again, with growing pauses.
    pub model_retries: u32,
    /// Every tool call (and preview) is ended after this long, whatever the tool does.
    pub tool_timeout: Duration,
    /// Bytes of one streamed model turn (text, tool names and arguments); a longer answer is cut.
    pub max_turn_bytes: usize,
    /// Tool calls in one model turn; a turn asking for more is cut.
    pub max_tool_calls_per_turn: usize,
    pub mcp_config_file: Option<PathBuf>,
}

impl Config {
    /// Defaults for a data directory: the SQLite file and the workspace live inside it.
    pub fn with_data_dir(data_dir: impl Into<PathBuf>) -> Self {
        let data_dir = data_dir.into();
        Self {
            model: None,
            anthropic: None,
            gemini: None,
            preferred_provider: None,
            local_model: Some(data_dir.join("models").join(DEFAULT_LOCAL_MODEL_FILE)),
            database_url: format!("sqlite://{}?mode=rwc", data_dir.join("warden.db").display()),
            workspace: data_dir.join("workspace"),
            data_dir,
            max_steps: 10,
            approval_timeout: None,
            tool_output_limit: 16 * 1024,
            summarize_results_above: 24 * 1024,
            tool_search_above: 40,
            shell_timeout: Duration::from_secs(30),
            shell_network: false,
            model_idle_timeout: Duration::from_secs(120),
            model_retries: 3,
            tool_timeout: Duration::from_secs(120),
            max_turn_bytes: 1024 * 1024,
            max_tool_calls_per_turn: 32,
            mcp_config_file: None,
        }
    }

    /// Reads `OPENAI_BASE_URL`, `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`, `GEMINI_API_KEY`,
    /// `GEMINI_BASE_URL`, `WARDEN_MODEL`, `WARDEN_DATA_DIR`,
    /// `WARDEN_DATABASE_URL`, `WARDEN_WORKSPACE`, `WARDEN_MAX_STEPS`,
    /// `WARDEN_APPROVAL_TIMEOUT_SECS`, `WARDEN_TOOL_TIMEOUT_SECS`, `WARDEN_SHELL_TIMEOUT_SECS`,
    /// `WARDEN_MODEL_IDLE_TIMEOUT_SECS`, `WARDEN_MODEL_RETRIES`, `WARDEN_MAX_TURN_BYTES`, `WARDEN_MAX_TOOL_CALLS_PER_TURN`,
    /// `WARDEN_MCP_CONFIG`, `WARDEN_SHELL_NETWORK`, `WARDEN_LOCAL_MODEL`, `WARDEN_SUMMARIZE_RESULTS_ABOVE`,
    /// `WARDEN_TOOL_SEARCH_ABOVE`.
    pub fn from_env() -> Result<Self, String> {
        Self::from_vars(|k| std::env::var(k).ok())
    }

    /// Like `from_env`, reading variables through `get` (tests pass a map).
    pub fn from_vars(get: impl Fn(&str) -> Option<String>) -> Result<Self, String> {
        let var = |k: &str| get(k).filter(|v| !v.trim().is_empty());
        let mut c = Self::with_data_dir(var("WARDEN_DATA_DIR").unwrap_or_else(|| "./data".into()));
        if let Some(url) = var("WARDEN_DATABASE_URL") {
            c.database_url = url;
        }
        if let Some(ws) = var("WARDEN_WORKSPACE") {
            c.workspace = ws.into();
        }
        if let Some(path) = var("WARDEN_LOCAL_MODEL") {
            c.local_model = Some(path.into());
        }
        let models = models::from_vars(&var);
        c.model = models.openai;
        c.anthropic = models.anthropic;
        c.gemini = models.gemini;
        c.preferred_provider = models.preferred;
        if let Some(n) = var("WARDEN_MAX_STEPS") {
            c.max_steps = parse_count("WARDEN_MAX_STEPS", &n, 1..=10_000)?;
        }
        if let Some(s) = var("WARDEN_APPROVAL_TIMEOUT_SECS") {
            // 0 keeps the documented meaning "wait for ever".
            c.approval_timeout = parse_secs("WARDEN_APPROVAL_TIMEOUT_SECS", &s, true)?;
        }
        let required = |name: &str, s: &str| {
            parse_secs(name, s, false)?.ok_or_else(|| format!("{name} must be more than 0 seconds, got `{s}`"))
        };
        if let Some(s) = var("WARDEN_TOOL_TIMEOUT_SECS") {
            c.tool_timeout = required("WARDEN_TOOL_TIMEOUT_SECS", &s)?;
        }
        if let Some(s) = var("WARDEN_SHELL_TIMEOUT_SECS") {
            c.shell_timeout = required("WARDEN_SHELL_TIMEOUT_SECS", &s)?;
        }
        if let Some(s) = var("WARDEN_MODEL_IDLE_TIMEOUT_SECS") {
            c.model_idle_timeout = required("WARDEN_MODEL_IDLE_TIMEOUT_SECS", &s)?;
        }
        if let Some(n) = var("WARDEN_MODEL_RETRIES") {
            c.model_retries = parse_count("WARDEN_MODEL_RETRIES", &n, 0..=10)?;
        }
        if let Some(n) = var("WARDEN_MAX_TURN_BYTES") {
            c.max_turn_bytes = parse_count("WARDEN_MAX_TURN_BYTES", &n, 1024..=256 * 1024 * 1024)?;
        }
        if let Some(n) = var("WARDEN_MAX_TOOL_CALLS_PER_TURN") {
            c.max_tool_calls_per_turn = parse_count("WARDEN_MAX_TOOL_CALLS_PER_TURN", &n, 1..=1024)?;
        }
        if let Some(n) = var("WARDEN_SUMMARIZE_RESULTS_ABOVE") {
            // 0 is off; anything else at least 1 KiB, so a summary is never longer than what it replaces.
            c.summarize_results_above = parse_count("WARDEN_SUMMARIZE_RESULTS_ABOVE", &n, 0..=1024 * 1024 * 1024)?;
            if (1..1024).contains(&c.summarize_results_above) {
                return Err(format!(
                    "WARDEN_SUMMARIZE_RESULTS_ABOVE must be 0 (off) or at least 1024 bytes, got `{n}`"
                ));
            }
        }
        if let Some(n) = var("WARDEN_TOOL_SEARCH_ABOVE") {
            c.tool_search_above = parse_count("WARDEN_TOOL_SEARCH_ABOVE", &n, 0..=100_000)?;
        }
        if c.shell_timeout >= c.tool_timeout {
            // The driver's per-call limit would cut the shell before its own timeout kills it.
            return Err(format!(
                "WARDEN_SHELL_TIMEOUT_SECS ({} s) must be less than WARDEN_TOOL_TIMEOUT_SECS ({} s)",
                c.shell_timeout.as_secs_f64(),
                c.tool_timeout.as_secs_f64()
            ));
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

    /// The built-in model's file when it is there and may be needed: nothing else is configured by the
    /// environment, or `WARDEN_MODEL=local`. The server loads it (`warden-local`) and hands it to the
    /// engine ([`crate::Engine::open_with_local`]).
    pub fn local_model_to_load(&self) -> Option<&Path> {
        let others = self.model.is_some() || self.anthropic.is_some() || self.gemini.is_some();
        if others && self.preferred_provider != Some(warden_types::provider::ProviderKind::Local) {
            return None;
        }
        self.local_model.as_deref().filter(|p| p.exists())
    }

    /// What no sandboxed command may read: the data dir (the workspace inside it stays open to it), the
    /// SQLite database wherever `WARDEN_DATABASE_URL` put it (the file and the `-wal`, `-shm` and
    /// `-journal` files beside it, which hold the same secrets: see [`Config::database_files`]), and the
    /// MCP config file.
    pub fn private_paths(&self) -> Vec<PathBuf> {
        let mut paths = vec![self.data_dir.clone()];
        paths.extend(self.database_files());
        paths.extend(self.mcp_config_file.clone());
        paths
    }

    /// The SQLite database file `database_url` names (`None` for an in-memory database), as sqlx reads
    /// the URL (`sqlite:`, `sqlite://`, a query string).
    pub fn database_file(&self) -> Option<PathBuf> {
        let options = sqlx::sqlite::SqliteConnectOptions::from_str(&self.database_url).ok()?;
        let file = options.get_filename();
        let name = file.to_string_lossy();
        (!name.is_empty() && name != ":memory:" && !name.starts_with("file:")).then(|| file.to_path_buf())
    }

    /// The database file and every file SQLite keeps beside it with the same contents: the write-ahead
    /// log (`-wal`, which holds every recent write, keys included), the shared-memory index (`-shm`) and
    /// the rollback journal (`-journal`). Each is named whether or not it exists yet.
    pub fn database_files(&self) -> Vec<PathBuf> {
        let Some(file) = self.database_file() else { return Vec::new() };
        let mut files = vec![file.clone()];
        for suffix in DATABASE_SIDE_FILES {
            let mut side = file.clone().into_os_string();
            side.push(suffix);
            files.push(PathBuf::from(side));
        }
        files
    }
}

/// The built-in model's file, as `scripts/fetch-model.sh` puts it in `<data dir>/models/`.
pub const DEFAULT_LOCAL_MODEL_FILE: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";

/// Longest duration any `*_SECS` variable may set (a year): far beyond any real need, and far
/// from the overflow of `Instant + Duration`, which would panic.
const MAX_SECS: f64 = 365.0 * 24.0 * 3600.0;

/// Parses a number of seconds (fractions allowed). `inf`, `nan`, negative and absurdly large values
/// are errors; `0` is `None` when `zero_means_none`, else an error.
pub fn parse_secs(name: &str, value: &str, zero_means_none: bool) -> Result<Option<Duration>, String> {
    let value = value.trim();
    let bad = |why: &str| format!("{name} must be {why}, got `{value}`");
    let secs: f64 = value.parse().map_err(|_| bad("a number of seconds"))?;
    if !secs.is_finite() {
        return Err(bad("a finite number of seconds"));
    }
    if secs < 0.0 {
        return Err(bad("zero or more seconds"));
    }
    if secs > MAX_SECS {
        return Err(bad("at most a year (31536000 seconds)"));
    }
    if secs == 0.0 {
        return if zero_means_none { Ok(None) } else { Err(bad("more than 0 seconds")) };
    }
    Duration::try_from_secs_f64(secs).map(Some).map_err(|e| bad(&format!("a valid duration ({e})")))
}

/// Parses a whole number within `range`.
fn parse_count<T>(name: &str, value: &str, range: std::ops::RangeInclusive<T>) -> Result<T, String>
where
    T: std::str::FromStr + PartialOrd + fmt::Display + Copy,
{
    let value = value.trim();
    let n: T = value.parse().map_err(|_| format!("{name} must be a whole number, got `{value}`"))?;
    if !range.contains(&n) {
        return Err(format!("{name} must be between {} and {}, got `{value}`", range.start(), range.end()));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn parse(vars: &[(&str, &str)]) -> Result<Config, String> {
        let map: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Config::from_vars(|k| map.get(k).cloned())
    }

    #[test]
    fn infinite_nan_negative_and_huge_seconds_are_start_up_errors_not_panics() {
        for name in [
            "WARDEN_APPROVAL_TIMEOUT_SECS",
            "WARDEN_TOOL_TIMEOUT_SECS",
            "WARDEN_SHELL_TIMEOUT_SECS",
            "WARDEN_MODEL_IDLE_TIMEOUT_SECS",
        ] {
            for value in ["inf", "infinity", "-inf", "nan", "NaN", "-1", "-0.5", "1e300", "99999999999999999999", "abc"]
            {
                let err = parse(&[(name, value)]).expect_err(&format!("{name}={value} must be refused"));
                assert!(err.starts_with(name) && err.contains(value), "{name}={value}: {err}");
            }
        }
    }

    #[test]
    fn valid_seconds_are_read_and_zero_approval_timeout_means_wait_for_ever() {
        let c = parse(&[
            ("WARDEN_APPROVAL_TIMEOUT_SECS", "1.5"),
            ("WARDEN_TOOL_TIMEOUT_SECS", "90"),
            ("WARDEN_SHELL_TIMEOUT_SECS", "0.25"),
        ])
        .unwrap();
        assert_eq!(c.approval_timeout, Some(Duration::from_millis(1500)));
        assert_eq!(c.tool_timeout, Duration::from_secs(90));
        assert_eq!(c.shell_timeout, Duration::from_millis(250));
        assert_eq!(parse(&[("WARDEN_APPROVAL_TIMEOUT_SECS", "0")]).unwrap().approval_timeout, None);
        assert!(parse(&[("WARDEN_TOOL_TIMEOUT_SECS", "0")]).is_err(), "a tool timeout of 0 would end every call");
        let err = parse(&[("WARDEN_TOOL_TIMEOUT_SECS", "20")]).unwrap_err();
        assert!(err.contains("WARDEN_SHELL_TIMEOUT_SECS (30 s) must be less than"), "{err}");
    }

    #[test]
    fn limits_are_bounded_whole_numbers() {
        let c = parse(&[("WARDEN_MAX_TURN_BYTES", "65536"), ("WARDEN_MAX_TOOL_CALLS_PER_TURN", "4")]).unwrap();
        assert_eq!((c.max_turn_bytes, c.max_tool_calls_per_turn), (65536, 4));
        for (name, value) in [
            ("WARDEN_MAX_TURN_BYTES", "-1"),
            ("WARDEN_MAX_TURN_BYTES", "1e9"),
            ("WARDEN_MAX_TOOL_CALLS_PER_TURN", "0"),
            ("WARDEN_MAX_STEPS", "18446744073709551616"),
            ("WARDEN_MAX_STEPS", "0"),
        ] {
            assert!(parse(&[(name, value)]).is_err(), "{name}={value}");
        }
    }

    #[test]
    fn summarising_and_tool_search_thresholds_are_read_and_zero_turns_them_off() {
        let c = parse(&[]).unwrap();
        assert_eq!((c.summarize_results_above, c.tool_search_above), (24 * 1024, 40));
        let c = parse(&[("WARDEN_SUMMARIZE_RESULTS_ABOVE", "65536"), ("WARDEN_TOOL_SEARCH_ABOVE", "12")]).unwrap();
        assert_eq!((c.summarize_results_above, c.tool_search_above), (65536, 12));
        let c = parse(&[("WARDEN_SUMMARIZE_RESULTS_ABOVE", "0"), ("WARDEN_TOOL_SEARCH_ABOVE", "0")]).unwrap();
        assert_eq!((c.summarize_results_above, c.tool_search_above), (0, 0));
        for (name, value) in [
            ("WARDEN_SUMMARIZE_RESULTS_ABOVE", "-1"),
            ("WARDEN_SUMMARIZE_RESULTS_ABOVE", "100"),
            ("WARDEN_SUMMARIZE_RESULTS_ABOVE", "24k"),
            ("WARDEN_TOOL_SEARCH_ABOVE", "many"),
        ] {
            let err = parse(&[(name, value)]).expect_err(&format!("{name}={value} must be refused"));
            assert!(err.starts_with(name), "{err}");
        }
    }

    #[test]
    fn debug_output_never_shows_the_api_key() {
        let c =
            parse(&[("OPENAI_BASE_URL", "http://127.0.0.1:1/v1"), ("OPENAI_API_KEY", "sk-very-secret-key")]).unwrap();
        let model = c.model.clone().unwrap();
        for shown in [format!("{c:?}"), format!("{model:?}")] {
            assert!(shown.contains(r#"api_key: Some("••••")"#), "{shown}");
        }
        for shown in [format!("{c:?}"), format!("{c:#?}"), format!("{model:?}"), format!("{model:#?}")] {
            assert!(!shown.contains("sk-very-secret-key"), "{shown}");
        }
    }
}
