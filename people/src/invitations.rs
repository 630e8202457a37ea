//! Invitations: the owner asks for one (a role, perhaps a name, how long it lasts) and gets a link, shown once,
//! that carries a secret. The invitee opens it, picks a login and a password, and is in. A link works once:
//! the statement that accepts it is the one that checks it is unused, not withdrawn and not expired.

use std::time::{Duration, SystemTime};

use sqlx::Sqlite;
use warden_db::secret::{has_secret_shape, hash};
use warden_db::timestamp;
use warden_types::id::{InvitationId, PersonId};
use warden_types::person::{Invitation, Person, Role};

use crate::accounts::require_owner;
use crate::passkeys::{insert_passkey, NewPasskey};
use crate::{names, password, Error, People, Result, Secret};

/// A person about to be made from an invitation, and how they will sign in.
struct Joining {
    id: PersonId,
    login: String,
    name: String,
    password_hash: Option<String>,
    passkey: Option<NewPasskey>,
}

/// Invitation links are this path and the secret, on the host the owner's browser used.
pub const INVITE_PREFIX: &str = "/invite/";

/// The path of the link that carries `secret`.
pub fn invitation_path(secret: &Secret) -> String {
    format!("{INVITE_PREFIX}{}", secret.expose())
}

/// How long an invitation may last: a few minutes to a month; a week unless the owner says otherwise.
pub const MIN_VALID: Duration = Duration::from_secs(5 * 60);
pub const MAX_VALID: Duration = Duration::from_secs(30 * 24 * 3600);
pub const DEFAULT_VALID: Duration = Duration::from_secs(7 * 24 * 3600);

/// What the owner asks for.
#[derive(Debug, Clone)]
pub struct NewInvitation {
    pub role: Role,
    pub name: Option<String>,
    pub valid_for: Duration,
}

impl NewInvitation {
    /// An invitation to `role`, with no name, lasting `DEFAULT_VALID`.
    pub fn new(role: Role) -> Self {
        Self { role, name: None, valid_for: DEFAULT_VALID }
    }
}

/// The columns an `Invitation` reads, and what a row must be to be used: unused, not withdrawn, not
/// expired at the time bound last (macros, so that queries stay literal strings).
macro_rules! invitation_columns {
    () => {
        "id, role, name, created_by, created_at, expires_at"
    };
}
macro_rules! usable {
    () => {
        "used_at IS NULL AND revoked_at IS NULL AND expires_at > ?"
    };
}

