//! Single-use decision links. A link's secret is 32 random bytes shown once, in the notification that
//! carries it; the table keeps its SHA-256. A link names one request, one person and one intended action,
//! and expires. Opening it (a GET: a person, or a mail scanner fetching every link of a message) only marks it
//! opened. Deciding takes the POST from its confirm page, which burns the link in one conditional write
//! (unused, not expired) before the decision is made: of two POSTs racing, one decides.

use std::time::SystemTime;

use sqlx::SqlitePool;
use warden_db::secret::{has_secret_shape, hash, Secret};
use warden_db::timestamp::{at, now};
use warden_db::Database;
use warden_types::approval::Verdict;
use warden_types::id::{DecisionLinkId, NotificationId, PersonId};
use warden_types::notification::RequestRef;

use crate::{Error, Result};

/// Decision links are this path and the secret.
pub const DECIDE_PREFIX: &str = "/decide/";

/// A link to make.
#[derive(Debug, Clone)]
pub struct NewLink {
    pub request: RequestRef,
    pub person: PersonId,
    pub intent: Verdict,
    /// The notification that carries it (its `opened_at` follows the link's).
    pub notification: Option<NotificationId>,
    pub expires_at: SystemTime,
}

/// A stored link, found by its secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecisionLink {
    pub id: DecisionLinkId,
    pub request: RequestRef,
    pub person: PersonId,
    pub intent: Verdict,
    pub notification: Option<NotificationId>,
    pub created_at: String,
    pub expires_at: String,
    pub opened_at: Option<String>,
    pub used_at: Option<String>,
    pub outcome: Option<String>,
}

/// Whether a link can still decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkState {
    Usable,
    Used,
    Expired,
}

impl DecisionLink {
    pub fn state(&self) -> LinkState {
        if self.used_at.is_some() {
            LinkState::Used
        } else if self.expires_at <= now() {
            LinkState::Expired
        } else {
            LinkState::Usable
        }
    }
}

/// What burning a link found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Burn {
    /// Burned now, by this caller: decide, then record the outcome (or `restore` it).
    Now(DecisionLink),
    /// Used before (by an earlier POST), or expired.
    NotUsable(DecisionLink),
    /// No such link.
    Unknown,
}

#[derive(sqlx::FromRow)]
struct Row {
    id: DecisionLinkId,
    request_kind: String,
    request_id: String,
    person_id: PersonId,
    intent: Verdict,
    notification_id: Option<NotificationId>,
    created_at: String,
    expires_at: String,
    opened_at: Option<String>,
    used_at: Option<String>,
    outcome: Option<String>,
}

/// The columns a row reads (a macro, so that queries stay literal strings).
macro_rules! link_columns {
    () => {
        "id, request_kind, request_id, person_id, intent, notification_id, created_at, expires_at, \
                       opened_at, used_at, outcome"
    };
}

impl TryFrom<Row> for DecisionLink {
    type Error = Error;

    fn try_from(row: Row) -> Result<Self> {
        let request = RequestRef::from_parts(&row.request_kind, row.request_id)
            .ok_or_else(|| Error::Stored(format!("a link names a request of kind {:?}", row.request_kind)))?;
        Ok(Self {
            id: row.id,
            request,
            person: row.person_id,
            intent: row.intent,
            notification: row.notification_id,
            created_at: row.created_at,
            expires_at: row.expires_at,
            opened_at: row.opened_at,
            used_at: row.used_at,
            outcome: row.outcome,
        })
    }
}

/// The decision links' table. Cheap to clone.
#[derive(Clone)]
pub struct DecisionLinks {
    pool: SqlitePool,
    writer: SqlitePool,
}

impl DecisionLinks {
    pub(crate) fn new(database: &Database) -> Self {
        Self { pool: database.pool().clone(), writer: database.writer().clone() }
    }

