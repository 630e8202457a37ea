//! The channels' table: a person's own channels, the shared ones, their last test and whether a push
//! subscription is gone. Whose a channel is is checked here too: [`Channels::get_for`] answers `NotFound` for
//! another's, so a caller that asks for the asker's own never learns that another exists.

use sqlx::SqlitePool;
use warden_db::timestamp;
use warden_types::channel::{ChannelConfig, ChannelInput, TestResult};
use warden_types::id::{ChannelId, PersonId};

use crate::channel::{Channel, ChannelOwner};
use crate::error::{Error, Result};
use crate::validate;

/// A webhook secret Warden makes: `whsec_` and 32 random bytes in hex.
const WEBHOOK_SECRET_PREFIX: &str = "whsec_";

/// The channels' store, on the database every part of Warden shares. Cheap to clone.
#[derive(Clone)]
pub struct Channels {
    pool: SqlitePool,
    writer: SqlitePool,
}

#[derive(sqlx::FromRow)]
struct Row {
    id: ChannelId,
    person_id: Option<PersonId>,
    name: String,
    config: String,
    created_at: String,
    tested_at: Option<String>,
    test_ok: Option<bool>,
    test_detail: Option<String>,
    gone_at: Option<String>,
}

impl TryFrom<Row> for Channel {
    type Error = Error;

    fn try_from(row: Row) -> Result<Channel> {
        let config: ChannelConfig =
            serde_json::from_str(&row.config).map_err(|e| Error::Stored(format!("channel {}: {e}", row.id)))?;
        let last_test = row.tested_at.map(|at| TestResult {
            at,
            ok: row.test_ok.unwrap_or(false),
            detail: row.test_detail.unwrap_or_default(),
        });
        Ok(Channel {
            id: row.id,
            owner: row.person_id.map_or(ChannelOwner::Shared, ChannelOwner::Person),
            name: row.name,
            config,
            created_at: row.created_at,
            last_test,
            gone_at: row.gone_at,
        })
    }
}

/// The columns a `Row` reads (a macro, so that queries stay literal strings).
macro_rules! select {
    ($rest:literal) => {
        concat!(
            "SELECT id, person_id, name, config, created_at, tested_at, test_ok, test_detail, gone_at ",
            "FROM notify_channels ",
            $rest
        )
    };
}

fn rows(rows: Vec<Row>) -> Result<Vec<Channel>> {
    rows.into_iter().map(Channel::try_from).collect()
}

/// A new webhook signing secret.
fn new_webhook_secret() -> Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(Error::Random)?;
    Ok(format!("{WEBHOOK_SECRET_PREFIX}{}", hex::encode(bytes)))
}

impl Channels {
    pub(crate) fn new(pool: SqlitePool, writer: SqlitePool) -> Self {
        Self { pool, writer }
    }

    /// `person`'s own channels, oldest first.
    pub async fn list_for(&self, person: &PersonId) -> Result<Vec<Channel>> {
        let found: Vec<Row> = sqlx::query_as(select!("WHERE person_id = ? ORDER BY created_at, id"))
            .bind(person)
            .fetch_all(&self.pool)
            .await?;
        rows(found)
    }

    /// The shared channels (a team's), oldest first.
    pub async fn list_shared(&self) -> Result<Vec<Channel>> {
        let found: Vec<Row> =
            sqlx::query_as(select!("WHERE person_id IS NULL ORDER BY created_at, id")).fetch_all(&self.pool).await?;
        rows(found)
    }

    pub async fn get(&self, id: &ChannelId) -> Result<Channel> {
        let found: Option<Row> = sqlx::query_as(select!("WHERE id = ?")).bind(id).fetch_optional(&self.pool).await?;
        found.ok_or_else(|| Error::NotFound(id.to_string()))?.try_into()
    }

    /// The channel `id` if it is `owner`'s; `NotFound` for anyone else's.
    pub async fn get_for(&self, owner: &ChannelOwner, id: &ChannelId) -> Result<Channel> {
        let channel = self.get(id).await?;
        if channel.owner != *owner {
            return Err(Error::NotFound(id.to_string()));
        }
        Ok(channel)
    }

