//! Signed-in browsers. Opening the sign-in link starts a session: 32 random bytes go into the cookie
//! and only their SHA-256 into the database, beside when and where it started and the browser's name.
//! A session ends when the person signs it out (one by one, or all at once), after `Policy::idle`
//! without a request, or `Policy::absolute` after it began, whichever comes first; each is checked here,
//! on the server, at every request. Sessions outlive restarts (they are rows, not a key in memory).

use std::time::{Duration, SystemTime};

use sqlx::migrate::Migrator;
use sqlx::{Row, SqlitePool};
use tokio::sync::broadcast;
pub use warden_db::secret::Secret;
use warden_db::secret::{has_secret_shape, hash};
use warden_db::timestamp;
use warden_db::Database;
use warden_types::id::PersonId;
use warden_types::session::SignedInBrowser;

/// Where this crate's migrations are recorded, apart from the other crates'.
pub const MIGRATIONS_TABLE: &str = "_warden_sessions_migrations";
/// How many characters of a `User-Agent` are kept.
const USER_AGENT_CHARS: usize = 300;
/// How many characters of an address (with what a proxy forwarded) are kept.
const ADDRESS_CHARS: usize = 200;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("database error: {0}")]
    Sqlx(#[from] sqlx::Error),
    #[error("migration error: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("the operating system gave no random bytes for a session: {0}")]
    Random(getrandom::Error),
    #[error("that browser ({0}) is not signed in (any more)")]
    NotFound(String),
}

