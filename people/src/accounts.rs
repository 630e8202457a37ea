//! People's accounts: the founding owner, listing, roles, disabling, passwords and sign-in by password.

use sqlx::{Sqlite, Transaction};
use warden_db::timestamp;
use warden_types::id::PersonId;
use warden_types::person::{Person, Role};

use crate::{names, password, Error, People, Result};

/// The login and name the founding owner starts with (they may change the name).
const OWNER_LOGIN: &str = "owner";
const OWNER_NAME: &str = "Owner";

/// The columns a `Person` reads (a macro, so that queries stay literal strings).
macro_rules! person_columns {
    () => {
        concat!(
            "id, login, name, role, password_hash IS NOT NULL AS has_password, ",
            "(SELECT COUNT(*) FROM passkeys WHERE passkeys.person_id = people.id) AS passkeys, ",
            "EXISTS (SELECT 1 FROM oidc_identities o WHERE o.person_id = people.id) AS has_oidc, ",
            "created_at, disabled_at"
        )
    };
}

impl People {
    /// The owner who installed this Warden (whom the printed sign-in link signs in), made on first use.
    pub async fn founding_owner(&self) -> Result<Person> {
        sqlx::query(
            "INSERT INTO people (id, login, name, role, created_at)
             SELECT ?, ?, ?, 'owner', ? WHERE NOT EXISTS (SELECT 1 FROM people WHERE invited_by IS NULL)",
        )
        .bind(PersonId::new())
        .bind(OWNER_LOGIN)
        .bind(OWNER_NAME)
        .bind(timestamp::now())
        .execute(&self.writer)
        .await?;
        let row: Person = sqlx::query_as(concat!(
            "SELECT ",
            person_columns!(),
            " FROM people WHERE invited_by IS NULL ORDER BY created_at, id LIMIT 1"
        ))
        .fetch_one(&self.writer)
        .await?;
        Ok(row)
    }

    pub async fn person(&self, id: &PersonId) -> Result<Person> {
        let row: Option<Person> = sqlx::query_as(concat!("SELECT ", person_columns!(), " FROM people WHERE id = ?"))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.ok_or_else(|| Error::NotFound(id.to_string()))
    }

    /// Everyone, in the order they joined.
    pub async fn list(&self) -> Result<Vec<Person>> {
        let rows: Vec<Person> =
            sqlx::query_as(concat!("SELECT ", person_columns!(), " FROM people ORDER BY created_at, id"))
                .fetch_all(&self.pool)
                .await?;
        Ok(rows)
    }

    /// The person who signs in as `login` with `password`, if both are right and the account is enabled.
    /// Every refusal is `None` and takes as long as a success: an unknown login is verified against a decoy.
    pub async fn sign_in(&self, login: &str, password: &str) -> Result<Option<Person>> {
        let row: Option<(PersonId, Option<String>, Option<String>)> =
            sqlx::query_as("SELECT id, password_hash, disabled_at FROM people WHERE login = ?")
                .bind(login.trim())
                .fetch_optional(&self.pool)
                .await?;
        let (id, stored, disabled_at) = row.unwrap_or_else(|| (PersonId::from(String::new()), None, None));
        let has_hash = stored.is_some();
        let phc = stored.unwrap_or_else(|| self.decoy_hash.to_string());
        let right = password::verify(password.to_string(), phc).await?;
        if !right || !has_hash || disabled_at.is_some() {
            return Ok(None);
        }
        self.person(&id).await.map(Some)
    }

    /// Sets `id`'s password. `current` must be right when they already have one (a person changing their own);
    /// the founding owner's first password needs none (they are signed in by the link).
    pub async fn set_password(&self, id: &PersonId, current: Option<&str>, new: &str) -> Result<()> {
        let (login, stored): (String, Option<String>) =
            sqlx::query_as("SELECT login, password_hash FROM people WHERE id = ?")
                .bind(id)
                .fetch_optional(&self.pool)
                .await?
                .ok_or_else(|| Error::NotFound(id.to_string()))?;
        password::check(new, &login)?;
        if let Some(stored) = stored {
            let current = current.unwrap_or_default().to_string();
            if !password::verify(current, stored).await? {
                return Err(Error::WrongPassword);
            }
        }
        let hashed = password::hash(new.to_string()).await?;
        sqlx::query("UPDATE people SET password_hash = ? WHERE id = ?")
            .bind(hashed)
            .bind(id)
            .execute(&self.writer)
            .await?;
        Ok(())
    }

