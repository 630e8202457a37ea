//! The policies' table, and the list the engine routes by: read once, kept in memory, read again after
//! every change (all changes go through here), so routing a card reads no row.

use std::sync::{Arc, RwLock};

use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqlitePool};
use warden_db::timestamp::now;
use warden_db::Database;
use warden_types::id::PolicyId;
use warden_types::policy::{ApprovalRoute, Policy, PolicyInput};

use crate::checks::{check, Checked};
use crate::matching::{route_for, Request};
use crate::{Error, Result};

/// The policies of one Warden, on the database every part shares. Cheap to clone.
#[derive(Clone)]
pub struct Policies {
    pool: SqlitePool,
    writer: SqlitePool,
    listed: Arc<RwLock<Arc<Vec<Policy>>>>,
}

const SELECT: &str = "SELECT id, name, position, match_json, approvers, quorum, self_approval, timeout_secs, \
                      created_at, updated_at FROM policies";

fn policy_from_row(r: &SqliteRow) -> Result<Policy> {
    let json = |column: &str| -> Result<String> { Ok(r.try_get::<String, _>(column)?) };
    Ok(Policy {
        id: r.try_get("id")?,
        name: r.try_get("name")?,
        position: u32::try_from(r.try_get::<i64, _>("position")?).unwrap_or(u32::MAX),
        matches: serde_json::from_str(&json("match_json")?)?,
        approvers: serde_json::from_str(&json("approvers")?)?,
        quorum: u32::try_from(r.try_get::<i64, _>("quorum")?).unwrap_or(1),
        self_approval: r.try_get("self_approval")?,
        timeout_secs: r.try_get::<Option<i64>, _>("timeout_secs")?.and_then(|t| u64::try_from(t).ok()),
        created_at: r.try_get("created_at")?,
        updated_at: r.try_get("updated_at")?,
    })
}

impl Policies {
    /// Applies this crate's migrations to `database` and reads the policies.
    pub async fn open(database: &Database) -> Result<Self> {
        crate::migrator().run(database.writer()).await?;
        let policies =
            Self { pool: database.pool().clone(), writer: database.writer().clone(), listed: Arc::default() };
        policies.reload().await?;
        Ok(policies)
    }

    async fn reload(&self) -> Result<()> {
        let rows =
            sqlx::query(sqlx::AssertSqlSafe(format!("{SELECT} ORDER BY position, id"))).fetch_all(&self.writer).await?;
        let list = rows.iter().map(policy_from_row).collect::<Result<Vec<_>>>()?;
        *self.listed.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(list);
        Ok(())
    }

    /// Every policy, in the order they are tried.
    pub fn list(&self) -> Arc<Vec<Policy>> {
        self.listed.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// How `request` is routed now: the first matching policy, copied, or the unrouted default.
    pub fn route(&self, request: &Request<'_>) -> ApprovalRoute {
        route_for(&self.list(), request)
    }

    pub async fn get(&self, id: &PolicyId) -> Result<Policy> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!("{SELECT} WHERE id = ?")))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| Error::NotFound(id.to_string()))?;
        policy_from_row(&row)
    }

    /// Adds a policy after the others (tried last).
    pub async fn create(&self, input: PolicyInput) -> Result<Policy> {
        let Checked { input, self_approval } = check(input).map_err(Error::Invalid)?;
        let (id, at) = (PolicyId::new(), now());
        sqlx::query(
            "INSERT INTO policies (id, name, position, match_json, approvers, quorum, self_approval, timeout_secs, \
             created_at, updated_at) \
             VALUES (?, ?, (SELECT COALESCE(MAX(position), -1) + 1 FROM policies), ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&id)
        .bind(&input.name)
        .bind(serde_json::to_string(&input.matches)?)
        .bind(serde_json::to_string(&input.approvers)?)
        .bind(i64::from(input.quorum))
        .bind(self_approval)
        .bind(input.timeout_secs.and_then(|t| i64::try_from(t).ok()))
        .bind(&at)
        .bind(&at)
        .execute(&self.writer)
        .await?;
        self.reload().await?;
        self.get(&id).await
    }

    /// Replaces a policy's name, conditions, approvers and rules (its place in the order stays). Cards
    /// already waiting keep the route they were given.
    pub async fn update(&self, id: &PolicyId, input: PolicyInput) -> Result<Policy> {
        let Checked { input, self_approval } = check(input).map_err(Error::Invalid)?;
        let changed = sqlx::query(
            "UPDATE policies SET name = ?, match_json = ?, approvers = ?, quorum = ?, self_approval = ?, \
             timeout_secs = ?, updated_at = ? WHERE id = ?",
        )
        .bind(&input.name)
        .bind(serde_json::to_string(&input.matches)?)
        .bind(serde_json::to_string(&input.approvers)?)
        .bind(i64::from(input.quorum))
        .bind(self_approval)
        .bind(input.timeout_secs.and_then(|t| i64::try_from(t).ok()))
        .bind(now())
        .bind(id)
        .execute(&self.writer)
        .await?
        .rows_affected();
        if changed == 0 {
            return Err(Error::NotFound(id.to_string()));
        }
        self.reload().await?;
        self.get(id).await
    }

    pub async fn delete(&self, id: &PolicyId) -> Result<()> {
        let deleted = sqlx::query("DELETE FROM policies WHERE id = ?").bind(id).execute(&self.writer).await?;
        if deleted.rows_affected() == 0 {
            return Err(Error::NotFound(id.to_string()));
        }
        self.reload().await
    }

    /// Puts the policies in the order of `ids`, which must name each of them once.
    pub async fn reorder(&self, ids: &[PolicyId]) -> Result<Arc<Vec<Policy>>> {
        let mut tx = self.writer.begin().await?;
        let mut stored: Vec<PolicyId> = sqlx::query_scalar("SELECT id FROM policies").fetch_all(&mut *tx).await?;
        let mut given = ids.to_vec();
        stored.sort();
        given.sort();
        if stored != given {
            return Err(Error::Invalid("name every policy once, in the order they are to be tried".into()));
        }
        for (position, id) in ids.iter().enumerate() {
            sqlx::query("UPDATE policies SET position = ? WHERE id = ?")
                .bind(i64::try_from(position).unwrap_or(i64::MAX))
                .bind(id)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        self.reload().await?;
        Ok(self.list())
    }
}
