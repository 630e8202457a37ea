//! The registry of providers: lists them (keys masked), picks the default, resolves a thread's or
//! run's choice to a client (built once per provider and model, and dropped when the entry changes),
//! and adds, changes, removes and tests the ones kept in Settings.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use warden_types::id::ProviderId;

use warden_types::provider::{ModelChoice, ProviderEntry, ProviderInput, ProviderKind, ProviderList, ProviderProbe};

use super::build::{build, BuildSettings};
use super::entries::{built_in_entry, from_config, stored_entry, EnvProvider};
use super::input::to_stored;
use crate::config::Config;
use crate::error::{Error, Result};
use crate::store::{Store, StoredProvider};
use warden_llm::Provider;

/// The built-in model's entry id.
pub const LOCAL_ID: &str = "local";
/// The id of a provider handed to the engine directly (`Engine::open_with_provider`).
pub const FIXED_ID: &str = "given";

const MAX_MODEL_NAME: usize = 200;

pub struct Providers {
    store: Store,
    settings: BuildSettings,
    env: Vec<EnvProvider>,
    preferred: Option<ProviderKind>,
    local: Option<Arc<dyn Provider>>,
    fixed: Option<Arc<dyn Provider>>,
    /// The stored rows, read at start and kept in step with every change made through here.
    stored: RwLock<Vec<StoredProvider>>,
    clients: Mutex<HashMap<ModelChoice, Arc<dyn Provider>>>,
}

impl Providers {
    pub async fn load(
        store: Store,
        config: &Config,
        local: Option<Arc<dyn Provider>>,
        fixed: Option<Arc<dyn Provider>>,
    ) -> Result<Self> {
        let stored = store.providers().await?;
        let settings = BuildSettings::from_config(config);
        let env = from_config(config);
        // An environment entry that cannot be a client (an address that is not http(s)) stops the start
        // with its reason, as a bad variable should, instead of failing every run later.
        for e in &env {
            let c = &e.config;
            build(e.kind, &c.base_url, c.api_key.clone(), &c.model, false, settings)?;
        }
        Ok(Self {
            store,
            settings,
            env,
            preferred: config.preferred_provider,
            local,
            fixed,
            stored: RwLock::new(stored),
            clients: Mutex::new(HashMap::new()),
        })
    }

