//! Message rows: the conversation in thread order, content blocks stored as JSON.

use sqlx::sqlite::SqliteRow;
use sqlx::Row;
use warden_types::id::{MessageId, RunId, ThreadId};

use warden_db::timestamp::now;

use super::{from_json, json, Store, WriteBatch};
use crate::branches::Link;
use crate::error::{Error, Result};
use warden_types::message::{Block, Message, Role};
use warden_types::thread::StoredMessage;

/// A message as stored, without the HTML it is shown as (`crate::shown` renders that).
fn record_from_row(r: &SqliteRow) -> Result<StoredMessage> {
    let blocks: Vec<Block> = from_json(&r.try_get::<String, _>("blocks")?)?;
    let content = Message { role: Role::User, content: blocks.clone() }.joined_text();
    Ok(StoredMessage {
        id: r.try_get("id")?,
        run_id: r.try_get("run_id")?,
        role: r.try_get("role")?,
        html: None,
        content,
        blocks,
        created_at: r.try_get("created_at")?,
    })
}

impl Store {
    /// Appends a message to a thread: its statements go into `batch`, which the caller runs as (or in) a
    /// transaction.
    pub fn insert_message(
        batch: &mut WriteBatch,
        thread_id: &ThreadId,
        run_id: Option<&RunId>,
        role: Role,
        blocks: &[Block],
    ) -> Result<StoredMessage> {
        let id = MessageId::new();
        let ts = now();
        let content = Message { role, content: blocks.to_vec() }.joined_text();
        // It follows the thread's head (the end of the chosen branch), and becomes the head; a new
        // message is the thread's latest activity too (the list is ordered by it).
        batch
            .push(
                "INSERT INTO messages (id, thread_id, run_id, position, role, blocks, created_at, parent_id) \
                 VALUES (?, ?, ?, (SELECT COALESCE(MAX(position), 0) + 1 FROM messages WHERE thread_id = ?), ?, ?, ?, \
                         (SELECT head_id FROM threads WHERE id = ?)); \
                 UPDATE threads SET head_id = ?, updated_at = ? WHERE id = ?",
            )
            .bind(&id)
            .bind(thread_id)
            .bind(run_id)
            .bind(thread_id)
            .bind(role)
            .bind(json(&blocks)?)
            .bind(&ts)
            .bind(thread_id)
            .bind(&id)
            .bind(&ts)
            .bind(thread_id);
        Ok(StoredMessage {
            id,
            run_id: run_id.cloned(),
            role,
            html: None,
            content,
            blocks: blocks.to_vec(),
            created_at: ts,
        })
    }

    /// The thread's chosen branch: from its first message to its head, in order, as stored (no HTML):
    /// what the engine reads, for the model's conversation, a title or a connection check.
    pub async fn messages(&self, thread_id: &ThreadId) -> Result<Vec<StoredMessage>> {
        self.branch_rows(thread_id).await?.iter().map(record_from_row).collect()
    }

    /// Up to `limit` messages of the chosen branch, as stored (no HTML: a page renders the ones it
    /// keeps with [`shown`]), the newest ones, or the ones just before `before` (a message of the
    /// thread), in order. The walk up the branch stops after `limit`, so a long thread costs only
    /// what is read.
    pub async fn branch_before(
        &self,
        thread_id: &ThreadId,
        before: Option<&MessageId>,
        limit: usize,
    ) -> Result<Vec<StoredMessage>> {
        self.path_rows(thread_id, before, limit).await?.iter().map(record_from_row).collect()
    }

    async fn branch_rows(&self, thread_id: &ThreadId) -> Result<Vec<SqliteRow>> {
        self.path_rows(thread_id, None, usize::MAX).await
    }

    /// The branch from its head (or from `before`'s parent) up towards its first message, at most
    /// `limit` rows, returned oldest first.
    async fn path_rows(
        &self,
        thread_id: &ThreadId,
        before: Option<&MessageId>,
        limit: usize,
    ) -> Result<Vec<SqliteRow>> {
        Ok(sqlx::query(
            "WITH RECURSIVE path (id, depth) AS ( \
               SELECT head_id, 0 FROM threads WHERE ?2 IS NULL AND id = ?1 AND head_id IS NOT NULL \
               UNION ALL \
               SELECT parent_id, 0 FROM messages WHERE ?2 IS NOT NULL AND id = ?2 AND thread_id = ?1 \
                 AND parent_id IS NOT NULL \
               UNION ALL \
               SELECT m.parent_id, path.depth + 1 FROM messages m JOIN path ON m.id = path.id \
               WHERE m.parent_id IS NOT NULL AND m.thread_id = ?1 AND path.depth + 1 < ?3 \
             ) \
             SELECT m.id, m.run_id, m.role, m.blocks, m.created_at FROM path JOIN messages m ON m.id = path.id \
             WHERE ?3 > 0 ORDER BY path.depth DESC",
        )
        .bind(thread_id)
        .bind(before)
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .fetch_all(&self.pool)
        .await?)
    }

