//! The people of one Warden. A fresh install has one: the owner who installed it, who signs in by the
//! printed link as before and is never asked for a password. The owner invites others by a single-use link
//! (a role, an optional name, an expiry); the invitee picks a login and a password there. Each person has a
//! role (`warden_types::person::Role`) that the server checks on every route; the owner changes roles and
//! disables accounts (whose sessions the server then ends). Rows are never deleted: the audit log names
//! people by id.
//!
//! Instead of a password, a person may sign in with passkeys (`passkeys`) or, when the server is configured
//! for one, with the team's OpenID Connect provider (`oidc`).
//!
//! What this crate does not decide: who is asking (the server's access gate), and what a role may reach
//! (the gate's route table). It keeps the rules that hold whoever asks: only an enabled owner invites or
//! changes people, the last owner cannot be demoted or disabled, an invitation is used once, a password is
//! hashed with argon2id and never stored or logged.

mod accounts;
mod asker;
mod invitations;
pub mod names;
mod oidc;
pub mod passkeys;
pub mod password;

use sqlx::migrate::Migrator;
use sqlx::SqlitePool;
use warden_db::Database;
use warden_types::ErrorKind;

pub use asker::Asker;
pub use invitations::{invitation_path, NewInvitation, INVITE_PREFIX};
pub use oidc::{ProviderIdentity, ProviderSignIn};
pub use passkeys::NewPasskey;
pub use password::PasswordRefused;
pub use warden_db::secret::Secret;

/// Where this crate's migrations are recorded, apart from the other crates'.
pub const MIGRATIONS_TABLE: &str = "_warden_people_migrations";

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("database error: {0}")]
    Sqlx(#[from] sqlx::Error),
    #[error("migration error: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("the operating system gave no random bytes: {0}")]
    Random(getrandom::Error),
    #[error("password hashing failed: {0}")]
    Hashing(String),
    #[error("no person {0}")]
    NotFound(String),
    #[error("no pending invitation {0}")]
    InvitationNotFound(String),
    #[error("this invitation link was used, withdrawn or has expired")]
    InvitationNotValid,
    #[error("the login {0:?} is taken")]
    LoginTaken(String),
    #[error(transparent)]
    BadName(#[from] names::NameRefused),
    #[error(transparent)]
    BadPassword(#[from] PasswordRefused),
    #[error("an invitation lasts from {min} to {max} minutes")]
    BadExpiry { min: u64, max: u64 },
    #[error("only an owner whose account is enabled may do this")]
    NotAnOwner,
    #[error("Warden needs an owner: the last one can be neither disabled nor given another role")]
    LastOwner,
    #[error("the current password is not right")]
    WrongPassword,
    #[error("no passkey {0}")]
    PasskeyNotFound(String),
    #[error("this passkey is registered already")]
    PasskeyTaken,
    #[error("this is your only way to sign in: set a password or add another passkey first")]
    LastWayIn,
    #[error("a stored passkey could not be read or written: {0}")]
    Stored(String),
    #[error("the person's browsers could not be signed out: {0}")]
    Sessions(#[from] warden_sessions::Error),
}

impl Error {
    /// What kind of failure this is for a caller (and so its HTTP status: `ErrorKind::status`).
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::NotFound(_) | Error::InvitationNotFound(_) | Error::PasskeyNotFound(_) => ErrorKind::NotFound,
            // A link used, withdrawn or expired, a login taken, the last owner: the state says no.
            Error::InvitationNotValid
            | Error::LoginTaken(_)
            | Error::LastOwner
            | Error::PasskeyTaken
            | Error::LastWayIn => ErrorKind::Conflict,
            Error::BadName(_) | Error::BadPassword(_) | Error::BadExpiry { .. } => ErrorKind::Invalid,
            Error::NotAnOwner | Error::WrongPassword => ErrorKind::Forbidden,
            Error::Sqlx(_)
            | Error::Migrate(_)
            | Error::Random(_)
            | Error::Hashing(_)
            | Error::Sessions(_)
            | Error::Stored(_) => ErrorKind::Internal,
        }
    }

    /// The public code of the JSON API's error body.
    pub fn code(&self) -> &'static str {
        match self {
            Error::InvitationNotValid => "invitation_not_valid",
            Error::LoginTaken(_) => "login_taken",
            Error::LastOwner => "last_owner",
            Error::NotAnOwner => "role_not_allowed",
            Error::WrongPassword => "wrong_password",
            Error::PasskeyTaken => "passkey_taken",
            Error::LastWayIn => "last_way_in",
            _ => match self.kind() {
                ErrorKind::NotFound => "not_found",
                ErrorKind::Invalid => "invalid_request",
                _ => "internal",
            },
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The people's tables, on the database every part of Warden shares. Cheap to clone.
#[derive(Clone)]
pub struct People {
    pool: SqlitePool,
    writer: SqlitePool,
    /// A hash of nothing anyone knows, verified against when a login is unknown or has no password, so that
    /// a refusal takes as long whatever the reason.
    decoy_hash: std::sync::Arc<str>,
}

impl People {
    /// Applies this crate's migrations to `database` and keeps it.
    pub async fn open(database: &Database) -> Result<Self> {
        migrator().run(database.writer()).await?;
        let decoy = Secret::new().map_err(Error::Random)?;
        let decoy_hash = password::hash(decoy.expose().to_string()).await?;
        Ok(Self { pool: database.pool().clone(), writer: database.writer().clone(), decoy_hash: decoy_hash.into() })
    }
}

fn migrator() -> Migrator {
    let mut migrator = sqlx::migrate!("./migrations");
    migrator.dangerous_set_table_name(MIGRATIONS_TABLE);
    migrator
}