impl Error {
    /// What kind of failure this is for a caller (and so its HTTP status: `ErrorKind::status`).
    pub fn kind(&self) -> warden_types::ErrorKind {
        match self {
            Error::NotFound(_) => warden_types::ErrorKind::NotFound,
            Error::Sqlx(_) | Error::Migrate(_) | Error::Random(_) => warden_types::ErrorKind::Internal,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// How long a session lasts.
#[derive(Debug, Clone, Copy)]
pub struct Policy {
    /// Ended after this long without a request.
    pub idle: Duration,
    /// Ended this long after sign-in, however busy.
    pub absolute: Duration,
    /// `last_seen_at` is written at most this often (a write per request would queue behind runs).
    pub touch_every: Duration,
}

impl Default for Policy {
    fn default() -> Self {
        Self {
            idle: Duration::from_secs(7 * 24 * 3600),
            absolute: Duration::from_secs(30 * 24 * 3600),
            touch_every: Duration::from_secs(60),
        }
    }
}

/// The session a request was let in by, put in the request's extensions by the access gate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedIn {
    pub session_id: String,
    /// Whose session it is (a person's id).
    pub person_id: PersonId,
}

/// What was signed out, for streams that a session holds open.
#[derive(Debug, Clone)]
pub enum Revoked {
    One(String),
    /// Every session of `person` but `keep` (every one of theirs when `None`).
    AllBut {
        person: PersonId,
        keep: Option<String>,
    },
    /// Every session of this person (their account was disabled).
    Person(PersonId),
}

impl Revoked {
    pub fn covers(&self, session: &SignedIn) -> bool {
        match self {
            Revoked::One(id) => *id == session.session_id,
            Revoked::AllBut { person, keep } => {
                *person == session.person_id && keep.as_deref() != Some(session.session_id.as_str())
            }
            Revoked::Person(person) => *person == session.person_id,
        }
    }
}

/// A session just started.
#[derive(Debug)]
pub struct Started {
    pub id: String,
    pub secret: Secret,
}

/// The sessions' table, on the database every part of Warden shares. Cheap to clone.
#[derive(Clone)]
pub struct Sessions {
    pool: SqlitePool,
    writer: SqlitePool,
    policy: Policy,
    revoked: broadcast::Sender<Revoked>,
}

impl Sessions {
    /// Applies this crate's migrations to `database` and keeps it.
    pub async fn open(database: &Database, policy: Policy) -> Result<Self> {
        migrator().run(database.writer()).await?;
        let (revoked, _) = broadcast::channel(64);
        Ok(Self { pool: database.pool().clone(), writer: database.writer().clone(), policy, revoked })
    }

    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// Starts a session of `person_id` for a browser that signed in; drops sessions that have expired.
    pub async fn start(
        &self,
        person_id: &PersonId,
        user_agent: Option<&str>,
        address: Option<&str>,
    ) -> Result<Started> {
        let secret = Secret::new().map_err(Error::Random)?;
        let id = warden_db::new_id();
        let now = timestamp::now();
        let (idle, absolute) = self.limits();
        sqlx::query("DELETE FROM browser_sessions WHERE last_seen_at <= ? OR created_at <= ?")
            .bind(&idle)
            .bind(&absolute)
            .execute(&self.writer)
            .await?;
        sqlx::query(
            "INSERT INTO browser_sessions (id, secret_hash, created_at, last_seen_at, user_agent, address, person_id)
             VALUES (?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&id)
        .bind(secret.hash())
        .bind(&now)
        .bind(&now)
        .bind(user_agent.map(|ua| cut(ua, USER_AGENT_CHARS)))
        .bind(address.map(|a| cut(a, ADDRESS_CHARS)))
        .bind(person_id)
        .execute(&self.writer)
        .await?;
        Ok(Started { id, secret })
    }

    /// The session whose cookie secret is `secret`, if it is live: not signed out, not idle for longer
    /// than the policy allows, not older than its absolute limit. An expired one is removed.
    pub async fn check(&self, secret: &str) -> Result<Option<SignedIn>> {
        if !has_secret_shape(secret) {
            return Ok(None);
        }
        let row =
            sqlx::query("SELECT id, created_at, last_seen_at, person_id FROM browser_sessions WHERE secret_hash = ?")
                .bind(hash(secret))
                .fetch_optional(&self.pool)
                .await?;
        let Some(row) = row else { return Ok(None) };
        let id: String = row.try_get("id")?;
        let created_at: String = row.try_get("created_at")?;
        let last_seen_at: String = row.try_get("last_seen_at")?;
        // Never NULL once `adopt_unowned` ran at start; an empty id names nobody, so the gate lets it in nowhere.
        let person_id: PersonId =
            row.try_get::<Option<PersonId>, _>("person_id")?.unwrap_or_else(|| PersonId::from(String::new()));
        let (idle, absolute) = self.limits();
        if last_seen_at <= idle || created_at <= absolute {
            sqlx::query("DELETE FROM browser_sessions WHERE id = ?").bind(&id).execute(&self.writer).await?;
            self.announce(Revoked::One(id));
            return Ok(None);
        }
        if last_seen_at <= ago(self.policy.touch_every) {
            // Only if it is still there: a sign-out in between must not be undone.
            sqlx::query("UPDATE browser_sessions SET last_seen_at = ? WHERE id = ?")
                .bind(timestamp::now())
                .bind(&id)
                .execute(&self.writer)
                .await?;
        }
        Ok(Some(SignedIn { session_id: id, person_id }))
    }

    /// Whether the session `id` is still signed in (not revoked, not expired).
    pub async fn is_live(&self, id: &str) -> Result<bool> {
        let (idle, absolute) = self.limits();
        let found = sqlx::query("SELECT 1 FROM browser_sessions WHERE id = ? AND last_seen_at > ? AND created_at > ?")
            .bind(id)
            .bind(&idle)
            .bind(&absolute)
            .fetch_optional(&self.pool)
            .await?;
        Ok(found.is_some())
    }

    /// `person_id`'s live sessions, most recently seen first; `asking` is marked as this browser.
    pub async fn list(&self, person_id: &PersonId, asking: Option<&SignedIn>) -> Result<Vec<SignedInBrowser>> {
        let (idle, absolute) = self.limits();
        let rows = sqlx::query(
            "SELECT id, created_at, last_seen_at, user_agent, address FROM browser_sessions
             WHERE person_id = ? AND last_seen_at > ? AND created_at > ? ORDER BY last_seen_at DESC, id DESC",
        )
        .bind(person_id)
        .bind(&idle)
        .bind(&absolute)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                let id: String = r.try_get("id")?;
                Ok(SignedInBrowser {
                    this_browser: asking.is_some_and(|a| a.session_id == id),
                    id,
                    created_at: r.try_get("created_at")?,
                    last_seen_at: r.try_get("last_seen_at")?,
                    user_agent: r.try_get("user_agent")?,
                    address: r.try_get("address")?,
                })
            })
            .collect()
    }

    /// Signs one of `person_id`'s browsers out; `NotFound` when they have no such session.
    pub async fn revoke(&self, person_id: &PersonId, id: &str) -> Result<()> {
        let done = sqlx::query("DELETE FROM browser_sessions WHERE id = ? AND person_id = ?")
            .bind(id)
            .bind(person_id)
            .execute(&self.writer)
            .await?;
        if done.rows_affected() == 0 {
            return Err(Error::NotFound(id.to_string()));
        }
        self.announce(Revoked::One(id.to_string()));
        Ok(())
    }

    /// Signs out every browser of `person_id` but `keep` (every one when `None`); how many were signed out.
    pub async fn revoke_all_but(&self, person_id: &PersonId, keep: Option<&str>) -> Result<u64> {
        let done = sqlx::query("DELETE FROM browser_sessions WHERE person_id = ? AND id IS NOT ?")
            .bind(person_id)
            .bind(keep)
            .execute(&self.writer)
            .await?;
        self.announce(Revoked::AllBut { person: person_id.clone(), keep: keep.map(str::to_string) });
        Ok(done.rows_affected())
    }

    /// Gives the sessions started before Warden knew people to `owner`, whose they were.
    pub async fn adopt_unowned(&self, owner: &PersonId) -> Result<u64> {
        let done = sqlx::query("UPDATE browser_sessions SET person_id = ? WHERE person_id IS NULL")
            .bind(owner)
            .execute(&self.writer)
            .await?;
        Ok(done.rows_affected())
    }

    /// Signs out every browser of `person_id` (their account was disabled); how many were signed out.
    pub async fn revoke_person(&self, person_id: &PersonId) -> Result<u64> {
        let done = sqlx::query("DELETE FROM browser_sessions WHERE person_id = ?")
            .bind(person_id)
            .execute(&self.writer)
            .await?;
        self.announce(Revoked::Person(person_id.clone()));
        Ok(done.rows_affected())
    }

    /// Sign-outs as they happen (streams held open by a session end on theirs).
    pub fn revocations(&self) -> broadcast::Receiver<Revoked> {
        self.revoked.subscribe()
    }

    fn announce(&self, revoked: Revoked) {
        // No receiver (no open stream) is not an error.
        let _ = self.revoked.send(revoked);
    }

    /// The times at or before which a session is expired: by idleness, by age.
    fn limits(&self) -> (String, String) {
        (ago(self.policy.idle), ago(self.policy.absolute))
    }
}

fn ago(duration: Duration) -> String {
    timestamp::at(SystemTime::now().checked_sub(duration).unwrap_or(SystemTime::UNIX_EPOCH))
}

fn cut(text: &str, chars: usize) -> String {
    text.chars().filter(|c| !c.is_control()).take(chars).collect()
}

fn migrator() -> Migrator {
    let mut migrator = sqlx::migrate!("./migrations");
    migrator.dangerous_set_table_name(MIGRATIONS_TABLE);
    migrator
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn open(policy: Policy) -> (tempfile::TempDir, Database, Sessions) {
        let dir = tempfile::tempdir().expect("temp dir");
        let url = format!("sqlite://{}", dir.path().join("warden.db").display());
        let database = Database::open(&url).await.expect("database");
        let sessions = Sessions::open(&database, policy).await.expect("sessions");
        (dir, database, sessions)
    }

    fn signed_in(started: &Started) -> SignedIn {
        SignedIn { session_id: started.id.clone(), person_id: PersonId::from("ada") }
    }

    #[tokio::test]
    async fn a_disabled_persons_sessions_end_at_once_and_others_stay() {
        let (_dir, database, sessions) = open(Policy::default()).await;
        let ada = sessions.start(&PersonId::from("ada"), None, None).await.expect("started");
        let bob = sessions.start(&PersonId::from("bob"), None, None).await.expect("started");
        sqlx::query(
            "INSERT INTO browser_sessions (id, secret_hash, created_at, last_seen_at) VALUES ('old', 'h', ?, ?)",
        )
        .bind(timestamp::now())
        .bind(timestamp::now())
        .execute(database.writer())
        .await
        .expect("a session from before people");
        assert_eq!(sessions.adopt_unowned(&PersonId::from("ada")).await.expect("adopted"), 1);
        let mut revoked = sessions.revocations();
        assert_eq!(sessions.revoke_person(&PersonId::from("ada")).await.expect("revoked"), 2);
        let announced = revoked.recv().await.expect("announced");
        assert!(announced.covers(&signed_in(&ada)));
        let bobs = sessions.check(bob.secret.expose()).await.expect("checked").expect("still signed in");
        assert_eq!(bobs.person_id.as_str(), "bob");
        assert!(!announced.covers(&bobs));
        assert!(sessions.check(ada.secret.expose()).await.expect("checked").is_none());
        assert!(!sessions.is_live("old").await.expect("checked"));
    }

    #[tokio::test]
    async fn a_session_is_found_by_its_secret_only_and_the_database_holds_no_secret() {
        let (_dir, database, sessions) = open(Policy::default()).await;
        let started =
            sessions.start(&PersonId::from("ada"), Some("Firefox\n"), Some("127.0.0.1:5000")).await.expect("started");
        let secret = started.secret.expose();
        assert_eq!(secret.len(), 64);
        let found = sessions.check(secret).await.expect("checked").expect("signed in");
        assert_eq!(found.session_id, started.id);
        let mut other = secret.to_string();
        other.replace_range(0..1, if secret.starts_with('0') { "1" } else { "0" });
        assert!(sessions.check(&other).await.expect("checked").is_none());
        assert!(sessions.check("").await.expect("checked").is_none());
        assert!(sessions.check(&started.id).await.expect("checked").is_none(), "the public id is not a secret");
        let stored: Vec<(String,)> =
            sqlx::query_as("SELECT secret_hash FROM browser_sessions").fetch_all(database.pool()).await.expect("rows");
        assert_eq!(stored.len(), 1);
        assert_ne!(stored[0].0, secret);
        let listed = sessions.list(&PersonId::from("ada"), Some(&found)).await.expect("listed");
        assert_eq!(listed.len(), 1);
        assert!(listed[0].this_browser);
        assert_eq!(listed[0].user_agent.as_deref(), Some("Firefox"), "control characters are dropped");
        assert_eq!(listed[0].address.as_deref(), Some("127.0.0.1:5000"));
    }

    #[tokio::test]
    async fn idle_and_old_sessions_are_refused_and_removed() {
        let (_dir, database, sessions) = open(Policy::default()).await;
        let idle = sessions.start(&PersonId::from("ada"), None, None).await.expect("started");
        let old = sessions.start(&PersonId::from("ada"), None, None).await.expect("started");
        let fresh = sessions.start(&PersonId::from("ada"), None, None).await.expect("started");
        let long_ago = |d: Duration| timestamp::at(SystemTime::now() - d);
        sqlx::query("UPDATE browser_sessions SET last_seen_at = ? WHERE id = ?")
            .bind(long_ago(Policy::default().idle + Duration::from_secs(60)))
            .bind(&idle.id)
            .execute(database.writer())
            .await
            .expect("aged");
        // Busy until a minute ago, but signed in longer ago than the absolute limit.
        sqlx::query("UPDATE browser_sessions SET created_at = ? WHERE id = ?")
            .bind(long_ago(Policy::default().absolute + Duration::from_secs(60)))
            .bind(&old.id)
            .execute(database.writer())
            .await
            .expect("aged");
        let listed: Vec<String> =
            sessions.list(&PersonId::from("ada"), None).await.expect("listed").into_iter().map(|b| b.id).collect();
        assert_eq!(listed, vec![fresh.id.clone()]);
        assert!(sessions.check(idle.secret.expose()).await.expect("checked").is_none());
        assert!(sessions.check(old.secret.expose()).await.expect("checked").is_none());
        assert!(sessions.check(fresh.secret.expose()).await.expect("checked").is_some());
        let left: (i64,) =
            sqlx::query_as("SELECT count(*) FROM browser_sessions").fetch_one(database.pool()).await.expect("count");
        assert_eq!(left.0, 1, "the expired rows are gone");
    }

    #[tokio::test]
    async fn revoking_one_or_all_but_one_signs_out_at_once_and_is_announced() {
        let (_dir, _database, sessions) = open(Policy::default()).await;
        let a = sessions.start(&PersonId::from("ada"), None, None).await.expect("started");
        let b = sessions.start(&PersonId::from("ada"), None, None).await.expect("started");
        let c = sessions.start(&PersonId::from("ada"), None, None).await.expect("started");
        let mut revoked = sessions.revocations();
        sessions.revoke(&PersonId::from("ada"), &a.id).await.expect("revoked");
        assert!(sessions.check(a.secret.expose()).await.expect("checked").is_none());
        assert!(matches!(sessions.revoke(&PersonId::from("ada"), &a.id).await, Err(Error::NotFound(_))));
        assert!(revoked.recv().await.expect("announced").covers(&signed_in(&a)));
        assert_eq!(sessions.revoke_all_but(&PersonId::from("ada"), Some(&c.id)).await.expect("revoked"), 1);
        let announced = revoked.recv().await.expect("announced");
        assert!(announced.covers(&signed_in(&b)) && !announced.covers(&signed_in(&c)));
        assert!(sessions.check(b.secret.expose()).await.expect("checked").is_none());
        assert!(sessions.is_live(&c.id).await.expect("checked"));
        let bobs = sessions.start(&PersonId::from("bob"), None, None).await.expect("started");
        assert!(
            matches!(sessions.revoke(&PersonId::from("ada"), &bobs.id).await, Err(Error::NotFound(_))),
            "one person cannot sign out another's browser"
        );
        assert_eq!(sessions.list(&PersonId::from("ada"), None).await.expect("listed").len(), 1, "nor see it");
        assert_eq!(sessions.revoke_all_but(&PersonId::from("ada"), None).await.expect("revoked"), 1);
        assert!(!sessions.is_live(&c.id).await.expect("checked"));
        assert!(sessions.is_live(&bobs.id).await.expect("checked"), "signing out all one's browsers leaves others'");
    }
}
