//! The configured providers as entries: the environment's (with their keys, never shown) and how any
//! entry is shown (key masked).

use warden_types::provider::{ProviderEntry, ProviderKind};
use warden_types::secret::mask;

use crate::config::{Config, ModelConfig};
use crate::store::StoredProvider;

/// A provider the environment configures: fixed ids, read-only.
#[derive(Debug, Clone)]
pub(super) struct EnvProvider {
    pub id: &'static str,
    pub kind: ProviderKind,
    pub config: ModelConfig,
    /// The variables it comes from, for the page.
    pub source: &'static str,
}

/// The environment's providers in the order a default is looked for.
pub(super) fn from_config(config: &Config) -> Vec<EnvProvider> {
    let candidates = [
        ("env-openai", ProviderKind::OpenaiCompatible, &config.model, "OPENAI_BASE_URL, OPENAI_API_KEY, WARDEN_MODEL"),
        ("env-anthropic", ProviderKind::Anthropic, &config.anthropic, "ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL"),
        ("env-gemini", ProviderKind::Gemini, &config.gemini, "GEMINI_API_KEY, GEMINI_BASE_URL"),
    ];
    candidates
        .into_iter()
        .filter_map(|(id, kind, config, source)| Some(EnvProvider { id, kind, config: config.clone()?, source }))
        .collect()
}

impl EnvProvider {
    pub fn entry(&self) -> ProviderEntry {
        ProviderEntry {
            id: self.id.into(),
            name: format!("{} (environment)", self.kind.label()),
            kind: self.kind,
            base_url: self.config.base_url.clone(),
            key: self.config.api_key.as_deref().map(mask),
            default_model: self.config.model.clone(),
            models: Vec::new(),
            text_tool_calls: false,
            read_only: true,
            source: Some(self.source.to_string()),
        }
    }
}

pub(super) fn stored_entry(p: &StoredProvider) -> ProviderEntry {
    ProviderEntry {
        id: p.id.clone(),
        name: p.name.clone(),
        kind: p.kind,
        base_url: p.base_url.clone(),
        key: p.api_key.as_deref().map(mask),
        default_model: p.default_model.clone(),
        models: p.models.clone(),
        text_tool_calls: p.text_tool_calls,
        read_only: false,
        source: None,
    }
}

/// An entry for a provider that is built in or handed to the engine (the built-in model, tests).
pub(super) fn built_in_entry(id: &str, name: &str, kind: ProviderKind, model: &str, source: &str) -> ProviderEntry {
    ProviderEntry {
        id: id.into(),
        name: name.to_string(),
        kind,
        base_url: String::new(),
        key: None,
        default_model: model.to_string(),
        models: Vec::new(),
        text_tool_calls: false,
        read_only: true,
        source: Some(source.to_string()),
    }
}