    /// Adds a channel for `owner`, made by `by`. A webhook without a secret gets one, answered this once.
    pub async fn create(
        &self,
        owner: &ChannelOwner,
        by: &PersonId,
        input: &ChannelInput,
    ) -> Result<(Channel, Option<String>)> {
        let name = validate::name(&input.name)?;
        let mut config = validate::config(input, None)?;
        let mut made = None;
        if let ChannelConfig::Webhook { secret, .. } = &mut config {
            if secret.is_none() {
                let new = new_webhook_secret()?;
                made = Some(new.clone());
                *secret = Some(new);
            }
        }
        let id = ChannelId::new();
        sqlx::query(
            "INSERT INTO notify_channels (id, person_id, name, kind, config, created_by, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&id)
        .bind(owner.person())
        .bind(&name)
        .bind(config.kind())
        .bind(stored_config(&config)?)
        .bind(by)
        .bind(timestamp::now())
        .execute(&self.writer)
        .await?;
        Ok((self.get(&id).await?, made))
    }

    /// Changes `owner`'s channel `id`. Its kind stays; secrets left out are kept while the address is the same
    /// (a webhook whose address changed without a new secret gets a new one, answered this once).
    pub async fn update(
        &self,
        owner: &ChannelOwner,
        id: &ChannelId,
        input: &ChannelInput,
    ) -> Result<(Channel, Option<String>)> {
        let stored = self.get_for(owner, id).await?;
        if stored.config.kind() != input.config.kind() {
            return Err(Error::Invalid(format!(
                "a channel keeps its kind ({}): add a new channel instead",
                stored.config.kind().label()
            )));
        }
        let name = validate::name(&input.name)?;
        let mut config = validate::config(input, Some(&stored.config))?;
        let mut made = None;
        if let ChannelConfig::Webhook { secret, .. } = &mut config {
            if secret.is_none() {
                let new = new_webhook_secret()?;
                made = Some(new.clone());
                *secret = Some(new);
            }
        }
        // A changed address has not been tested, and a push subscription given anew is not gone.
        sqlx::query(
            "UPDATE notify_channels SET name = ?1, config = ?2,
                 tested_at = CASE WHEN config = ?2 THEN tested_at END,
                 test_ok = CASE WHEN config = ?2 THEN test_ok END,
                 test_detail = CASE WHEN config = ?2 THEN test_detail END,
                 gone_at = CASE WHEN config = ?2 THEN gone_at END
             WHERE id = ?3",
        )
        .bind(&name)
        .bind(stored_config(&config)?)
        .bind(id)
        .execute(&self.writer)
        .await?;
        Ok((self.get(id).await?, made))
    }

    /// Removes `owner`'s channel `id`.
    pub async fn delete(&self, owner: &ChannelOwner, id: &ChannelId) -> Result<()> {
        self.get_for(owner, id).await?;
        sqlx::query("DELETE FROM notify_channels WHERE id = ?").bind(id).execute(&self.writer).await?;
        Ok(())
    }

    /// Removes `person`'s push channel for `endpoint` (a browser that stopped), if there is one.
    pub async fn delete_push(&self, person: &PersonId, endpoint: &str) -> Result<bool> {
        let mine = self.list_for(person).await?;
        let Some(channel) = mine.into_iter().find(|c| {
            matches!(&c.config, ChannelConfig::WebPush { endpoint: e, .. } if e.trim_end_matches('/') == endpoint.trim().trim_end_matches('/'))
        }) else {
            return Ok(false);
        };
        sqlx::query("DELETE FROM notify_channels WHERE id = ?").bind(&channel.id).execute(&self.writer).await?;
        Ok(true)
    }

    /// Records the last test of `id`.
    pub async fn set_test_result(&self, id: &ChannelId, ok: bool, detail: &str) -> Result<Channel> {
        let done = sqlx::query("UPDATE notify_channels SET tested_at = ?, test_ok = ?, test_detail = ? WHERE id = ?")
            .bind(timestamp::now())
            .bind(ok)
            .bind(detail)
            .bind(id)
            .execute(&self.writer)
            .await?;
        if done.rows_affected() == 0 {
            return Err(Error::NotFound(id.to_string()));
        }
        self.get(id).await
    }

    /// Marks `id`'s push subscription gone (the push service answered 404 or 410).
    pub async fn mark_gone(&self, id: &ChannelId) -> Result<()> {
        sqlx::query("UPDATE notify_channels SET gone_at = coalesce(gone_at, ?) WHERE id = ?")
            .bind(timestamp::now())
            .bind(id)
            .execute(&self.writer)
            .await?;
        Ok(())
    }
}

fn stored_config(config: &ChannelConfig) -> Result<String> {
    serde_json::to_string(config).map_err(|e| Error::Stored(e.to_string()))
}
