//! People who sign in with the team's OpenID Connect provider. The provider's (issuer, subject) pair names
//! a person; on a first sign-in Warden makes the person with the role the provider's claim gives, or, with
//! no role it knows, keeps them waiting (no access, not a person yet) until an owner lets them in with a
//! role or turns them away. The protocol (discovery, code flow, ID token checks) is the server's.

use warden_db::timestamp;
use warden_types::id::PersonId;
use warden_types::person::{Person, Role, WaitingPerson};

use crate::accounts::require_owner;
use crate::{names, Error, People, Result};

/// Who the provider says signed in (its ID token, checked).
#[derive(Debug, Clone)]
pub struct ProviderIdentity {
    pub issuer: String,
    pub subject: String,
    /// `name`, else `preferred_username`, else `email`, else the subject.
    pub name: String,
    /// `preferred_username`, else `email`, else the subject: the login Warden makes of it.
    pub username: String,
    pub email: Option<String>,
    /// The role the configured claim names, if it names one.
    pub role: Option<Role>,
}

/// What a sign-in with the provider comes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProviderSignIn {
    /// A person with access (found, or made now with the claim's role).
    Person(Person),
    /// Not let in yet: an owner must give them a role.
    Waiting,
    /// Their account is disabled.
    Disabled,
}

/// How many numbered logins are tried when the one the provider suggests is taken (`ada`, `ada-2`, …).
const LOGIN_TRIES: u32 = 50;

impl People {
    /// The outcome of `who` signing in with the provider (see [`ProviderSignIn`]).
    pub async fn provider_sign_in(&self, who: &ProviderIdentity) -> Result<ProviderSignIn> {
        if let Some(person) = self.person_of_identity(&who.issuer, &who.subject).await? {
            return Ok(if person.disabled_at.is_some() {
                ProviderSignIn::Disabled
            } else {
                ProviderSignIn::Person(person)
            });
        }
        match who.role {
            Some(role) => {
                let person = self.make_provider_person(who, role, None).await?;
                Ok(ProviderSignIn::Person(person))
            }
            None => {
                self.keep_waiting(who).await?;
                Ok(ProviderSignIn::Waiting)
            }
        }
    }

    /// Those waiting for a role, first come first.
    pub async fn waiting(&self) -> Result<Vec<WaitingPerson>> {
        let rows: Vec<WaitingPerson> = sqlx::query_as(
            "SELECT id, issuer, name, login, email, first_seen_at, last_seen_at FROM oidc_waiting
             ORDER BY first_seen_at, id",
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(rows)
    }

    /// Lets the waiting `id` in as a person with `role`, by the owner `by`.
    pub async fn admit_waiting(&self, by: &PersonId, id: &str, role: Role) -> Result<Person> {
        let row: Option<(String, String, String, String, Option<String>)> =
            sqlx::query_as("SELECT issuer, subject, name, login, email FROM oidc_waiting WHERE id = ?")
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
        let Some((issuer, subject, name, username, email)) = row else { return Err(Error::NotFound(id.to_string())) };
        let who = ProviderIdentity { issuer, subject, name, username, email, role: Some(role) };
        self.make_provider_person(&who, role, Some((by, id))).await
    }

    /// Turns the waiting `id` away, by the owner `by` (a later sign-in of theirs waits again).
    pub async fn dismiss_waiting(&self, by: &PersonId, id: &str) -> Result<()> {
        let mut tx = self.writer.begin().await?;
        require_owner(&mut tx, by).await?;
        let done = sqlx::query("DELETE FROM oidc_waiting WHERE id = ?").bind(id).execute(&mut *tx).await?;
        if done.rows_affected() == 0 {
            return Err(Error::NotFound(id.to_string()));
        }
        tx.commit().await?;
        Ok(())
    }

    async fn person_of_identity(&self, issuer: &str, subject: &str) -> Result<Option<Person>> {
        let id: Option<(PersonId,)> =
            sqlx::query_as("SELECT person_id FROM oidc_identities WHERE issuer = ? AND subject = ?")
                .bind(issuer)
                .bind(subject)
                .fetch_optional(&self.pool)
                .await?;
        match id {
            Some((id,)) => self.person(&id).await.map(Some),
            None => Ok(None),
        }
    }

    async fn keep_waiting(&self, who: &ProviderIdentity) -> Result<()> {
        let now = timestamp::now();
        sqlx::query(
            "INSERT INTO oidc_waiting (id, issuer, subject, name, login, email, first_seen_at, last_seen_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (issuer, subject) DO UPDATE SET name = excluded.name, email = excluded.email,
                 last_seen_at = excluded.last_seen_at",
        )
        .bind(warden_db::new_id())
        .bind(&who.issuer)
        .bind(&who.subject)
        .bind(display_name(&who.name))
        .bind(login_from(&who.username))
        .bind(&who.email)
        .bind(&now)
        .bind(&now)
        .execute(&self.writer)
        .await?;
        Ok(())
    }

    /// Makes the person `who` is, with `role` and linked to their identity, in one transaction; when an owner
    /// lets a waiting one in (`admitted`: the owner and the waiting row), their row goes in the same one.
    async fn make_provider_person(
        &self,
        who: &ProviderIdentity,
        role: Role,
        admitted: Option<(&PersonId, &str)>,
    ) -> Result<Person> {
        let name = display_name(&who.name);
        let base = login_from(&who.username);
        let id = PersonId::new();
        let now = timestamp::now();
        let mut tx = self.writer.begin().await?;
        if let Some((by, waiting)) = admitted {
            require_owner(&mut tx, by).await?;
            sqlx::query("DELETE FROM oidc_waiting WHERE id = ?").bind(waiting).execute(&mut *tx).await?;
        }
        let mut login = None;
        for n in 1..=LOGIN_TRIES {
            let candidate = if n == 1 { base.clone() } else { format!("{base}-{n}") };
            let taken =
                sqlx::query("SELECT 1 FROM people WHERE login = ?").bind(&candidate).fetch_optional(&mut *tx).await?;
            if taken.is_none() {
                login = Some(candidate);
                break;
            }
        }
        let login = login.ok_or_else(|| Error::LoginTaken(base.clone()))?;
        let invited_by = admitted.map(|(by, _)| by.clone());
        sqlx::query("INSERT INTO people (id, login, name, role, created_at, invited_by) VALUES (?, ?, ?, ?, ?, ?)")
            .bind(&id)
            .bind(&login)
            .bind(&name)
            .bind(role)
            .bind(&now)
            .bind(invited_by)
            .execute(&mut *tx)
            .await?;
        sqlx::query("INSERT INTO oidc_identities (issuer, subject, person_id, created_at) VALUES (?, ?, ?, ?)")
            .bind(&who.issuer)
            .bind(&who.subject)
            .bind(&id)
            .bind(&now)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        self.person(&id).await
    }
}

/// A name the pages may show, made of what the provider sent (cut and cleaned, never refused).
fn display_name(sent: &str) -> String {
    let cleaned: String = sent
        .chars()
        .filter(|c| !c.is_control() && !warden_types::hidden_chars::is_hidden(*c))
        .take(names::NAME_MAX_CHARS)
        .collect();
    names::name(&cleaned).unwrap_or_else(|_| "Someone".to_string())
}

/// A login made of what the provider suggests: the characters a login may have, cut to length.
fn login_from(sent: &str) -> String {
    let cleaned: String = sent
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '-' | '@'))
        .take(names::LOGIN_MAX_CHARS - 3)
        .collect();
    names::login(&cleaned).unwrap_or_else(|_| "person".to_string())
}
