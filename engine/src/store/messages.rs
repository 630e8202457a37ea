//! Message rows: the conversation in thread order, content blocks stored as JSON.

use sqlx::sqlite::SqliteRow;
use sqlx::{Row, Sqlite, Transaction};

use super::{from_json, json, new_id, now, Store};
use crate::error::Result;
use warden_types::message::{Block, Message, Role};
use warden_types::thread::StoredMessage;

fn message_from_row(r: &SqliteRow) -> Result<StoredMessage> {
    let blocks: Vec<Block> = from_json(&r.try_get::<String, _>("blocks")?)?;
    let content = Message { role: Role::User, content: blocks.clone() }.joined_text();
    let role: Role = r.try_get("role")?;
    Ok(StoredMessage {
        id: r.try_get("id")?,
        run_id: r.try_get("run_id")?,
        role,
        html: shown_as_html(role, &content),
        content,
        blocks,
        created_at: r.try_get("created_at")?,
    })
}

/// The model's words are Markdown, rendered and sanitised here, on the server; a person's are shown as
/// they typed them.
fn shown_as_html(role: Role, content: &str) -> Option<String> {
    (role == Role::Assistant).then(|| crate::markdown::render(content))
}

impl Store {
    /// Appends a message to a thread inside a transaction the caller commits.
    pub async fn insert_message(
        tx: &mut Transaction<'static, Sqlite>,
        thread_id: &str,
        run_id: Option<&str>,
        role: Role,
        blocks: &[Block],
    ) -> Result<StoredMessage> {
        let id = new_id();
        let ts = now();
        sqlx::query(
            "INSERT INTO messages (id, thread_id, run_id, position, role, blocks, created_at) \
             VALUES (?, ?, ?, (SELECT COALESCE(MAX(position), 0) + 1 FROM messages WHERE thread_id = ?), ?, ?, ?)",
        )
        .bind(&id)
        .bind(thread_id)
        .bind(run_id)
        .bind(thread_id)
        .bind(role)
        .bind(json(&blocks)?)
        .bind(&ts)
        .execute(&mut **tx)
        .await?;
        let content = Message { role, content: blocks.to_vec() }.joined_text();
        Ok(StoredMessage {
            id,
            run_id: run_id.map(str::to_string),
            role,
            html: shown_as_html(role, &content),
            content,
            blocks: blocks.to_vec(),
            created_at: ts,
        })
    }

    pub async fn messages(&self, thread_id: &str) -> Result<Vec<StoredMessage>> {
        let rows = sqlx::query(
            "SELECT id, run_id, role, blocks, created_at FROM messages WHERE thread_id = ? ORDER BY position",
        )
        .bind(thread_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(message_from_row).collect()
    }

    /// The last message of a run, if any.
    pub async fn last_message_of_run(&self, run_id: &str) -> Result<Option<StoredMessage>> {
        let row = sqlx::query(
            "SELECT id, run_id, role, blocks, created_at FROM messages WHERE run_id = ? ORDER BY position DESC LIMIT 1",
        )
        .bind(run_id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(message_from_row).transpose()
    }

    pub async fn first_user_message(&self, thread_id: &str) -> Result<Option<StoredMessage>> {
        let row = sqlx::query(
            "SELECT id, run_id, role, blocks, created_at FROM messages WHERE thread_id = ? AND role = 'user' \
             ORDER BY position LIMIT 1",
        )
        .bind(thread_id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(message_from_row).transpose()
    }
}
