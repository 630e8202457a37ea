//! A thread imported from its JSON export, written in one transaction under new ids (the same file
//! imported twice makes two threads, and no id of the file can touch a record of this server).
//!
//! What arrives is a record of what happened elsewhere, never something to act on: every run is
//! finished, a call that had not ended is cancelled, an approval that was waiting is cancelled (none
//! can be decided here), no thread rule is carried over, and the thread is marked imported so the
//! audit log of this server leaves its decisions out. The checks on the file are the engine's
//! (`transfer`); here the ids are mapped and the rows written.

use std::collections::HashMap;
use warden_types::id::{ApprovalId, MessageId, PersonId, RunId, ThreadId, ToolCallId};

use sqlx::{Sqlite, Transaction};

use warden_db::timestamp::now;

use super::{json, Store, WriteBatch};
use crate::error::Result;
use warden_types::approval::ApprovalStatus;
use warden_types::message::Block;
use warden_types::run::ToolCallStatus;
use warden_types::thread::{Thread, ThreadExport};

/// Old id -> new id, made on first sight.
struct Ids<T>(HashMap<T, T>);

impl<T> Default for Ids<T> {
    fn default() -> Self {
        Self(HashMap::new())
    }
}

impl<T: Clone + Eq + std::hash::Hash + From<String>> Ids<T> {
    fn map(&mut self, old: &T) -> T {
        self.0.entry(old.clone()).or_insert_with(|| T::from(warden_db::new_id())).clone()
    }
}

impl Store {
    /// Writes `export` as a new thread of `owner` (the importer) titled `title`; answers the thread.
    pub async fn import_thread(&self, export: &ThreadExport, title: &str, owner: Option<&PersonId>) -> Result<Thread> {
        let thread_id = ThreadId::new();
        let ts = now();
        let mut tx = self.write_tx().await?;
        sqlx::query(
            "INSERT INTO threads (id, title, title_source, archived, created_at, updated_at, imported_at, owner_id) \
             VALUES (?, ?, 'user', 0, ?, ?, ?, ?)",
        )
        .bind(&thread_id)
        .bind(title)
        .bind(&export.thread.created_at)
        .bind(&ts)
        .bind(&ts)
        .bind(owner)
        .execute(&mut *tx)
        .await?;

        let (mut runs, mut messages, mut calls) =
            (Ids::<RunId>::default(), Ids::<MessageId>::default(), Ids::<ToolCallId>::default());
        let run_ids = export
            .messages
            .iter()
            .filter_map(|m| m.run_id.as_ref())
            .chain(export.tool_calls.iter().map(|c| &c.run_id))
            .chain(export.approvals.iter().map(|a| &a.run_id));
        for old in run_ids {
            if !runs.0.contains_key(old) {
                insert_run(&mut tx, &runs.map(old), &thread_id, &ts).await?;
            }
        }
        // Each message under its parent (`check_import`: parents come first); the shown branch's end is
        // the head (the last message in a file from before branches).
        for (position, m) in export.messages.iter().enumerate() {
            let blocks: Vec<Block> = m.blocks.iter().map(|b| remap_block(b, &mut calls)).collect();
            let parent = crate::transfer::parent_of(export, position).map(|p| messages.map(p));
            sqlx::query(
                "INSERT INTO messages (id, thread_id, run_id, position, role, blocks, created_at, parent_id) \
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            )
            .bind(messages.map(&m.id))
            .bind(&thread_id)
            .bind(m.run_id.as_ref().map(|r| runs.map(r)))
            .bind(position as i64)
            .bind(m.role)
            .bind(json(&blocks)?)
            .bind(&m.created_at)
            .bind(&parent)
            .execute(&mut *tx)
            .await?;
        }
        let head = export.head_id.as_ref().or(export.messages.last().map(|m| &m.id));
        let mut batch = WriteBatch::new();
        Store::set_head_in(&mut batch, &thread_id, head.map(|h| messages.map(h)).as_ref());
        batch.run_in(&mut tx).await?;
        let mut positions: HashMap<&MessageId, i64> = HashMap::new();
        for c in &export.tool_calls {
            let position = positions.entry(&c.message_id).or_insert(0);
            let status = match c.status {
                ToolCallStatus::Pending | ToolCallStatus::Approved | ToolCallStatus::Running => {
                    ToolCallStatus::Cancelled
                }
                settled => settled,
            };
            sqlx::query(
                "INSERT INTO tool_calls (id, run_id, thread_id, message_id, position, call_id, name, origin, \
                   arguments, summary, risk, needs_approval, preview, status, output, is_error, truncated, failure, \
                   created_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            )
            .bind(calls.map(&c.id))
            .bind(runs.map(&c.run_id))
            .bind(&thread_id)
            .bind(messages.map(&c.message_id))
            .bind(*position)
            .bind(&c.call_id)
            .bind(&c.name)
            .bind(json(&c.origin)?)
            .bind(json(&c.arguments)?)
            .bind(&c.summary)
            .bind(c.risk)
            .bind(c.needs_approval as i64)
            .bind(c.preview.as_ref().map(json).transpose()?)
            .bind(status)
            .bind(c.output.as_ref().map(json).transpose()?)
            .bind(c.is_error as i64)
            .bind(c.truncated as i64)
            .bind(c.failure)
            .bind(&c.created_at)
            .bind(c.finished_at.clone().or_else(|| (status != c.status).then(|| ts.clone())))
            .execute(&mut *tx)
            .await?;
            *position += 1;
        }
        for a in &export.approvals {
            let (status, decided_at) = match a.status {
                ApprovalStatus::Pending => (ApprovalStatus::Cancelled, Some(ts.clone())),
                settled => (settled, a.decided_at.clone()),
            };
            sqlx::query(
                "INSERT INTO approvals (id, tool_call_id, run_id, thread_id, arguments, status, decision, created_at, \
                   decided_at, expires_at, preview, target_state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, NULL)",
            )
            .bind(ApprovalId::new())
            .bind(calls.map(&a.tool_call_id))
            .bind(runs.map(&a.run_id))
            .bind(&thread_id)
            .bind(json(&a.arguments)?)
            .bind(status)
            .bind(a.decision.as_ref().map(json).transpose()?)
            .bind(&a.created_at)
            .bind(decided_at)
            .bind(a.preview.as_ref().map(json).transpose()?)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        self.thread(&thread_id).await
    }
}

/// A finished run to hang the imported records on (nothing resumes it).
async fn insert_run(tx: &mut Transaction<'static, Sqlite>, id: &RunId, thread_id: &ThreadId, ts: &str) -> Result<()> {
    sqlx::query(
        "INSERT INTO runs (id, thread_id, status, step, max_steps, created_at, finished_at) \
         VALUES (?, ?, 'finished', 0, 0, ?, ?)",
    )
    .bind(id)
    .bind(thread_id)
    .bind(ts)
    .bind(ts)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// A block with the ids of the calls it names mapped to their new ones.
fn remap_block(block: &Block, calls: &mut Ids<ToolCallId>) -> Block {
    match block.clone() {
        Block::ToolCall { id, call_id, name, arguments } => {
            Block::ToolCall { id: calls.map(&id), call_id, name, arguments }
        }
        Block::ToolResult { tool_call_id, call_id, content, is_error } => {
            Block::ToolResult { tool_call_id: calls.map(&tool_call_id), call_id, content, is_error }
        }
        text => text,
    }
}
