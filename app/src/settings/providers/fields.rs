//! The provider form's values as typed, and their translation to and from what the engine takes.
//! Choosing another kind offers that kind's public address unless one was typed. The key field holds
//! only what the person typed, or the masked key of the entry being edited (which the engine reads
//! as "keep the stored one"). Plain functions, tested without a browser; the engine checks the rest.

use warden_types::provider::{ProviderEntry, ProviderInput, ProviderKind};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderFields {
    pub kind: ProviderKind,
    pub name: String,
    pub base_url: String,
    pub api_key: String,
    pub default_model: String,
    pub text_tool_calls: bool,
}

impl Default for ProviderFields {
    fn default() -> Self {
        let kind = ProviderKind::ADDABLE[0];
        Self {
            kind,
            name: String::new(),
            base_url: kind.default_base_url().to_string(),
            api_key: String::new(),
            default_model: String::new(),
            text_tool_calls: false,
        }
    }
}

impl ProviderFields {
    /// The fields for editing a stored entry: its key only as shown (masked).
    pub fn from_entry(entry: &ProviderEntry) -> Self {
        Self {
            kind: entry.kind,
            name: entry.name.clone(),
            base_url: entry.base_url.clone(),
            api_key: entry.key.clone().unwrap_or_default(),
            default_model: entry.default_model.clone(),
            text_tool_calls: entry.text_tool_calls,
        }
    }

    /// Switches the kind; an address left blank or at the old kind's default becomes the new kind's.
    pub fn set_kind(&mut self, kind: ProviderKind) {
        let address = self.base_url.trim();
        if address.is_empty() || address == self.kind.default_base_url() {
            self.base_url = kind.default_base_url().to_string();
        }
        if kind != ProviderKind::OpenaiCompatible {
            self.text_tool_calls = false;
        }
        self.kind = kind;
    }

    /// What to test or save; `id` is the stored entry being edited.
    pub fn to_input(&self, id: Option<String>) -> Result<ProviderInput, String> {
        if self.name.trim().is_empty() {
            return Err("Enter a name for the provider.".into());
        }
        if self.base_url.trim().is_empty() {
            return Err("Enter the provider's address.".into());
        }
        if self.default_model.trim().is_empty() {
            return Err("Enter the model to use by default.".into());
        }
        let key = self.api_key.trim();
        Ok(ProviderInput {
            id: id.map(Into::into),
            name: self.name.trim().to_string(),
            kind: self.kind,
            base_url: self.base_url.trim().to_string(),
            api_key: (!key.is_empty()).then(|| key.to_string()),
            default_model: self.default_model.trim().to_string(),
            text_tool_calls: self.text_tool_calls && self.kind == ProviderKind::OpenaiCompatible,
        })
    }
}

/// The value a kind has in the form's select.
pub fn kind_value(kind: ProviderKind) -> &'static str {
    kind.as_str()
}

/// The kind a select value names, if it is one a person can add.
pub fn kind_from_value(value: &str) -> Option<ProviderKind> {
    ProviderKind::ADDABLE.into_iter().find(|k| k.as_str() == value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> ProviderEntry {
        ProviderEntry {
            id: "p1".into(),
            name: "Work".into(),
            kind: ProviderKind::Anthropic,
            base_url: "https://api.anthropic.com".into(),
            key: Some("••••abcd".into()),
            default_model: "claude".into(),
            models: vec![],
            text_tool_calls: false,
            read_only: false,
            source: None,
        }
    }

    #[test]
    fn a_new_form_offers_the_first_kinds_address_and_switching_kind_follows_unless_one_was_typed() {
        let mut fields = ProviderFields::default();
        assert_eq!(fields.base_url, ProviderKind::OpenaiCompatible.default_base_url());
        fields.set_kind(ProviderKind::Gemini);
        assert_eq!(fields.base_url, ProviderKind::Gemini.default_base_url());
        fields.base_url = "http://127.0.0.1:8080".into();
        fields.set_kind(ProviderKind::Anthropic);
        assert_eq!(fields.base_url, "http://127.0.0.1:8080", "a typed address stays");
    }

    #[test]
    fn text_tool_calls_belong_to_openai_compatible_servers_alone() {
        let mut fields = ProviderFields { text_tool_calls: true, ..ProviderFields::default() };
        fields.name = "Local".into();
        fields.default_model = "m".into();
        assert!(fields.to_input(None).unwrap().text_tool_calls);
        fields.set_kind(ProviderKind::Anthropic);
        assert!(!fields.to_input(None).unwrap().text_tool_calls);
    }

    #[test]
    fn editing_sends_the_masked_key_back_and_a_blank_key_as_none() {
        let fields = ProviderFields::from_entry(&entry());
        let input = fields.to_input(Some("p1".into())).unwrap();
        assert_eq!((input.id.as_ref().map(|i| i.as_str()), input.api_key.as_deref()), (Some("p1"), Some("••••abcd")));
        let blank = ProviderFields { api_key: "  ".into(), ..fields };
        assert_eq!(blank.to_input(None).unwrap().api_key, None);
    }

    #[test]
    fn missing_fields_are_named() {
        let fields = ProviderFields::default();
        assert_eq!(fields.to_input(None).unwrap_err(), "Enter a name for the provider.");
        let named = ProviderFields { name: "x".into(), ..ProviderFields::default() };
        assert_eq!(named.to_input(None).unwrap_err(), "Enter the model to use by default.");
        assert_eq!(kind_from_value("local"), None);
        assert_eq!(kind_from_value(kind_value(ProviderKind::Gemini)), Some(ProviderKind::Gemini));
    }
}
