//! Outside clients, requests and the global policy in SQLite. warden-outside owns its tables and
//! migrations (`outside/migrations`, recorded in `_warden_outside_migrations`) on the database file
//! the engine shares. A request is one row per (client, client's id); deciding is one conditional
//! UPDATE (`WHERE status = 'pending'`), so of any number of deciders exactly one wins.

pub use warden_db::timestamp::{at, now};

use sqlx::migrate::Migrator;
use sqlx::sqlite::SqliteRow;
use sqlx::{FromRow, Row, SqlitePool};
use warden_db::Database;
use warden_types::cursor::AuditCursor;
use warden_types::id::{ClientId, OutsideRequestId, PersonId, ThreadId, ToolCallId};

use crate::error::{Error, Result};
use crate::policy::{ClientPolicy, Policy};
use crate::protocol::{ClientFrame, DeciderKind, DecisionFrame, RiskLevel};
use crate::record::{Client, Decision, LinkedCall, OutsideRequest, RequestQuery, RequestStatus};
use warden_types::policy::{ApprovalRoute, Vote};

/// Where warden-outside's migrations are recorded, apart from the engine's and warden-mcp's.
pub const MIGRATIONS_TABLE: &str = "_warden_outside_migrations";

/// Default and largest page of the inbox list.
const DEFAULT_LIMIT: u32 = 100;
const MAX_LIMIT: u32 = 500;
/// Most undelivered decisions read at once (a connection sends them page by page).
pub const UNDELIVERED_PAGE: u32 = 500;
/// Largest read of decided requests for the audit log (a page of 500 and the one after it, at least).
const MAX_DECIDED_LIMIT: u32 = 1000;

/// warden-outside's handle on its tables.
#[derive(Debug, Clone)]
pub struct Store {
    /// Reads.
    pool: SqlitePool,
    /// Writes: the database's one writer connection (see `Database`).
    writer: SqlitePool,
}

/// A request to store.
pub struct NewRequest<'a> {
    pub id: &'a OutsideRequestId,
    pub client_id: &'a ClientId,
    pub frame: &'a ClientFrame,
    pub follows: Option<&'a OutsideRequestId>,
    pub timeout_secs: u64,
    pub expires_at: &'a str,
    /// Set when a policy decided it on arrival.
    pub decision: Option<(RequestStatus, &'a Decision)>,
    /// The running call of Warden's own runs it belongs to.
    pub linked_call: Option<&'a LinkedCall>,
    /// Who decides it, when it waits for a person and an approval policy routed it.
    pub route: Option<&'a ApprovalRoute>,
}

/// A person's vote that does not settle a request: the votes and shown code after it.
pub struct Votes<'a> {
    pub votes: &'a [Vote],
    pub shown_code: Option<&'a str>,
}

/// What storing a request did.
pub enum Inserted {
    New(OutsideRequest),
    /// The client sent this id before with the same request: that one, as it is now.
    Existing(OutsideRequest),
}

/// The columns `request_from_row` reads (SQL text must be static: `concat!` it).
macro_rules! select_request {
    () => {
        "SELECT r.id, r.client_id, c.name AS client_name, c.created_by AS asked_by, r.client_request_id, r.kind, r.payload, r.risk, \
         r.follows, r.status, r.decision, r.created_at, r.expires_at, r.decided_at, r.delivered_at, \
         r.linked_call_id, r.linked_thread_id, r.route, r.votes, r.shown_code, r.revision \
         FROM outside_requests r JOIN outside_clients c ON c.id = r.client_id"
    };
}

impl Store {
    /// Applies warden-outside's pending migrations to `database` and keeps it.
    pub async fn open(database: &Database) -> Result<Self> {
        migrator().run(database.writer()).await?;
        Ok(Self { pool: database.pool().clone(), writer: database.writer().clone() })
    }

    pub async fn insert_client(&self, client: &Client, token_hash: &str) -> Result<()> {
        sqlx::query(
            "INSERT INTO outside_clients (id, name, token_hash, policy, created_at, created_by) VALUES (?, ?, ?, ?, ?, ?)",
        )
        .bind(&client.id)
        .bind(&client.name)
        .bind(token_hash)
        .bind(json(&client.policy)?)
        .bind(&client.created_at)
        .bind(&client.created_by)
            .execute(&self.writer)
            .await?;
        Ok(())
    }

