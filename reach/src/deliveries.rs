//! The delivery log: one row per message sent about a request to one channel, with what became of it. A row
//! is written before the message goes out (so a crash mid-send leaves a row that never says delivered), then
//! marked delivered with the channel's answer or failed with the error; opening a link it carried marks it
//! opened (`DecisionLinks::mark_opened`).

use sqlx::SqlitePool;
use warden_db::timestamp::now;
use warden_db::Database;
use warden_types::id::{NotificationId, PersonId};
use warden_types::notification::{NotificationReason, NotificationRecord, RequestRef};

use crate::{Error, Result};

/// A message about to be sent.
#[derive(Debug, Clone)]
pub struct NewNotification {
    pub request: RequestRef,
    pub person: Option<(PersonId, String)>,
    pub channel_id: String,
    pub channel_kind: String,
    pub channel_name: String,
    pub reason: NotificationReason,
    pub step: u32,
}

#[derive(sqlx::FromRow)]
struct Row {
    id: NotificationId,
    request_kind: String,
    request_id: String,
    person_id: Option<PersonId>,
    person_name: Option<String>,
    channel_kind: String,
    channel_name: String,
    reason: String,
    step: i64,
    created_at: String,
    delivered_at: Option<String>,
    detail: Option<String>,
    failed_at: Option<String>,
    error: Option<String>,
    opened_at: Option<String>,
}

/// The columns a row reads (a macro, so that queries stay literal strings).
macro_rules! notification_columns {
    () => {
        "id, request_kind, request_id, person_id, person_name, channel_kind, channel_name, reason, \
                       step, created_at, delivered_at, detail, failed_at, error, opened_at"
    };
}

impl TryFrom<Row> for NotificationRecord {
    type Error = Error;

    fn try_from(row: Row) -> Result<Self> {
        let request = RequestRef::from_parts(&row.request_kind, row.request_id)
            .ok_or_else(|| Error::Stored(format!("a notification names a request of kind {:?}", row.request_kind)))?;
        let reason =
            row.reason.parse().map_err(|_| Error::Stored(format!("a notification has the reason {:?}", row.reason)))?;
        Ok(Self {
            id: row.id,
            request,
            person_id: row.person_id,
            person_name: row.person_name,
            channel_kind: row.channel_kind,
            channel_name: row.channel_name,
            reason,
            step: u32::try_from(row.step).unwrap_or(0),
            created_at: row.created_at,
            delivered_at: row.delivered_at,
            detail: row.detail,
            failed_at: row.failed_at,
            error: row.error,
            opened_at: row.opened_at,
        })
    }
}

/// The delivery log's table. Cheap to clone.
#[derive(Clone)]
pub struct Deliveries {
    pool: SqlitePool,
    writer: SqlitePool,
}

/// Longest channel answer or error kept, in characters.
const MAX_DETAIL_CHARS: usize = 500;

fn bounded(text: &str) -> String {
    text.chars().take(MAX_DETAIL_CHARS).collect()
}

impl Deliveries {
    pub(crate) fn new(database: &Database) -> Self {
        Self { pool: database.pool().clone(), writer: database.writer().clone() }
    }

