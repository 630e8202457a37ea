//! People's passkeys (WebAuthn credentials): kept with their signature counter, listed and removed by their
//! person, and found again by the user handle and credential id a discoverable sign-in returns. The
//! ceremonies themselves (challenges, the relying party of the request's host) are the server's; this keeps
//! what outlives them. A passkey of a disabled account signs nobody in.

use sqlx::{Sqlite, Transaction};
use warden_db::timestamp;
use warden_types::id::PersonId;
use warden_types::person::{PasskeyInfo, Person};
use webauthn_rs::prelude::{AuthenticationResult, CredentialID, Passkey, Uuid};

use crate::{names, Error, People, Result};

/// A passkey just registered, and what its person calls it.
pub struct NewPasskey {
    pub name: String,
    pub passkey: Passkey,
}

/// The WebAuthn user handle of `person`: their id (a UUID) as 16 bytes.
pub fn user_handle(person: &PersonId) -> Result<Uuid> {
    Uuid::parse_str(person.as_str()).map_err(|_| Error::NotFound(person.to_string()))
}

/// A credential id as stored and shown: its bytes in hex.
fn stored_id(id: &[u8]) -> String {
    hex::encode(id)
}

impl People {
    /// `person`'s passkeys, oldest first.
    pub async fn passkeys_of(&self, person: &PersonId) -> Result<Vec<PasskeyInfo>> {
        let rows: Vec<PasskeyInfo> = sqlx::query_as(
            "SELECT id, name, created_at, last_used_at FROM passkeys WHERE person_id = ? ORDER BY created_at, id",
        )
        .bind(person)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows)
    }

    /// The credential ids `person` has, so an authenticator that holds one of them is not registered twice.
    pub async fn passkey_ids_of(&self, person: &PersonId) -> Result<Vec<CredentialID>> {
        Ok(self.stored_passkeys(person).await?.iter().map(|p| p.cred_id().clone()).collect())
    }

    async fn stored_passkeys(&self, person: &PersonId) -> Result<Vec<Passkey>> {
        let rows: Vec<(String,)> = sqlx::query_as("SELECT credential FROM passkeys WHERE person_id = ?")
            .bind(person)
            .fetch_all(&self.pool)
            .await?;
        rows.into_iter().map(|(json,)| parse(&json)).collect()
    }

    /// Keeps `new` as a passkey of `person` (an enabled account).
    pub async fn add_passkey(&self, person: &PersonId, new: NewPasskey) -> Result<PasskeyInfo> {
        let mut tx = self.writer.begin().await?;
        let enabled = sqlx::query("SELECT 1 FROM people WHERE id = ? AND disabled_at IS NULL")
            .bind(person)
            .fetch_optional(&mut *tx)
            .await?;
        if enabled.is_none() {
            return Err(Error::NotFound(person.to_string()));
        }
        let id = insert_passkey(&mut tx, person, &new).await?;
        tx.commit().await?;
        self.passkeys_of(person).await?.into_iter().find(|p| p.id == id).ok_or(Error::PasskeyNotFound(id))
    }

    /// Removes `person`'s passkey `id`. The last way in of someone with no password (and not the founding
    /// owner, whom the printed link signs in) is kept: they would be locked out.
    pub async fn remove_passkey(&self, person: &PersonId, id: &str) -> Result<()> {
        let mut tx = self.writer.begin().await?;
        let ways: Option<(bool, bool, i64)> = sqlx::query_as(
            "SELECT password_hash IS NOT NULL, invited_by IS NULL,
                    (SELECT count(*) FROM passkeys WHERE person_id = people.id)
             FROM people WHERE id = ?",
        )
        .bind(person)
        .fetch_optional(&mut *tx)
        .await?;
        let Some((has_password, founding, passkeys)) = ways else { return Err(Error::NotFound(person.to_string())) };
        let done = sqlx::query("DELETE FROM passkeys WHERE id = ? AND person_id = ?")
            .bind(id)
            .bind(person)
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() == 0 {
            return Err(Error::PasskeyNotFound(id.to_string()));
        }
        if passkeys <= 1 && !has_password && !founding {
            return Err(Error::LastWayIn);
        }
        tx.commit().await?;
        Ok(())
    }

    /// The enabled person whose user handle is `handle` and who has the passkey `credential_id`, with it
    /// (for the server to verify the assertion against). `None` for anything else, whatever the reason.
    pub async fn passkey_for_sign_in(&self, handle: Uuid, credential_id: &[u8]) -> Result<Option<(Person, Passkey)>> {
        let person_id = PersonId::from(handle.hyphenated().to_string());
        let id = stored_id(credential_id);
        let row: Option<(String,)> = sqlx::query_as(
            "SELECT passkeys.credential FROM passkeys JOIN people ON people.id = passkeys.person_id
             WHERE passkeys.id = ? AND passkeys.person_id = ? AND people.disabled_at IS NULL",
        )
        .bind(&id)
        .bind(&person_id)
        .fetch_optional(&self.pool)
        .await?;
        let Some((json,)) = row else { return Ok(None) };
        let passkey = parse(&json)?;
        match self.person(&person_id).await {
            Ok(person) if person.disabled_at.is_none() => Ok(Some((person, passkey))),
            Ok(_) | Err(Error::NotFound(_)) => Ok(None),
            Err(other) => Err(other),
        }
    }

    /// Records a sign-in with `passkey` (its new counter and backup state, as webauthn-rs verified them).
    pub async fn record_passkey_use(&self, mut passkey: Passkey, result: &AuthenticationResult) -> Result<()> {
        passkey.update_credential(result);
        let json = serde_json::to_string(&passkey).map_err(|e| Error::Stored(e.to_string()))?;
        sqlx::query("UPDATE passkeys SET credential = ?, last_used_at = ? WHERE id = ?")
            .bind(json)
            .bind(timestamp::now())
            .bind(stored_id(passkey.cred_id()))
            .execute(&self.writer)
            .await?;
        Ok(())
    }
}

/// Inserts `new` for `person`; a credential id another row has already is `PasskeyTaken`. Its stored id.
pub(crate) async fn insert_passkey(
    tx: &mut Transaction<'_, Sqlite>,
    person: &PersonId,
    new: &NewPasskey,
) -> Result<String> {
    let name = names::name(&new.name)?;
    let id = stored_id(new.passkey.cred_id());
    let json = serde_json::to_string(&new.passkey).map_err(|e| Error::Stored(e.to_string()))?;
    let inserted =
        sqlx::query("INSERT INTO passkeys (id, person_id, name, credential, created_at) VALUES (?, ?, ?, ?, ?)")
            .bind(&id)
            .bind(person)
            .bind(name)
            .bind(json)
            .bind(timestamp::now())
            .execute(&mut **tx)
            .await;
    match inserted {
        Err(sqlx::Error::Database(e)) if e.is_unique_violation() => Err(Error::PasskeyTaken),
        other => other.map(|_| id).map_err(Error::from),
    }
}

fn parse(json: &str) -> Result<Passkey> {
    serde_json::from_str(json).map_err(|e| Error::Stored(e.to_string()))
}