    /// Renames a person (how the pages name them; their login stays).
    pub async fn rename(&self, id: &PersonId, name: &str) -> Result<Person> {
        let name = names::name(name)?;
        let done =
            sqlx::query("UPDATE people SET name = ? WHERE id = ?").bind(name).bind(id).execute(&self.writer).await?;
        if done.rows_affected() == 0 {
            return Err(Error::NotFound(id.to_string()));
        }
        self.person(id).await
    }

    /// Gives `id` the role `role`, by the owner `by`. The last enabled owner keeps theirs.
    pub async fn set_role(&self, by: &PersonId, id: &PersonId, role: Role) -> Result<Person> {
        let mut tx = self.writer.begin().await?;
        require_owner(&mut tx, by).await?;
        let current = role_of(&mut tx, id).await?;
        if current == Role::Owner && role != Role::Owner {
            require_another_owner(&mut tx, id).await?;
        }
        sqlx::query("UPDATE people SET role = ? WHERE id = ?").bind(role).bind(id).execute(&mut *tx).await?;
        tx.commit().await?;
        self.person(id).await
    }

    /// Disables `id`'s account, by the owner `by`, and signs out every browser of theirs at once (their open
    /// event streams end too). The last enabled owner cannot be disabled.
    pub async fn disable_and_sign_out(
        &self,
        by: &PersonId,
        id: &PersonId,
        sessions: &warden_sessions::Sessions,
    ) -> Result<Person> {
        let person = self.disable(by, id).await?;
        sessions.revoke_person(id).await?;
        Ok(person)
    }

    /// Disables `id`'s account, by the owner `by`: they cannot sign in, and the access gate lets none of
    /// their sessions in. The last enabled owner cannot be disabled.
    pub async fn disable(&self, by: &PersonId, id: &PersonId) -> Result<Person> {
        let mut tx = self.writer.begin().await?;
        require_owner(&mut tx, by).await?;
        if role_of(&mut tx, id).await? == Role::Owner {
            require_another_owner(&mut tx, id).await?;
        }
        sqlx::query("UPDATE people SET disabled_at = coalesce(disabled_at, ?) WHERE id = ?")
            .bind(timestamp::now())
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        self.person(id).await
    }

    /// Enables `id`'s account again, by the owner `by`.
    pub async fn enable(&self, by: &PersonId, id: &PersonId) -> Result<Person> {
        let mut tx = self.writer.begin().await?;
        require_owner(&mut tx, by).await?;
        role_of(&mut tx, id).await?;
        sqlx::query("UPDATE people SET disabled_at = NULL WHERE id = ?").bind(id).execute(&mut *tx).await?;
        tx.commit().await?;
        self.person(id).await
    }
}

/// `NotAnOwner` unless `by` is an enabled owner.
pub(crate) async fn require_owner(tx: &mut Transaction<'_, Sqlite>, by: &PersonId) -> Result<()> {
    let found = sqlx::query("SELECT 1 FROM people WHERE id = ? AND role = 'owner' AND disabled_at IS NULL")
        .bind(by)
        .fetch_optional(&mut **tx)
        .await?;
    found.map(|_| ()).ok_or(Error::NotAnOwner)
}

async fn role_of(tx: &mut Transaction<'_, Sqlite>, id: &PersonId) -> Result<Role> {
    let role: Option<(Role,)> =
        sqlx::query_as("SELECT role FROM people WHERE id = ?").bind(id).fetch_optional(&mut **tx).await?;
    role.map(|(r,)| r).ok_or_else(|| Error::NotFound(id.to_string()))
}

/// `LastOwner` unless an enabled owner other than `id` remains.
async fn require_another_owner(tx: &mut Transaction<'_, Sqlite>, id: &PersonId) -> Result<()> {
    let other = sqlx::query("SELECT 1 FROM people WHERE role = 'owner' AND disabled_at IS NULL AND id <> ? LIMIT 1")
        .bind(id)
        .fetch_optional(&mut **tx)
        .await?;
    other.map(|_| ()).ok_or(Error::LastOwner)
}