    /// How far `message_id` is from the head of the thread's chosen branch (0: the head), if it is
    /// on that branch within `max` messages of the head.
    pub async fn depth_on_branch(
        &self,
        thread_id: &ThreadId,
        message_id: &MessageId,
        max: usize,
    ) -> Result<Option<usize>> {
        let depth: Option<i64> = sqlx::query_scalar(
            "WITH RECURSIVE path (id, depth) AS ( \
               SELECT head_id, 0 FROM threads WHERE id = ?1 AND head_id IS NOT NULL \
               UNION ALL \
               SELECT m.parent_id, path.depth + 1 FROM messages m JOIN path ON m.id = path.id \
               WHERE m.parent_id IS NOT NULL AND m.thread_id = ?1 AND path.id != ?2 AND path.depth + 1 < ?3 \
             ) \
             SELECT depth FROM path WHERE id = ?2",
        )
        .bind(thread_id)
        .bind(message_id)
        .bind(i64::try_from(max).unwrap_or(i64::MAX))
        .fetch_optional(&self.pool)
        .await?;
        Ok(depth.and_then(|d| usize::try_from(d).ok()))
    }

    /// Whether `id` is a message of the thread (on any branch).
    pub async fn has_message(&self, thread_id: &ThreadId, id: &MessageId) -> Result<bool> {
        Ok(sqlx::query("SELECT 1 FROM messages WHERE id = ? AND thread_id = ?")
            .bind(id)
            .bind(thread_id)
            .fetch_optional(&self.pool)
            .await?
            .is_some())
    }

    /// Every message of the thread, on any branch, with its parent, in the order written (as records:
    /// no HTML rendered).
    pub async fn messages_on_every_branch(
        &self,
        thread_id: &ThreadId,
    ) -> Result<Vec<(StoredMessage, Option<MessageId>)>> {
        let rows = sqlx::query(
            "SELECT id, run_id, role, blocks, created_at, parent_id FROM messages WHERE thread_id = ? ORDER BY position",
        )
        .bind(thread_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(|r| Ok((record_from_row(r)?, r.try_get("parent_id")?))).collect()
    }

    /// The part of the thread's tree that says which of `ids` have other versions: every message
    /// whose parent is the parent of one of them (the first messages of the thread, for one that
    /// has none), as `(id, parent_id, role)` in the order written. A page of a long thread reads
    /// these instead of the whole tree.
    pub async fn versions_of(&self, thread_id: &ThreadId, ids: &[&MessageId]) -> Result<Vec<Link>> {
        Ok(sqlx::query_as(VERSIONS_OF).bind(thread_id).bind(json(&ids)?).fetch_all(&self.pool).await?)
    }

    /// Every message of the thread, on any branch, as `(id, parent_id, role)` in the order written.
    pub async fn message_tree(&self, thread_id: &ThreadId) -> Result<Vec<Link>> {
        Ok(sqlx::query_as("SELECT id, parent_id, role FROM messages WHERE thread_id = ? ORDER BY position")
            .bind(thread_id)
            .fetch_all(&self.pool)
            .await?)
    }

    /// The last message of the thread's chosen branch (`None`: no message yet).
    pub async fn head(&self, thread_id: &ThreadId) -> Result<Option<MessageId>> {
        sqlx::query_scalar("SELECT head_id FROM threads WHERE id = ?")
            .bind(thread_id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| Error::not_found("thread", thread_id))
    }

    /// Chooses the branch that ends at `head` (`None`: before the first message).
    pub async fn set_head(&self, thread_id: &ThreadId, head: Option<&MessageId>) -> Result<()> {
        let mut batch = WriteBatch::new();
        Self::set_head_in(&mut batch, thread_id, head);
        self.commit(batch).await?;
        Ok(())
    }

    pub(super) fn set_head_in(batch: &mut WriteBatch, thread_id: &ThreadId, head: Option<&MessageId>) {
        batch.push("UPDATE threads SET head_id = ? WHERE id = ?").bind(head).bind(thread_id);
    }
}

/// `versions_of`: from each shown message (by id) to its parent's children (`IS`: the first messages
/// of the thread share a NULL parent). CROSS JOIN keeps that order: left to itself SQLite walked the
/// thread's every message in position order to spare the sort of the few it returns.
const VERSIONS_OF: &str = "SELECT m.id, m.parent_id, m.role FROM json_each(?2) AS shown \
     CROSS JOIN messages s ON s.id = shown.value AND s.thread_id = ?1 \
     CROSS JOIN messages m ON m.thread_id = ?1 AND m.parent_id IS s.parent_id \
     ORDER BY m.position";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::test_db;

    /// A page's message versions are looked up from its messages, not by walking the thread.
    #[tokio::test]
    async fn the_versions_of_a_pages_messages_are_found_by_index() {
        let (_dir, store) = test_db::store().await;
        let explained = sqlx::query(sqlx::AssertSqlSafe(format!("EXPLAIN QUERY PLAN {VERSIONS_OF}")));
        let plan = test_db::plan(&store, explained.bind("t").bind("[]")).await;
        assert_eq!(
            plan,
            [
                "SCAN shown VIRTUAL TABLE INDEX 1:",
                "SEARCH s USING INDEX sqlite_autoindex_messages_1 (id=?)",
                "SEARCH m USING INDEX messages_by_parent (thread_id=? AND parent_id=?)",
                "USE TEMP B-TREE FOR ORDER BY"
            ],
            "the plan: {plan:?}"
        );
    }
}