impl People {
    /// A new invitation by the owner `by`, and the secret its link carries (shown once, kept only hashed).
    pub async fn invite(&self, by: &PersonId, new: NewInvitation) -> Result<(Invitation, Secret)> {
        if !(MIN_VALID..=MAX_VALID).contains(&new.valid_for) {
            return Err(Error::BadExpiry { min: MIN_VALID.as_secs() / 60, max: MAX_VALID.as_secs() / 60 });
        }
        let name = new.name.as_deref().map(str::trim).filter(|n| !n.is_empty()).map(names::name).transpose()?;
        let secret = Secret::new().map_err(Error::Random)?;
        let now = SystemTime::now();
        let expires_at = timestamp::at(now + new.valid_for);
        let id = InvitationId::new();
        let mut tx = self.writer.begin().await?;
        require_owner(&mut tx, by).await?;
        sqlx::query(
            "INSERT INTO invitations (id, secret_hash, role, name, created_by, created_at, expires_at)
             VALUES (?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&id)
        .bind(secret.hash())
        .bind(new.role)
        .bind(&name)
        .bind(by)
        .bind(timestamp::at(now))
        .bind(&expires_at)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        let invitation =
            Invitation { id, role: new.role, name, created_by: by.clone(), created_at: timestamp::at(now), expires_at };
        Ok((invitation, secret))
    }

    /// The invitations that can still be used, newest first.
    pub async fn pending_invitations(&self) -> Result<Vec<Invitation>> {
        let rows: Vec<Invitation> = sqlx::query_as(concat!(
            "SELECT ",
            invitation_columns!(),
            " FROM invitations WHERE ",
            usable!(),
            " ORDER BY created_at DESC, id DESC"
        ))
        .bind(timestamp::now())
        .fetch_all(&self.pool)
        .await?;
        Ok(rows)
    }

    /// The usable invitation a link's secret opens, for the page that accepts it.
    pub async fn invitation_by_secret(&self, secret: &str) -> Result<Option<Invitation>> {
        if !has_secret_shape(secret) {
            return Ok(None);
        }
        let row: Option<Invitation> = sqlx::query_as(concat!(
            "SELECT ",
            invitation_columns!(),
            " FROM invitations WHERE secret_hash = ? AND ",
            usable!()
        ))
        .bind(hash(secret))
        .bind(timestamp::now())
        .fetch_optional(&self.pool)
        .await?;
        Ok(row)
    }

    /// Accepts the invitation whose link carries `secret`: a new person with its role, signing in as `login`.
    /// Everything the invitee typed is checked before the link is used, and a login that turns out taken
    /// leaves the link usable, so a mistake costs them nothing.
    pub async fn accept_invitation(&self, secret: &str, login: &str, name: &str, new_password: &str) -> Result<Person> {
        let login = names::login(login)?;
        let name = names::name(name)?;
        password::check(new_password, &login)?;
        if !has_secret_shape(secret) {
            return Err(Error::InvitationNotValid);
        }
        let hashed = password::hash(new_password.to_string()).await?;
        let joining = Joining { id: PersonId::new(), login, name, password_hash: Some(hashed), passkey: None };
        self.join(secret, joining).await
    }

    /// What an invitee typed before they make a passkey: the invitation `secret` opens is usable, `login`
    /// and `name` may be kept and the login is free. Checked again when the account is made.
    pub async fn check_joining(&self, secret: &str, login: &str, name: &str) -> Result<(Invitation, String, String)> {
        let login = names::login(login)?;
        let name = names::name(name)?;
        let invitation = self.invitation_by_secret(secret).await?.ok_or(Error::InvitationNotValid)?;
        let taken = sqlx::query("SELECT 1 FROM people WHERE login = ?").bind(&login).fetch_optional(&self.pool).await?;
        if taken.is_some() {
            return Err(Error::LoginTaken(login));
        }
        Ok((invitation, login, name))
    }

    /// Accepts the invitation whose link carries `secret` with a passkey instead of a password: the person
    /// `id` (whose id the passkey's user handle carries), signing in as `login`, with `passkey` as their
    /// only way in. The link is used in the same transaction that keeps the passkey.
    pub async fn accept_invitation_with_passkey(
        &self,
        secret: &str,
        id: &PersonId,
        login: &str,
        name: &str,
        passkey: NewPasskey,
    ) -> Result<Person> {
        let login = names::login(login)?;
        let name = names::name(name)?;
        if !has_secret_shape(secret) {
            return Err(Error::InvitationNotValid);
        }
        let joining = Joining { id: id.clone(), login, name, password_hash: None, passkey: Some(passkey) };
        self.join(secret, joining).await
    }

    /// Uses the invitation and makes the person, with their password or their passkey, in one transaction.
    async fn join(&self, secret: &str, joining: Joining) -> Result<Person> {
        let Joining { id, login, name, password_hash, passkey } = joining;
        let now = timestamp::now();
        let mut tx = self.writer.begin().await?;
        let used: Option<(InvitationId, Role, PersonId)> = sqlx::query_as(concat!(
            "UPDATE invitations SET used_at = ? WHERE secret_hash = ? AND ",
            usable!(),
            " RETURNING id, role, created_by"
        ))
        .bind(&now)
        .bind(hash(secret))
        .bind(&now)
        .fetch_optional(&mut *tx)
        .await?;
        let Some((invitation, role, invited_by)) = used else { return Err(Error::InvitationNotValid) };
        let inserted = sqlx::query::<Sqlite>(
            "INSERT INTO people (id, login, name, role, password_hash, created_at, invited_by)
             VALUES (?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&id)
        .bind(&login)
        .bind(&name)
        .bind(role)
        .bind(password_hash)
        .bind(&now)
        .bind(invited_by)
        .execute(&mut *tx)
        .await;
        match inserted {
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => return Err(Error::LoginTaken(login)),
            other => {
                other?;
            }
        }
        if let Some(passkey) = passkey {
            insert_passkey(&mut tx, &id, &passkey).await?;
        }
        sqlx::query("UPDATE invitations SET used_by = ? WHERE id = ?")
            .bind(&id)
            .bind(invitation)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        self.person(&id).await
    }

    /// Withdraws a pending invitation, by the owner `by`: its link stops working.
    pub async fn withdraw_invitation(&self, by: &PersonId, id: &InvitationId) -> Result<()> {
        let mut tx = self.writer.begin().await?;
        require_owner(&mut tx, by).await?;
        let done = sqlx::query(concat!("UPDATE invitations SET revoked_at = ? WHERE id = ? AND ", usable!()))
            .bind(timestamp::now())
            .bind(id)
            .bind(timestamp::now())
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() == 0 {
            return Err(Error::InvitationNotFound(id.to_string()));
        }
        tx.commit().await?;
        Ok(())
    }
}
