//! Model providers as the Settings page and the composer see them: configured entries (from the
//! environment, read-only, or stored from Settings), the choice of model for a thread, and what a
//! connection test found. Keys never come back from the server: an entry says only whether it has one
//! and shows it masked.

use crate::id::ProviderId;
use serde::{Deserialize, Serialize};

/// The API a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, strum::IntoStaticStr, strum::EnumString)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
#[cfg_attr(feature = "sqlx", derive(sqlx::Type), sqlx(rename_all = "snake_case"))]
pub enum ProviderKind {
    /// OpenAI's Chat Completions and the servers that copy it (vLLM, llama.cpp, Ollama, LM Studio...).
    OpenaiCompatible,
    /// Anthropic's Messages API.
    Anthropic,
    /// Google's Gemini API.
    Gemini,
    /// The small model built into Warden, run on this machine.
    Local,
}

impl ProviderKind {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// What a person reads.
    pub fn label(self) -> &'static str {
        match self {
            Self::OpenaiCompatible => "OpenAI-compatible",
            Self::Anthropic => "Anthropic",
            Self::Gemini => "Google Gemini",
            Self::Local => "Built-in model",
        }
    }

    /// The kinds a person can add in Settings.
    pub const ADDABLE: [ProviderKind; 3] = [Self::OpenaiCompatible, Self::Anthropic, Self::Gemini];

    /// The API's public address, offered when adding one (an OpenAI-compatible server has none).
    pub const fn default_base_url(self) -> &'static str {
        match self {
            Self::OpenaiCompatible => "https://api.openai.com/v1",
            Self::Anthropic => "https://api.anthropic.com",
            Self::Gemini => "https://generativelanguage.googleapis.com",
            Self::Local => "",
        }
    }
}

/// One configured provider.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProviderEntry {
    /// `env-openai`, `env-anthropic`, `env-gemini` and `local` for the built-in ones; stored ones get an id.
    pub id: ProviderId,
    pub name: String,
    pub kind: ProviderKind,
    pub base_url: String,
    /// The key masked (`••••` plus at most its last 4 characters), or `None` when there is none.
    pub key: Option<String>,
    pub default_model: String,
    /// Models the API listed at the last connection test (empty when never tested or not offered).
    pub models: Vec<String>,
    /// The model gets tools described in its prompt and writes calls as JSON in its text, for servers
    /// without native tool calling.
    pub text_tool_calls: bool,
    /// From environment variables (or built in): shown, not editable here.
    pub read_only: bool,
    /// Where a read-only entry comes from, e.g. "OPENAI_BASE_URL, OPENAI_API_KEY".
    pub source: Option<String>,
}

impl ProviderEntry {
    /// Every model a thread can pick from this provider: the default first, then the listed ones.
    pub fn choosable_models(&self) -> Vec<String> {
        let mut models = vec![self.default_model.clone()];
        models.extend(self.models.iter().filter(|m| **m != self.default_model).cloned());
        models
    }
}

/// A provider to add or change from Settings.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderInput {
    /// `None` adds one; an id changes that stored entry.
    #[serde(default)]
    pub id: Option<ProviderId>,
    pub name: String,
    pub kind: ProviderKind,
    pub base_url: String,
    /// A new key; `None`, empty or the masked form shown means "keep the stored one" (allowed only while
    /// the kind and address are unchanged, so a stored key is never sent to another server).
    #[serde(default)]
    pub api_key: Option<String>,
    pub default_model: String,
    #[serde(default)]
    pub text_tool_calls: bool,
}

// The key must never reach a log line through `{:?}`.
impl std::fmt::Debug for ProviderInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderInput")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("default_model", &self.default_model)
            .field("text_tool_calls", &self.text_tool_calls)
            .finish()
    }
}

/// The model a thread uses (and a run recorded).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ModelChoice {
    pub provider_id: ProviderId,
    pub model: String,
}

/// What the providers' list looks like, with the one a thread without a choice uses.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProviderList {
    pub entries: Vec<ProviderEntry>,
    pub default: Option<ModelChoice>,
}

/// What a connection test found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProviderProbe {
    pub ok: bool,
    /// A sentence for the page: what was reached, or what went wrong.
    pub message: String,
    pub models: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_inputs_debug_output_never_shows_its_key() {
        let input = ProviderInput {
            id: None,
            name: "Work".into(),
            kind: ProviderKind::Anthropic,
            base_url: "https://api.anthropic.com".into(),
            api_key: Some("sk-ant-very-secret".into()),
            default_model: "m".into(),
            text_tool_calls: false,
        };
        let shown = format!("{input:?}");
        assert!(!shown.contains("very-secret") && shown.contains("[redacted]"), "{shown}");
    }
}
