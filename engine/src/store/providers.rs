//! Provider rows (those added in Settings), the model a thread uses, and the model a run started with.
//! Keys are read only by the engine's provider registry; nothing here hands them to a view.

use sqlx::Row;
use warden_types::id::{ProviderId, ThreadId};

use warden_db::timestamp::now;

use super::{json, Store};
use crate::error::{Error, Result};
use sqlx::FromRow;
use warden_types::provider::{ModelChoice, ProviderKind};

/// A stored provider with its key, as the registry needs it (read straight from its row).
#[derive(Clone, PartialEq, sqlx::FromRow)]
pub struct StoredProvider {
    pub id: ProviderId,
    pub name: String,
    pub kind: ProviderKind,
    pub base_url: String,
    pub api_key: Option<String>,
    pub default_model: String,
    #[sqlx(json)]
    pub models: Vec<String>,
    pub text_tool_calls: bool,
}

// The key must never reach a log line through `{:?}`.
impl std::fmt::Debug for StoredProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredProvider")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("default_model", &self.default_model)
            .finish_non_exhaustive()
    }
}

const COLUMNS: &str = "id, name, kind, base_url, api_key, default_model, models, text_tool_calls";

pub(super) fn choice(provider_id: Option<ProviderId>, model: Option<String>) -> Option<ModelChoice> {
    Some(ModelChoice { provider_id: provider_id?, model: model? })
}

impl Store {
    /// Stored providers, oldest first.
    pub async fn providers(&self) -> Result<Vec<StoredProvider>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!("SELECT {COLUMNS} FROM providers ORDER BY created_at, id")))
            .fetch_all(&self.pool)
            .await?;
        Ok(rows.iter().map(StoredProvider::from_row).collect::<Result<_, _>>()?)
    }

    /// Adds (empty `id`) or replaces a provider; returns its id. A name another provider has is refused.
    pub async fn save_provider(&self, p: &StoredProvider) -> Result<ProviderId> {
        let ts = now();
        let id = if p.id.as_str().is_empty() { ProviderId::new() } else { p.id.clone() };
        let result = sqlx::query(
            "INSERT INTO providers (id, name, kind, base_url, api_key, default_model, models, text_tool_calls, \
               created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) \
             ON CONFLICT (id) DO UPDATE SET name = excluded.name, kind = excluded.kind, \
               base_url = excluded.base_url, api_key = excluded.api_key, default_model = excluded.default_model, \
               models = excluded.models, text_tool_calls = excluded.text_tool_calls, updated_at = excluded.updated_at",
        )
        .bind(&id)
        .bind(&p.name)
        .bind(p.kind)
        .bind(&p.base_url)
        .bind(&p.api_key)
        .bind(&p.default_model)
        .bind(json(&p.models)?)
        .bind(p.text_tool_calls as i64)
        .bind(&ts)
        .bind(&ts)
        .execute(&self.writer)
        .await;
        match result {
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                Err(Error::Invalid(format!("a provider named \"{}\" already exists", p.name)))
            }
            other => other.map(|_| id).map_err(Into::into),
        }
    }

    /// Remembers the models a connection test listed.
    pub async fn set_provider_models(&self, id: &ProviderId, models: &[String]) -> Result<()> {
        sqlx::query("UPDATE providers SET models = ? WHERE id = ?")
            .bind(json(&models)?)
            .bind(id)
            .execute(&self.writer)
            .await?;
        Ok(())
    }

    /// Removes a provider; threads that chose it fall back to the default.
    pub async fn delete_provider(&self, id: &ProviderId) -> Result<()> {
        let mut tx = self.write_tx().await?;
        let deleted = sqlx::query("DELETE FROM providers WHERE id = ?").bind(id).execute(&mut *tx).await?;
        super::found(deleted, "provider", id)?;
        sqlx::query("UPDATE threads SET provider_id = NULL, model = NULL WHERE provider_id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The model a thread chose (`None`: the default).
    pub async fn thread_model(&self, thread_id: &ThreadId) -> Result<Option<ModelChoice>> {
        let row = sqlx::query("SELECT provider_id, model FROM threads WHERE id = ?")
            .bind(thread_id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| Error::not_found("thread", thread_id))?;
        Ok(choice(row.try_get("provider_id")?, row.try_get("model")?))
    }

    pub async fn set_thread_model(&self, thread_id: &ThreadId, model: Option<&ModelChoice>) -> Result<()> {
        let updated = sqlx::query("UPDATE threads SET provider_id = ?, model = ? WHERE id = ?")
            .bind(model.map(|m| &m.provider_id))
            .bind(model.map(|m| &m.model))
            .bind(thread_id)
            .execute(&self.writer)
            .await?;
        super::found(updated, "thread", thread_id)
    }
}
