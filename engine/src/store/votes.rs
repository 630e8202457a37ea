//! Votes on routed approvals, one per person, each on the arguments the card showed when they voted. Every
//! function runs in the transaction of the decision it is part of (`approval::lifecycle`), which holds the
//! write lock: the count a decision settles on is the count it wrote.

use serde_json::Value;
use sqlx::{Row, Sqlite, Transaction};
use warden_db::timestamp::now;
use warden_types::approval::Verdict;
use warden_types::id::ApprovalId;
use warden_types::person::ActingPerson;
use warden_types::policy::{Vote, VoteVia};

use super::{from_json, json, Store};
use crate::error::Result;

type Tx = Transaction<'static, Sqlite>;

impl Store {
    /// The arguments a pending approval shows now; `None` once it is settled.
    pub async fn shown_while_pending(tx: &mut Tx, id: &ApprovalId) -> Result<Option<Value>> {
        let shown: Option<String> =
            sqlx::query_scalar("SELECT arguments FROM approvals WHERE id = ? AND status = 'pending'")
                .bind(id)
                .fetch_optional(&mut **tx)
                .await?;
        shown.as_deref().map(from_json).transpose()
    }

    /// Records `person`'s vote; `false` if they had voted on this approval already.
    pub async fn insert_vote(
        tx: &mut Tx,
        id: &ApprovalId,
        person: &ActingPerson,
        verdict: Verdict,
        arguments: &Value,
        via: Option<VoteVia>,
    ) -> Result<bool> {
        let done = sqlx::query(
            "INSERT INTO approval_votes (approval_id, person_id, person, verdict, arguments, at, via) \
             VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (approval_id, person_id) DO NOTHING",
        )
        .bind(id)
        .bind(&person.id)
        .bind(json(person)?)
        .bind(verdict)
        .bind(json(arguments)?)
        .bind(now())
        .bind(via)
        .execute(&mut **tx)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// An approver's edit: the card shows `edited` from now on, and the votes on what it showed before
    /// are dropped (the count starts again).
    pub async fn show_edit(tx: &mut Tx, id: &ApprovalId, edited: &Value) -> Result<()> {
        sqlx::query("UPDATE approvals SET arguments = ? WHERE id = ? AND status = 'pending'")
            .bind(json(edited)?)
            .bind(id)
            .execute(&mut **tx)
            .await?;
        sqlx::query("DELETE FROM approval_votes WHERE approval_id = ?").bind(id).execute(&mut **tx).await?;
        Ok(())
    }

    /// The approval's votes, oldest first.
    pub async fn votes_in(tx: &mut Tx, id: &ApprovalId) -> Result<Vec<Vote>> {
        let rows =
            sqlx::query("SELECT person, verdict, at, via FROM approval_votes WHERE approval_id = ? ORDER BY seq")
                .bind(id)
                .fetch_all(&mut **tx)
                .await?;
        rows.iter()
            .map(|r| {
                Ok(Vote {
                    person: from_json(&r.try_get::<String, _>("person")?)?,
                    verdict: r.try_get("verdict")?,
                    at: r.try_get("at")?,
                    via: r.try_get("via")?,
                })
            })
            .collect()
    }
}
