//! A provider as entered in Settings, checked and turned into the row to store. A key left blank or
//! sent back masked means "keep the stored one", and only while the kind and address are unchanged: a
//! stored key is never sent to a server it was not entered for.

use warden_types::id::ProviderId;
use warden_types::provider::{ProviderInput, ProviderKind};
use warden_types::secret::MASK;

use crate::error::{Error, Result};
use crate::store::StoredProvider;

const MAX_NAME: usize = 80;
const MAX_MODEL: usize = 200;
const MAX_URL: usize = 2048;
const MAX_KEY: usize = 4096;

/// The row to store for `input`, given the stored row it replaces (if any).
pub(super) fn to_stored(input: &ProviderInput, existing: Option<&StoredProvider>) -> Result<StoredProvider> {
    let invalid = |why: String| Err(Error::Invalid(why));
    let name = input.name.trim();
    if name.is_empty() || name.chars().count() > MAX_NAME {
        return invalid(format!("a provider needs a name of 1 to {MAX_NAME} characters"));
    }
    if input.kind == ProviderKind::Local {
        return invalid("the built-in model is not added in Settings: it is always there when its file is".into());
    }
    let base_url = input.base_url.trim().trim_end_matches('/');
    let parsed = warden_llm::http_url(base_url);
    if base_url.len() > MAX_URL || parsed.is_none() {
        return invalid("the address must be an http:// or https:// URL".into());
    }
    if parsed.is_some_and(|u| !u.username().is_empty() || u.password().is_some()) {
        return invalid("put the key in the key field, not in the address".into());
    }
    let model = input.default_model.trim();
    if model.is_empty() || model.chars().count() > MAX_MODEL {
        return invalid(format!("a provider needs a default model name of 1 to {MAX_MODEL} characters"));
    }
    let api_key = match input.api_key.as_deref().map(str::trim).filter(|k| !k.is_empty()) {
        Some(key) if key.contains(MASK) => kept_key(existing, input.kind, base_url)?,
        Some(key) if key.len() > MAX_KEY || key.chars().any(char::is_control) => {
            return invalid("the key is not a valid API key (too long or with control characters)".into())
        }
        Some(key) => Some(key.to_string()),
        None => kept_key(existing, input.kind, base_url)?,
    };
    Ok(StoredProvider {
        id: existing.map_or_else(|| ProviderId::from(String::new()), |e| e.id.clone()),
        name: name.to_string(),
        kind: input.kind,
        base_url: base_url.to_string(),
        api_key,
        default_model: model.to_string(),
        // The listed models belong to the server they came from.
        models: existing
            .filter(|e| e.kind == input.kind && e.base_url == base_url)
            .map(|e| e.models.clone())
            .unwrap_or_default(),
        text_tool_calls: input.text_tool_calls && input.kind == ProviderKind::OpenaiCompatible,
    })
}

/// The stored key, if the entry still points where it was entered for.
fn kept_key(existing: Option<&StoredProvider>, kind: ProviderKind, base_url: &str) -> Result<Option<String>> {
    match existing {
        Some(e) if e.api_key.is_some() && (e.kind != kind || e.base_url != base_url) => Err(Error::Invalid(
            "enter the key again: the address or kind changed, and a stored key is only sent to the server it \
             was entered for"
                .into(),
        )),
        Some(e) => Ok(e.api_key.clone()),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(base_url: &str, key: Option<&str>) -> ProviderInput {
        ProviderInput {
            id: None,
            name: "Work".into(),
            kind: ProviderKind::OpenaiCompatible,
            base_url: base_url.into(),
            api_key: key.map(Into::into),
            default_model: "m".into(),
            text_tool_calls: false,
        }
    }

    fn stored() -> StoredProvider {
        to_stored(&input("https://a.example/v1", Some("sk-secret-1234567")), None).unwrap()
    }

    #[test]
    fn a_masked_or_blank_key_keeps_the_stored_one_for_the_same_address() {
        let old = stored();
        for key in [None, Some(""), Some("••••4567")] {
            let new = to_stored(&input("https://a.example/v1/", key), Some(&old)).unwrap();
            assert_eq!(new.api_key.as_deref(), Some("sk-secret-1234567"));
        }
    }

    #[test]
    fn a_stored_key_is_never_kept_for_another_address_or_kind() {
        let old = stored();
        let err = to_stored(&input("https://evil.example/v1", Some("••••4567")), Some(&old)).unwrap_err();
        assert!(err.to_string().contains("enter the key again"), "{err}");
        assert!(to_stored(&input("https://evil.example/v1", None), Some(&old)).is_err());
        let mut other_kind = input("https://a.example/v1", None);
        other_kind.kind = ProviderKind::Anthropic;
        assert!(to_stored(&other_kind, Some(&old)).is_err());
        let new = to_stored(&input("https://evil.example/v1", Some("sk-new")), Some(&old)).unwrap();
        assert_eq!(new.api_key.as_deref(), Some("sk-new"));
    }

    #[test]
    fn bad_addresses_names_models_and_keys_are_refused() {
        for url in ["ftp://x", "not a url", "https://user:pw@x.example/v1", ""] {
            assert!(to_stored(&input(url, None), None).is_err(), "{url}");
        }
        let mut nameless = input("https://a.example", None);
        nameless.name = " ".into();
        assert!(to_stored(&nameless, None).is_err());
        let mut modelless = input("https://a.example", None);
        modelless.default_model = String::new();
        assert!(to_stored(&modelless, None).is_err());
        assert!(to_stored(&input("https://a.example", Some("sk\nX-Evil: 1")), None).is_err());
        let mut local = input("https://a.example", None);
        local.kind = ProviderKind::Local;
        assert!(to_stored(&local, None).is_err());
    }
}
