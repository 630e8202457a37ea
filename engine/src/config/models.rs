//! Which model providers the environment configures: `OPENAI_BASE_URL`/`OPENAI_API_KEY`,
//! `ANTHROPIC_API_KEY` (+ `ANTHROPIC_BASE_URL`), `GEMINI_API_KEY` (+ `GEMINI_BASE_URL`), and `WARDEN_MODEL`
//! as `provider/model` (`openai/…`, `anthropic/…`, `gemini/…`, or `local`). A name without one of these
//! prefixes is a model of the OpenAI-compatible server, as before providers had prefixes, so a server's
//! own slashed names (`meta-llama/Llama-3.1-8B`) keep working; `openai/openai/gpt-4o` reaches a router's
//! `openai/gpt-4o`.

use warden_types::provider::ProviderKind;

use super::ModelConfig;

/// Models used when the environment names a provider but not its model.
pub const DEFAULT_OPENAI_MODEL: &str = "gpt-4o-mini";
pub const DEFAULT_ANTHROPIC_MODEL: &str = "claude-sonnet-4-5";
pub const DEFAULT_GEMINI_MODEL: &str = "gemini-2.5-flash";

/// The providers the environment sets up, and the one `WARDEN_MODEL` prefers.
#[derive(Debug, Clone, Default)]
pub struct EnvModels {
    pub openai: Option<ModelConfig>,
    pub anthropic: Option<ModelConfig>,
    pub gemini: Option<ModelConfig>,
    /// The provider `WARDEN_MODEL` names (the OpenAI-compatible one for an unprefixed name).
    pub preferred: Option<ProviderKind>,
}

/// `WARDEN_MODEL` split into its provider and model.
fn split_model(value: &str) -> (ProviderKind, Option<String>) {
    let value = value.trim();
    if value == "local" {
        return (ProviderKind::Local, None);
    }
    let prefixed = [
        ("openai/", ProviderKind::OpenaiCompatible),
        ("anthropic/", ProviderKind::Anthropic),
        ("gemini/", ProviderKind::Gemini),
    ];
    for (prefix, kind) in prefixed {
        if let Some(model) = value.strip_prefix(prefix) {
            return (kind, Some(model.trim().to_string()).filter(|m| !m.is_empty()));
        }
    }
    (ProviderKind::OpenaiCompatible, Some(value.to_string()))
}

/// Reads the provider variables through `var` (which already drops blank values).
pub(super) fn from_vars(var: &dyn Fn(&str) -> Option<String>) -> EnvModels {
    let (preferred, named_model) = match var("WARDEN_MODEL") {
        Some(v) => {
            let (kind, model) = split_model(&v);
            (Some(kind), model)
        }
        None => (None, None),
    };
    let model_for = |kind: ProviderKind, default: &str| match (preferred, &named_model) {
        (Some(p), Some(m)) if p == kind => m.clone(),
        _ => default.to_string(),
    };
    // A key alone means OpenAI itself.
    let openai_url = var("OPENAI_BASE_URL")
        .or_else(|| var("OPENAI_API_KEY").map(|_| ProviderKind::OpenaiCompatible.default_base_url().to_string()));
    let openai = openai_url.map(|base_url| ModelConfig {
        base_url,
        api_key: var("OPENAI_API_KEY"),
        model: model_for(ProviderKind::OpenaiCompatible, DEFAULT_OPENAI_MODEL),
    });
    let anthropic = var("ANTHROPIC_API_KEY").map(|key| ModelConfig {
        base_url: var("ANTHROPIC_BASE_URL").unwrap_or_else(|| ProviderKind::Anthropic.default_base_url().into()),
        api_key: Some(key),
        model: model_for(ProviderKind::Anthropic, DEFAULT_ANTHROPIC_MODEL),
    });
    let gemini = var("GEMINI_API_KEY").map(|key| ModelConfig {
        base_url: var("GEMINI_BASE_URL").unwrap_or_else(|| ProviderKind::Gemini.default_base_url().into()),
        api_key: Some(key),
        model: model_for(ProviderKind::Gemini, DEFAULT_GEMINI_MODEL),
    });
    EnvModels { openai, anthropic, gemini, preferred }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn read(vars: &[(&str, &str)]) -> EnvModels {
        let map: HashMap<&str, &str> = vars.iter().copied().collect();
        from_vars(&|k| map.get(k).map(|v| v.to_string()))
    }

    #[test]
    fn an_unprefixed_name_is_a_model_of_the_openai_compatible_server_slashes_and_all() {
        let m = read(&[("OPENAI_BASE_URL", "http://h/v1"), ("WARDEN_MODEL", "meta-llama/Llama-3.1-8B")]);
        assert_eq!(m.openai.unwrap().model, "meta-llama/Llama-3.1-8B");
        assert_eq!(m.preferred, Some(ProviderKind::OpenaiCompatible));
        let m = read(&[("OPENAI_BASE_URL", "http://h/v1"), ("WARDEN_MODEL", "openai/openai/gpt-4o")]);
        assert_eq!(m.openai.unwrap().model, "openai/gpt-4o");
    }

    #[test]
    fn prefixes_pick_the_provider_and_its_model_and_others_keep_their_defaults() {
        let m = read(&[
            ("OPENAI_BASE_URL", "http://h/v1"),
            ("ANTHROPIC_API_KEY", "a-key"),
            ("GEMINI_API_KEY", "g-key"),
            ("WARDEN_MODEL", "anthropic/claude-haiku-4-5"),
        ]);
        assert_eq!(m.preferred, Some(ProviderKind::Anthropic));
        assert_eq!(m.anthropic.as_ref().unwrap().model, "claude-haiku-4-5");
        assert_eq!(m.anthropic.unwrap().base_url, "https://api.anthropic.com");
        assert_eq!(m.openai.unwrap().model, DEFAULT_OPENAI_MODEL);
        assert_eq!(m.gemini.unwrap().model, DEFAULT_GEMINI_MODEL);
        let m =
            read(&[("GEMINI_API_KEY", "g"), ("GEMINI_BASE_URL", "http://127.0.0.1:9"), ("WARDEN_MODEL", "gemini/")]);
        let gemini = m.gemini.unwrap();
        assert_eq!((gemini.base_url.as_str(), gemini.model.as_str()), ("http://127.0.0.1:9", DEFAULT_GEMINI_MODEL));
    }

    #[test]
    fn local_is_preferred_by_name_and_a_lone_openai_key_means_openai_itself() {
        assert_eq!(read(&[("WARDEN_MODEL", "local")]).preferred, Some(ProviderKind::Local));
        let m = read(&[("OPENAI_API_KEY", "sk-x")]);
        assert_eq!(m.openai.unwrap().base_url, "https://api.openai.com/v1");
        assert!(read(&[]).openai.is_none());
    }
}