    /// Every client, revoked ones too, oldest first.
    pub async fn clients(&self) -> Result<Vec<Client>> {
        let rows = sqlx::query(
            "SELECT id, name, policy, created_at, revoked_at, created_by FROM outside_clients ORDER BY created_at, id",
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(Client::from_row).collect::<Result<_, _>>()?)
    }

    pub async fn client(&self, id: &ClientId) -> Result<Option<Client>> {
        let row = sqlx::query(
            "SELECT id, name, policy, created_at, revoked_at, created_by FROM outside_clients WHERE id = ?",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.as_ref().map(Client::from_row).transpose()?)
    }

    pub async fn client_by_token_hash(&self, token_hash: &str) -> Result<Option<Client>> {
        let row = sqlx::query(
            "SELECT id, name, policy, created_at, revoked_at, created_by FROM outside_clients WHERE token_hash = ?",
        )
        .bind(token_hash)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.as_ref().map(Client::from_row).transpose()?)
    }

    /// Gives every client registered before Warden knew people to `owner`; how many it gave.
    pub async fn adopt_unowned_clients(&self, owner: &PersonId) -> Result<u64> {
        let done = sqlx::query("UPDATE outside_clients SET created_by = ? WHERE created_by IS NULL")
            .bind(owner)
            .execute(&self.writer)
            .await?;
        Ok(done.rows_affected())
    }

    /// Returns whether a client that was not revoked is now.
    pub async fn revoke_client(&self, id: &ClientId) -> Result<bool> {
        let done = sqlx::query("UPDATE outside_clients SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL")
            .bind(now())
            .bind(id)
            .execute(&self.writer)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Returns whether the client exists.
    pub async fn set_client_policy(&self, id: &ClientId, policy: &ClientPolicy) -> Result<bool> {
        let done = sqlx::query("UPDATE outside_clients SET policy = ? WHERE id = ?")
            .bind(json(policy)?)
            .bind(id)
            .execute(&self.writer)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// The global policy (the default one until it is set).
    pub async fn policy(&self) -> Result<Policy> {
        let value: Option<String> = sqlx::query_scalar("SELECT value FROM outside_settings WHERE key = 'policy'")
            .fetch_optional(&self.pool)
            .await?;
        value.as_deref().map(from_json).transpose().map(Option::unwrap_or_default)
    }

    pub async fn set_policy(&self, policy: &Policy) -> Result<()> {
        sqlx::query(
            "INSERT INTO outside_settings (key, value) VALUES ('policy', ?) \
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        )
        .bind(json(policy)?)
        .execute(&self.writer)
        .await?;
        Ok(())
    }

    /// Stores a request unless the client sent the same id before: then the stored one comes back
    /// if it is the same request, and [`Error::IdReused`] if it is not.
    pub async fn insert_request(&self, new: NewRequest<'_>) -> Result<Inserted> {
        let created_at = now();
        let (status, decision) = match new.decision {
            Some((status, decision)) => (status, Some(decision)),
            None => (RequestStatus::Pending, None),
        };
        let done = sqlx::query(
            "INSERT INTO outside_requests (id, client_id, client_request_id, kind, payload, risk, follows, status, \
               decision, decided_by, timeout_secs, created_at, expires_at, decided_at, linked_call_id, \
               linked_thread_id, route) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) \
             ON CONFLICT (client_id, client_request_id) DO NOTHING",
        )
        .bind(new.id)
        .bind(new.client_id)
        .bind(new.frame.id())
        .bind(new.frame.kind().to_string())
        .bind(json(new.frame)?)
        .bind(new.frame.risk().map(|r| r.to_string()))
        .bind(new.follows)
        .bind(status.to_string())
        .bind(decision.map(json).transpose()?)
        .bind(decision.map(|d| d.decided_by.kind.to_string()))
        .bind(i64::try_from(new.timeout_secs).unwrap_or(i64::MAX))
        .bind(&created_at)
        .bind(new.expires_at)
        .bind(decision.map(|_| created_at.clone()))
        .bind(new.linked_call.map(|l| l.call_id.as_str()))
        .bind(new.linked_call.map(|l| l.thread_id.as_str()))
        .bind(new.route.map(json).transpose()?)
        .execute(&self.writer)
        .await?;
        let stored = self
            .request_of_client(new.client_id, new.frame.id())
            .await?
            .ok_or_else(|| Error::Corrupt(format!("request `{}` vanished after insertion", new.id)))?;
        if done.rows_affected() > 0 {
            return Ok(Inserted::New(stored));
        }
        if stored.request != *new.frame {
            return Err(Error::IdReused(new.frame.id().to_string()));
        }
        Ok(Inserted::Existing(stored))
    }

    pub async fn request(&self, id: &OutsideRequestId) -> Result<Option<OutsideRequest>> {
        let row =
            sqlx::query(concat!(select_request!(), " WHERE r.id = ?")).bind(id).fetch_optional(&self.pool).await?;
        row.as_ref().map(request_from_row).transpose()
    }

    pub async fn request_of_client(
        &self,
        client_id: &ClientId,
        client_request_id: &str,
    ) -> Result<Option<OutsideRequest>> {
        let row = sqlx::query(concat!(select_request!(), " WHERE r.client_id = ? AND r.client_request_id = ?"))
            .bind(client_id)
            .bind(client_request_id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(request_from_row).transpose()
    }

    /// Records the decision if the request is still pending; returns whether it was.
    pub async fn decide(&self, id: &OutsideRequestId, status: RequestStatus, decision: &Decision) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE outside_requests SET status = ?, decision = ?, decided_by = ?, decided_at = ? \
             WHERE id = ? AND status = 'pending'",
        )
        .bind(status.to_string())
        .bind(json(decision)?)
        .bind(decision.decided_by.kind.to_string())
        .bind(now())
        .bind(id)
        .execute(&self.writer)
        .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Writes a person's vote: the votes and shown code after it, and the decision when it settles the
    /// request (`None`: it still waits), if the request is still pending and no vote was written since
    /// `revision` (the votes this one counted); returns whether both held.
    pub async fn write_vote(
        &self,
        id: &OutsideRequestId,
        revision: i64,
        votes: Votes<'_>,
        settles: Option<(RequestStatus, &Decision)>,
    ) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE outside_requests SET status = COALESCE(?1, status), decision = COALESCE(?2, decision), \
               decided_by = COALESCE(?3, decided_by), decided_at = COALESCE(?4, decided_at), votes = ?5, \
               shown_code = ?6, revision = revision + 1 \
             WHERE id = ?7 AND status = 'pending' AND revision = ?8",
        )
        .bind(settles.map(|(status, _)| status.to_string()))
        .bind(settles.map(|(_, decision)| json(decision)).transpose()?)
        .bind(settles.map(|(_, decision)| decision.decided_by.kind.to_string()))
        .bind(settles.map(|_| now()))
        .bind(json(votes.votes)?)
        .bind(votes.shown_code)
        .bind(id)
        .bind(revision)
        .execute(&self.writer)
        .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Moves a pending request's deadline to `expires_at`; returns whether it was pending.
    pub async fn extend(&self, id: &OutsideRequestId, expires_at: &str, timeout_secs: u64) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE outside_requests SET expires_at = ?, timeout_secs = ? WHERE id = ? AND status = 'pending'",
        )
        .bind(expires_at)
        .bind(i64::try_from(timeout_secs).unwrap_or(i64::MAX))
        .bind(id)
        .execute(&self.writer)
        .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Pending requests whose deadline is at or before `at`, with their timeouts.
    pub async fn due(&self, at: &str) -> Result<Vec<(OutsideRequestId, u64)>> {
        let rows: Vec<(OutsideRequestId, i64)> = sqlx::query_as(
            "SELECT id, timeout_secs FROM outside_requests WHERE status = 'pending' AND expires_at <= ? \
             ORDER BY expires_at",
        )
        .bind(at)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().map(|(id, secs)| (id, u64::try_from(secs).unwrap_or(0))).collect())
    }

    /// The earliest deadline of a pending request.
    pub async fn next_expiry(&self) -> Result<Option<String>> {
        Ok(sqlx::query_scalar("SELECT MIN(expires_at) FROM outside_requests WHERE status = 'pending'")
            .fetch_one(&self.pool)
            .await?)
    }

    /// The decision frames of the client's decided requests that have not gone out yet, oldest
    /// decision first, at most [`UNDELIVERED_PAGE`]: those after the request `after` (Warden's id, the
    /// last one of the page before) when given. Reads only what a decision frame needs, not the
    /// stored request.
    pub async fn undelivered(
        &self,
        client_id: &ClientId,
        after: Option<&OutsideRequestId>,
    ) -> Result<Vec<DecisionFrame>> {
        let rows: Vec<(OutsideRequestId, String, String)> = sqlx::query_as(
            "SELECT r.id, r.client_request_id, r.decision FROM outside_requests r \
             WHERE r.client_id = ?1 AND r.decided_at IS NOT NULL AND r.delivered_at IS NULL \
             AND r.decision IS NOT NULL \
             AND (?2 IS NULL OR (r.decided_at, r.id) > (SELECT a.decided_at, a.id FROM outside_requests a WHERE a.id = ?2)) \
             ORDER BY r.decided_at, r.id LIMIT ?3",
        )
        .bind(client_id)
        .bind(after)
        .bind(UNDELIVERED_PAGE)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(|(request_id, id, decision)| {
                let d: Decision = from_json(&decision)?;
                Ok(DecisionFrame {
                    id,
                    request_id,
                    decision: d.decision,
                    reason: d.reason,
                    edited_code: d.edited_code,
                    decided_by: d.decided_by,
                })
            })
            .collect()
    }

    pub async fn mark_delivered(&self, id: &OutsideRequestId) -> Result<()> {
        sqlx::query("UPDATE outside_requests SET delivered_at = ? WHERE id = ? AND delivered_at IS NULL")
            .bind(now())
            .bind(id)
            .execute(&self.writer)
            .await?;
        Ok(())
    }

    /// Decided requests for the audit log, newest decision first: those decided before `before`
    /// (`decided_at`, `id`), with `status` and decided by `decided_by` when given.
    pub async fn decided(
        &self,
        status: Option<RequestStatus>,
        decided_by: Option<DeciderKind>,
        before: Option<&AuditCursor>,
        limit: u32,
    ) -> Result<Vec<OutsideRequest>> {
        let rows = sqlx::query(concat!(
            select_request!(),
            " WHERE r.decided_at IS NOT NULL AND (?1 IS NULL OR r.status = ?1) \
             AND (?2 IS NULL OR r.decided_by = ?2) \
             AND (?3 IS NULL OR r.decided_at < ?3 OR (r.decided_at = ?3 AND r.id < ?4)) \
             ORDER BY r.decided_at DESC, r.id DESC LIMIT ?5"
        ))
        .bind(status.map(|s| s.to_string()))
        .bind(decided_by.map(|d| d.to_string()))
        .bind(before.map(AuditCursor::at))
        .bind(before.map(AuditCursor::id))
        .bind(limit.clamp(1, MAX_DECIDED_LIMIT))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(request_from_row).collect()
    }

    /// Requests as the inbox lists them, newest first.
    /// Every pending request's route and the thread of the call it is on (`None`: shown apart), for
    /// counting what waits for each person.
    pub async fn pending_routes(&self) -> Result<Vec<(Option<ApprovalRoute>, Option<ThreadId>)>> {
        let rows: Vec<(Option<String>, Option<ThreadId>)> =
            sqlx::query_as("SELECT route, linked_thread_id FROM outside_requests WHERE status = 'pending'")
                .fetch_all(&self.pool)
                .await?;
        rows.into_iter().map(|(route, thread)| Ok((route.as_deref().map(from_json).transpose()?, thread))).collect()
    }

    /// How many requests have `status` (all of them, not a page).
    pub async fn count(&self, status: RequestStatus) -> Result<u64> {
        let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM outside_requests WHERE status = ?")
            .bind(status.to_string())
            .fetch_one(&self.pool)
            .await?;
        Ok(u64::try_from(count).unwrap_or(0))
    }

    /// How many of the client's requests wait for a person.
    pub async fn pending_of_client(&self, client_id: &ClientId) -> Result<u64> {
        let count: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM outside_requests WHERE client_id = ? AND status = 'pending'")
                .bind(client_id)
                .fetch_one(&self.pool)
                .await?;
        Ok(u64::try_from(count).unwrap_or(0))
    }

    /// How many pending requests are linked to calls of each thread, for the threads that have any.
    pub async fn pending_linked_by_thread(&self) -> Result<Vec<(ThreadId, u64)>> {
        let rows: Vec<(ThreadId, i64)> = sqlx::query_as(
            "SELECT linked_thread_id, COUNT(*) FROM outside_requests \
             WHERE linked_thread_id IS NOT NULL AND status = 'pending' GROUP BY linked_thread_id",
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().map(|(thread, n)| (thread, u64::try_from(n).unwrap_or(0))).collect())
    }

    /// The pending requests linked to a call of Warden's runs, or to `call` alone: (request id, call id).
    pub async fn pending_linked(&self, call: Option<&ToolCallId>) -> Result<Vec<(OutsideRequestId, ToolCallId)>> {
        // Both read the partial index of pending linked requests (a comparison implies IS NOT NULL).
        let query = match call {
            Some(call) => sqlx::query_as(
                "SELECT id, linked_call_id FROM outside_requests WHERE linked_call_id = ? AND status = 'pending'",
            )
            .bind(call.to_string()),
            None => sqlx::query_as(
                "SELECT id, linked_call_id FROM outside_requests \
                 WHERE linked_call_id IS NOT NULL AND status = 'pending'",
            ),
        };
        Ok(query.fetch_all(&self.pool).await?)
    }

    /// The requests linked to calls of the thread, oldest first.
    pub async fn linked_to_thread(&self, thread_id: &ThreadId) -> Result<Vec<OutsideRequest>> {
        let rows = sqlx::query(concat!(
            select_request!(),
            " WHERE r.linked_thread_id = ? ORDER BY r.created_at, r.id LIMIT ?"
        ))
        .bind(thread_id)
        .bind(MAX_LIMIT)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(request_from_row).collect()
    }

    pub async fn list(&self, query: &RequestQuery) -> Result<Vec<OutsideRequest>> {
        let limit = query.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT);
        if let (Some(status), Some(client_id)) = (query.status, query.client_id.as_ref()) {
            // One client's requests of one status (the inbox asks so): read through
            // `outside_requests_by_client`, whatever the client's other requests.
            let rows = sqlx::query(concat!(
                select_request!(),
                " WHERE r.client_id = ?1 AND r.status = ?2 AND (?3 IS NULL OR (r.linked_call_id IS NOT NULL) = ?3) \
                 ORDER BY r.created_at DESC, r.id DESC LIMIT ?4"
            ))
            .bind(client_id)
            .bind(status.to_string())
            .bind(query.linked)
            .bind(limit)
            .fetch_all(&self.pool)
            .await?;
            return rows.iter().map(request_from_row).collect();
        }
        let rows = sqlx::query(concat!(
            select_request!(),
            " WHERE (?1 IS NULL OR r.status = ?1) AND (?2 IS NULL OR r.client_id = ?2) \
             AND (?3 IS NULL OR (r.linked_call_id IS NOT NULL) = ?3) \
             ORDER BY r.created_at DESC, r.id DESC LIMIT ?4"
        ))
        .bind(query.status.map(|s| s.to_string()))
        .bind(query.client_id.as_ref())
        .bind(query.linked)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(request_from_row).collect()
    }
}