    fn stored(&self) -> Vec<StoredProvider> {
        self.stored.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    fn clients(&self) -> std::sync::MutexGuard<'_, HashMap<ModelChoice, Arc<dyn Provider>>> {
        self.clients.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Every provider, keys masked: the given one, the environment's, the stored ones, the built-in model.
    pub fn list(&self) -> ProviderList {
        let mut entries = Vec::new();
        if let Some(p) = &self.fixed {
            entries.push(built_in_entry(
                FIXED_ID,
                p.name(),
                ProviderKind::OpenaiCompatible,
                p.model(),
                "given at start",
            ));
        }
        entries.extend(self.env.iter().map(EnvProvider::entry));
        entries.extend(self.stored().iter().map(stored_entry));
        if let Some(p) = &self.local {
            let source = "the GGUF file in the data dir, or WARDEN_LOCAL_MODEL";
            entries.push(built_in_entry(LOCAL_ID, ProviderKind::Local.label(), ProviderKind::Local, p.model(), source));
        }
        ProviderList { default: self.default_choice(), entries }
    }

    /// What a thread without a choice uses: the given provider, else the one `WARDEN_MODEL` names, else
    /// the first of the environment's, else the first stored, else the built-in model.
    pub fn default_choice(&self) -> Option<ModelChoice> {
        let choice = |id: &str, model: &str| Some(ModelChoice { provider_id: id.into(), model: model.into() });
        if let Some(p) = &self.fixed {
            return choice(FIXED_ID, p.model());
        }
        let local = || self.local.as_ref().and_then(|p| choice(LOCAL_ID, p.model()));
        if self.preferred == Some(ProviderKind::Local) {
            if let Some(local) = local() {
                return Some(local);
            }
        }
        let env = self.env.iter().find(|e| Some(e.kind) == self.preferred).or_else(|| self.env.first());
        if let Some(e) = env {
            return choice(e.id, &e.config.model);
        }
        let stored = self.stored.read().unwrap_or_else(PoisonError::into_inner);
        if let Some(s) = stored.first() {
            return choice(s.id.as_str(), &s.default_model);
        }
        local()
    }

    /// Whether any model can answer.
    pub fn any(&self) -> bool {
        self.default_choice().is_some()
    }

    /// Checks that a thread may choose this: a provider that exists and a plausible model name.
    pub fn check_choice(&self, choice: &ModelChoice) -> Result<()> {
        let model = choice.model.trim();
        if model.is_empty() || model.chars().count() > MAX_MODEL_NAME || model.chars().any(char::is_control) {
            return Err(Error::Invalid(format!("a model name has 1 to {MAX_MODEL_NAME} characters")));
        }
        if !self.has_entry(&choice.provider_id) {
            return Err(Error::not_found("provider", &choice.provider_id));
        }
        Ok(())
    }

    /// Whether `id` names a configured provider (without building the list).
    fn has_entry(&self, id: &ProviderId) -> bool {
        match id.as_str() {
            FIXED_ID => self.fixed.is_some(),
            LOCAL_ID => self.local.is_some(),
            _ => {
                self.env.iter().any(|e| e.id == id)
                    || self.stored.read().unwrap_or_else(PoisonError::into_inner).iter().any(|s| s.id == id)
            }
        }
    }

    /// The client for a choice (`None`: the default).
    pub fn resolve(&self, choice: Option<&ModelChoice>) -> Result<Arc<dyn Provider>> {
        let choice = match choice {
            Some(c) => c.clone(),
            None => self.default_choice().ok_or(Error::NoModel)?,
        };
        match choice.provider_id.as_str() {
            FIXED_ID => return self.fixed.clone().ok_or(Error::NoModel),
            LOCAL_ID => return self.local.clone().ok_or(Error::NoModel),
            _ => {}
        }
        if let Some(client) = self.clients().get(&choice) {
            return Ok(client.clone());
        }
        let client = self.build_for(&choice)?;
        self.clients().insert(choice, client.clone());
        Ok(client)
    }

    fn build_for(&self, choice: &ModelChoice) -> Result<Arc<dyn Provider>> {
        let gone = || {
            Error::Invalid(format!(
                "the provider this thread uses ({}) is no longer configured: choose another model",
                choice.provider_id
            ))
        };
        if let Some(e) = self.env.iter().find(|e| e.id == choice.provider_id) {
            let c = &e.config;
            return Ok(build(e.kind, &c.base_url, c.api_key.clone(), &choice.model, false, self.settings)?);
        }
        let stored = self.stored().into_iter().find(|s| s.id == choice.provider_id).ok_or_else(gone)?;
        Ok(build(stored.kind, &stored.base_url, stored.api_key, &choice.model, stored.text_tool_calls, self.settings)?)
    }

    /// Adds or changes a provider from Settings.
    pub async fn save(&self, input: ProviderInput) -> Result<ProviderEntry> {
        let existing = match &input.id {
            Some(id) => {
                Some(self.stored().into_iter().find(|s| s.id == id).ok_or_else(|| Error::not_found("provider", id))?)
            }
            None => None,
        };
        let mut row = to_stored(&input, existing.as_ref())?;
        row.id = self.store.save_provider(&row).await?;
        self.replace_stored(&row.id, Some(row.clone()));
        Ok(stored_entry(&row))
    }

    pub async fn remove(&self, id: &ProviderId) -> Result<()> {
        self.store.delete_provider(id).await?;
        self.replace_stored(id, None);
        Ok(())
    }

    fn replace_stored(&self, id: &ProviderId, row: Option<StoredProvider>) {
        {
            let mut stored = self.stored.write().unwrap_or_else(PoisonError::into_inner);
            match (stored.iter().position(|s| s.id == id), row) {
                (Some(i), Some(row)) => stored[i] = row,
                (Some(i), None) => {
                    stored.remove(i);
                }
                (None, Some(row)) => stored.push(row),
                (None, None) => {}
            }
        }
        self.clients().retain(|choice, _| choice.provider_id != id);
    }

    /// Tries a provider as entered (a stored one's key kept under the usual rule) without saving it:
    /// lists its models, or, where the API has no list, asks for a one-word answer.
    pub async fn probe(&self, input: ProviderInput) -> Result<ProviderProbe> {
        let existing = input.id.as_ref().and_then(|id| self.stored().into_iter().find(|s| s.id == id));
        let row = to_stored(&input, existing.as_ref())?;
        let client = build(row.kind, &row.base_url, row.api_key, &row.default_model, false, self.settings)?;
        let probe = probe_client(client.as_ref()).await;
        if let (Some(existing), true) = (existing, probe.ok && !probe.models.is_empty()) {
            if existing.base_url == row.base_url && existing.kind == row.kind {
                self.store.set_provider_models(&existing.id, &probe.models).await?;
                let mut updated = existing;
                updated.models = probe.models.clone();
                let id = updated.id.clone();
                self.replace_stored(&id, Some(updated));
            }
        }
        Ok(probe)
    }

    /// Tests a configured entry as it is (environment, stored or built in); a stored one keeps the
    /// models it listed.
    pub async fn probe_entry(&self, id: &ProviderId) -> Result<ProviderProbe> {
        let entry =
            self.list().entries.into_iter().find(|e| e.id == id).ok_or_else(|| Error::not_found("provider", id))?;
        let client = self.resolve(Some(&ModelChoice { provider_id: id.into(), model: entry.default_model }))?;
        let probe = probe_client(client.as_ref()).await;
        let stored = self.stored().into_iter().find(|s| s.id == id);
        if let (Some(mut stored), true) = (stored, probe.ok && !probe.models.is_empty()) {
            self.store.set_provider_models(id, &probe.models).await?;
            stored.models = probe.models.clone();
            self.replace_stored(id, Some(stored));
        }
        Ok(probe)
    }
}

async fn probe_client(client: &dyn Provider) -> ProviderProbe {
    match client.list_models().await {
        Ok(models) if !models.is_empty() => {
            let offered = if models.len() == 1 { "1 model".to_string() } else { format!("{} models", models.len()) };
            ProviderProbe { ok: true, message: format!("Connected: {offered} offered."), models }
        }
        Ok(_) => {
            let ask = vec![crate::message::Message::text(warden_types::message::Role::User, "Reply with the word OK.")];
            match client.complete(ask).await {
                Ok(_) => ProviderProbe {
                    ok: true,
                    message: format!("Connected: {} answered.", client.model()),
                    models: vec![],
                },
                Err(e) => ProviderProbe { ok: false, message: e.to_string(), models: vec![] },
            }
        }
        Err(e) => ProviderProbe { ok: false, message: e.to_string(), models: vec![] },
    }
}