    /// Writes the row of a message about to be sent.
    pub async fn start(&self, new: &NewNotification) -> Result<NotificationId> {
        let id = NotificationId::new();
        let reason: &'static str = new.reason.into();
        sqlx::query(
            "INSERT INTO notifications (id, request_kind, request_id, person_id, person_name, channel_id, \
             channel_kind, channel_name, reason, step, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&id)
        .bind(new.request.kind())
        .bind(new.request.id())
        .bind(new.person.as_ref().map(|(id, _)| id))
        .bind(new.person.as_ref().map(|(_, name)| name))
        .bind(&new.channel_id)
        .bind(&new.channel_kind)
        .bind(&new.channel_name)
        .bind(reason)
        .bind(i64::from(new.step))
        .bind(now())
        .execute(&self.writer)
        .await?;
        Ok(id)
    }

    /// The channel took it; `detail` is its answer.
    pub async fn delivered(&self, id: &NotificationId, detail: &str) -> Result<()> {
        sqlx::query("UPDATE notifications SET delivered_at = ?, detail = ? WHERE id = ?")
            .bind(now())
            .bind(bounded(detail))
            .bind(id)
            .execute(&self.writer)
            .await?;
        Ok(())
    }

    /// Sending failed with `error`.
    pub async fn failed(&self, id: &NotificationId, error: &str) -> Result<()> {
        sqlx::query("UPDATE notifications SET failed_at = ?, error = ? WHERE id = ?")
            .bind(now())
            .bind(bounded(error))
            .bind(id)
            .execute(&self.writer)
            .await?;
        Ok(())
    }

    /// What was sent about `request`, oldest first.
    pub async fn for_request(&self, request: &RequestRef) -> Result<Vec<NotificationRecord>> {
        let rows: Vec<Row> = sqlx::query_as(concat!(
            "SELECT ",
            notification_columns!(),
            " FROM notifications WHERE request_kind = ? AND request_id = ? ORDER BY created_at, id"
        ))
        .bind(request.kind())
        .bind(request.id())
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(NotificationRecord::try_from).collect()
    }

    /// Whether anything was sent about `request` yet (the dispatcher sends the first round once, across
    /// restarts).
    pub async fn any_for(&self, request: &RequestRef) -> Result<bool> {
        let found = sqlx::query("SELECT 1 FROM notifications WHERE request_kind = ? AND request_id = ? LIMIT 1")
            .bind(request.kind())
            .bind(request.id())
            .fetch_optional(&self.pool)
            .await?;
        Ok(found.is_some())
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use super::*;
    use crate::{NewLink, Reach};
    use warden_types::approval::Verdict;

    #[tokio::test]
    async fn a_notification_is_logged_delivered_and_opened_through_its_link() {
        let dir = tempfile::tempdir().expect("tempdir");
        let url = format!("sqlite://{}", dir.path().join("warden.db").display());
        let database = Database::open(&url).await.expect("database");
        let reach = Reach::open(&database).await.expect("reach");
        let request = RequestRef::Outside("r1".to_string().into());
        let new = NewNotification {
            request: request.clone(),
            person: Some(("p1".to_string().into(), "Ann".into())),
            channel_id: "c1".into(),
            channel_kind: "email".into(),
            channel_name: "Work mail".into(),
            reason: NotificationReason::Request,
            step: 0,
        };
        assert!(!reach.deliveries.any_for(&request).await.expect("any"));
        let id = reach.deliveries.start(&new).await.expect("start");
        let failed =
            reach.deliveries.start(&NewNotification { channel_id: "c2".into(), ..new.clone() }).await.expect("start");
        reach.deliveries.delivered(&id, "250 2.0.0 Ok: queued").await.expect("delivered");
        reach.deliveries.failed(&failed, &"x".repeat(2_000)).await.expect("failed");
        let link = NewLink {
            request: request.clone(),
            person: "p1".to_string().into(),
            intent: Verdict::Deny,
            notification: Some(id.clone()),
            expires_at: SystemTime::now() + Duration::from_secs(60),
        };
        let (_, secret) = reach.links.mint(&link).await.expect("mint");
        let found = reach.links.find(secret.expose()).await.expect("find").expect("found");
        reach.links.mark_opened(&found).await.expect("opened");

        let log = reach.deliveries.for_request(&request).await.expect("log");
        assert_eq!(log.len(), 2);
        let sent = log.iter().find(|n| n.id == id).expect("sent");
        assert_eq!((sent.state(), sent.detail.as_deref()), ("opened", Some("250 2.0.0 Ok: queued")));
        assert_eq!(sent.person_name.as_deref(), Some("Ann"));
        let other = log.iter().find(|n| n.id == failed).expect("failed");
        assert_eq!(other.state(), "failed");
        assert_eq!(other.error.as_deref().map(str::len), Some(MAX_DETAIL_CHARS), "errors are kept bounded");
        assert!(reach.deliveries.any_for(&request).await.expect("any"));
    }
}