    /// Makes a link; the secret it returns is in no table and is shown once (in the notification).
    pub async fn mint(&self, new: &NewLink) -> Result<(DecisionLinkId, Secret)> {
        let secret = Secret::new().map_err(Error::Random)?;
        let id = DecisionLinkId::new();
        sqlx::query(
            "INSERT INTO decision_links (id, secret_hash, request_kind, request_id, person_id, intent, \
             notification_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&id)
        .bind(secret.hash())
        .bind(new.request.kind())
        .bind(new.request.id())
        .bind(&new.person)
        .bind(new.intent)
        .bind(&new.notification)
        .bind(now())
        .bind(at(new.expires_at))
        .execute(&self.writer)
        .await?;
        Ok((id, secret))
    }

    /// The link `secret` opens, whatever its state; `None` for a secret no link has (or not shaped as one).
    pub async fn find(&self, secret: &str) -> Result<Option<DecisionLink>> {
        if !has_secret_shape(secret) {
            return Ok(None);
        }
        let row: Option<Row> =
            sqlx::query_as(concat!("SELECT ", link_columns!(), " FROM decision_links WHERE secret_hash = ?"))
                .bind(hash(secret))
                .fetch_optional(&self.pool)
                .await?;
        row.map(DecisionLink::try_from).transpose()
    }

    /// Its confirm page was seen: the first time is kept, on the link and on the notification that carried it.
    pub async fn mark_opened(&self, link: &DecisionLink) -> Result<()> {
        let when = now();
        let mut tx = self.writer.begin().await?;
        sqlx::query("UPDATE decision_links SET opened_at = COALESCE(opened_at, ?) WHERE id = ?")
            .bind(&when)
            .bind(&link.id)
            .execute(&mut *tx)
            .await?;
        if let Some(notification) = &link.notification {
            sqlx::query("UPDATE notifications SET opened_at = COALESCE(opened_at, ?) WHERE id = ?")
                .bind(&when)
                .bind(notification)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Burns the link `secret` opens if it is unused and not expired: one conditional write, so of two
    /// callers at once exactly one gets [`Burn::Now`].
    pub async fn burn(&self, secret: &str) -> Result<Burn> {
        if !has_secret_shape(secret) {
            return Ok(Burn::Unknown);
        }
        let when = now();
        let burned: Option<Row> = sqlx::query_as(concat!(
            "UPDATE decision_links SET used_at = ?1, opened_at = COALESCE(opened_at, ?1) \
             WHERE secret_hash = ?2 AND used_at IS NULL AND expires_at > ?1 RETURNING ",
            link_columns!()
        ))
        .bind(&when)
        .bind(hash(secret))
        .fetch_optional(&self.writer)
        .await?;
        if let Some(row) = burned {
            return Ok(Burn::Now(row.try_into()?));
        }
        Ok(match self.find(secret).await? {
            Some(link) => Burn::NotUsable(link),
            None => Burn::Unknown,
        })
    }

    /// What the decision the link was burned for did, in words (shown if the link is opened again).
    pub async fn record_outcome(&self, link: &DecisionLinkId, outcome: &str) -> Result<()> {
        sqlx::query("UPDATE decision_links SET outcome = ? WHERE id = ?")
            .bind(outcome)
            .bind(link)
            .execute(&self.writer)
            .await?;
        Ok(())
    }

    /// Makes a link burned by `burned` usable again: its decision was not made because the request changed
    /// since its page was shown, and the person should look again.
    pub async fn restore(&self, burned: &DecisionLink) -> Result<()> {
        sqlx::query("UPDATE decision_links SET used_at = NULL WHERE id = ? AND used_at IS ?")
            .bind(&burned.id)
            .bind(&burned.used_at)
            .execute(&self.writer)
            .await?;
        Ok(())
    }

    /// The links made for a request, oldest first (the inbox's "what was sent to whom" and the tests).
    pub async fn for_request(&self, request: &RequestRef) -> Result<Vec<DecisionLink>> {
        let rows: Vec<Row> = sqlx::query_as(concat!(
            "SELECT ",
            link_columns!(),
            " FROM decision_links WHERE request_kind = ? AND request_id = ? ORDER BY created_at, id"
        ))
        .bind(request.kind())
        .bind(request.id())
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(DecisionLink::try_from).collect()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::Reach;

    async fn open() -> (tempfile::TempDir, Reach) {
        let dir = tempfile::tempdir().expect("tempdir");
        let url = format!("sqlite://{}", dir.path().join("warden.db").display());
        let database = Database::open(&url).await.expect("database");
        let reach = Reach::open(&database).await.expect("reach");
        (dir, reach)
    }

    fn new_link(valid: Duration) -> NewLink {
        NewLink {
            request: RequestRef::Approval("a1".to_string().into()),
            person: "p1".to_string().into(),
            intent: Verdict::Approve,
            notification: None,
            expires_at: SystemTime::now() + valid,
        }
    }

    #[tokio::test]
    async fn a_link_is_found_by_its_secret_only_and_burns_once() {
        let (_dir, reach) = open().await;
        let (_, secret) = reach.links.mint(&new_link(Duration::from_secs(600))).await.expect("mint");
        let link = reach.links.find(secret.expose()).await.expect("find").expect("found");
        assert_eq!(link.state(), LinkState::Usable);
        assert_eq!(link.intent, Verdict::Approve);
        assert!(reach.links.find(&secret.hash()).await.expect("find").is_none(), "the stored hash opens nothing");
        assert!(reach.links.find("not-a-secret").await.expect("find").is_none());

        let (a, b) = tokio::join!(reach.links.burn(secret.expose()), reach.links.burn(secret.expose()));
        let burned = [a.expect("burn"), b.expect("burn")];
        assert_eq!(burned.iter().filter(|b| matches!(b, Burn::Now(_))).count(), 1, "{burned:?}");
        assert_eq!(burned.iter().filter(|b| matches!(b, Burn::NotUsable(_))).count(), 1, "{burned:?}");
        let used = reach.links.find(secret.expose()).await.expect("find").expect("found");
        assert_eq!(used.state(), LinkState::Used);
        assert!(used.opened_at.is_some(), "a burned link was opened");
    }

    #[tokio::test]
    async fn an_expired_link_does_not_burn_and_a_restored_one_burns_again() {
        let (_dir, reach) = open().await;
        let mut expired = new_link(Duration::ZERO);
        expired.expires_at = SystemTime::now() - Duration::from_secs(1);
        let (_, old) = reach.links.mint(&expired).await.expect("mint");
        assert!(
            matches!(reach.links.burn(old.expose()).await.expect("burn"), Burn::NotUsable(l) if l.state() == LinkState::Expired)
        );

        let (_, secret) = reach.links.mint(&new_link(Duration::from_secs(600))).await.expect("mint");
        let Burn::Now(burned) = reach.links.burn(secret.expose()).await.expect("burn") else { panic!("not burned") };
        reach.links.restore(&burned).await.expect("restore");
        assert!(matches!(reach.links.burn(secret.expose()).await.expect("burn"), Burn::Now(_)));
        assert!(matches!(reach.links.burn(&"0".repeat(64)).await.expect("burn"), Burn::Unknown));
    }
}