fn request_from_row(r: &SqliteRow) -> Result<OutsideRequest> {
    let decision: Option<String> = r.try_get("decision")?;
    let risk: Option<String> = r.try_get("risk")?;
    let request = from_json(&r.try_get::<String, _>("payload")?)?;
    Ok(OutsideRequest {
        warden_risk: crate::record::warden_risk(&request),
        id: r.try_get("id")?,
        client_id: r.try_get("client_id")?,
        client_name: r.try_get("client_name")?,
        asked_by: r.try_get("asked_by")?,
        client_request_id: r.try_get("client_request_id")?,
        kind: parse(&r.try_get::<String, _>("kind")?)?,
        request,
        risk: risk.as_deref().map(parse::<RiskLevel>).transpose()?,
        follows: r.try_get("follows")?,
        status: parse(&r.try_get::<String, _>("status")?)?,
        decision: decision.as_deref().map(from_json).transpose()?,
        created_at: r.try_get("created_at")?,
        expires_at: r.try_get("expires_at")?,
        decided_at: r.try_get("decided_at")?,
        delivered_at: r.try_get("delivered_at")?,
        linked_call: match (r.try_get::<Option<ToolCallId>, _>("linked_call_id")?, r.try_get("linked_thread_id")?) {
            (Some(call_id), Some(thread_id)) => Some(LinkedCall { call_id, thread_id }),
            _ => None,
        },
        route: r.try_get::<Option<String>, _>("route")?.as_deref().map(from_json).transpose()?,
        votes: from_json(&r.try_get::<String, _>("votes")?)?,
        shown_code: r.try_get("shown_code")?,
        revision: r.try_get("revision")?,
    })
}

fn migrator() -> Migrator {
    let mut migrator = sqlx::migrate!("./migrations");
    migrator.dangerous_set_table_name(MIGRATIONS_TABLE);
    migrator
}

fn json<T: serde::Serialize + ?Sized>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::Corrupt(e.to_string()))
}

fn from_json<T: serde::de::DeserializeOwned>(text: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|e| Error::Corrupt(e.to_string()))
}

fn parse<T: std::str::FromStr>(text: &str) -> Result<T> {
    text.parse().map_err(|_| Error::Corrupt(format!("unknown stored value `{text}`")))
}
