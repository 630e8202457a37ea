//! Thread rows: create, list a page, read, patch, delete, and a thread's switches (tools, MCP, step limit).

use sqlx::sqlite::SqliteRow;
use sqlx::{FromRow, Row};
use warden_types::id::{PersonId, ThreadId};

use warden_db::timestamp::now;

use super::Store;
use crate::error::{Error, Result};
use warden_types::person::Reader;
use warden_types::thread::{Thread, ThreadOptions, ThreadPatch, ThreadQuery};

/// Who named a thread: a model title replaces only `default` and `prompt` ones (the latter are set
/// in SQL when a run starts, `model` by `set_model_title`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, sqlx::Type)]
#[sqlx(rename_all = "snake_case")]
enum TitleSource {
    Default,
    User,
}

/// A thread's columns, with how many of its approvals and connection checks wait (for the sidebar's
/// badge).
pub(super) const COLUMNS: &str = "id, title, archived, pinned, created_at, updated_at, imported_at, owner_id, \
     (SELECT COUNT(*) FROM approvals a WHERE a.thread_id = threads.id AND a.status = 'pending') \
     + (SELECT COUNT(*) FROM connection_checks c WHERE c.thread_id = threads.id AND c.status = 'pending') \
     AS pending_approvals";

impl Store {
    /// A thread of nobody's yet (the store's own tests; the server gives such threads to the founding
    /// owner at start).
    pub async fn create_thread(&self, title: Option<&str>) -> Result<Thread> {
        Ok(self.create_thread_with_id(&ThreadId::new(), title, None).await?.0)
    }

    /// Creates the thread `id` (checked by the engine) for `owner`, or answers the one that has it
    /// already (whoever's it is: the engine checks); `true` when it was created.
    pub async fn create_thread_with_id(
        &self,
        id: &ThreadId,
        title: Option<&str>,
        owner: Option<&PersonId>,
    ) -> Result<(Thread, bool)> {
        let (title, source) = match title.map(str::trim).filter(|t| !t.is_empty()) {
            Some(t) => (t.to_string(), TitleSource::User),
            None => ("New chat".to_string(), TitleSource::Default),
        };
        let id = id.clone();
        let ts = now();
        let created = sqlx::query(
            "INSERT INTO threads (id, title, title_source, archived, created_at, updated_at, owner_id) \
             VALUES (?, ?, ?, 0, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
        )
        .bind(&id)
        .bind(&title)
        .bind(source)
        .bind(&ts)
        .bind(&ts)
        .bind(owner)
        .execute(&self.writer)
        .await?
        .rows_affected()
            == 1;
        if !created {
            return Ok((self.thread(&id).await?, false));
        }
        let thread = Thread {
            id,
            title,
            archived: false,
            pinned: false,
            created_at: ts.clone(),
            updated_at: ts,
            pending_approvals: 0,
            imported_at: None,
            owner_id: owner.cloned(),
            shared_by: None,
            may_delete: false,
        };
        Ok((thread, true))
    }

    pub async fn thread(&self, id: &ThreadId) -> Result<Thread> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!("SELECT {COLUMNS} FROM threads WHERE id = ?")))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| Error::not_found("thread", id))?;
        Ok(Thread::from_row(&row)?)
    }

    /// A page of the threads `reader` may read (`None`: every thread).
    pub async fn list_threads(&self, q: &ThreadQuery, reader: Option<&Reader>) -> Result<Vec<Thread>> {
        let limit = q.limit.clamp(1, 500) as i64;
        let pinned = q.pinned.map(i64::from);
        let (before_time, before_id) = q.before.as_ref().map(|c| (c.at(), c.id())).unzip();
        let readable = super::sharing::Readable::by(reader);
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM threads WHERE archived = ? AND (? IS NULL OR pinned = ?) \
             AND (? IS NULL OR (updated_at, id) < (?, ?)) AND {READABLE} \
             ORDER BY updated_at DESC, id DESC LIMIT ?",
            READABLE = super::sharing::READABLE
        )))
        .bind(q.archived as i64)
        .bind(pinned)
        .bind(pinned)
        .bind(before_time)
        .bind(before_time)
        .bind(before_id)
        .bind(readable.everything)
        .bind(readable.person)
        .bind(readable.person)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(Thread::from_row).collect::<Result<_, _>>()?)
    }

    pub async fn update_thread(&self, id: &ThreadId, patch: &ThreadPatch) -> Result<Thread> {
        // Checked by the engine (`input::title`) before it gets here.
        let title = patch.title.as_deref();
        let result = sqlx::query(
            "UPDATE threads SET \
               title = COALESCE(?, title), \
               title_source = CASE WHEN ? IS NULL THEN title_source ELSE 'user' END, \
               archived = COALESCE(?, archived), \
               pinned = COALESCE(?, pinned), \
               updated_at = CASE WHEN ? IS NULL AND ? IS NULL THEN updated_at ELSE ? END \
             WHERE id = ?",
        )
        .bind(title)
        .bind(title)
        .bind(patch.archived.map(|a| a as i64))
        .bind(patch.pinned.map(|p| p as i64))
        // Pinning alone does not move the thread in the list.
        .bind(title)
        .bind(patch.archived.map(|a| a as i64))
        .bind(now())
        .bind(id)
        .execute(&self.writer)
        .await?;
        super::found(result, "thread", id)?;
        self.thread(id).await
    }

    /// Sets a title the model made because a person asked for one (replacing theirs too).
    pub async fn set_requested_title(&self, id: &ThreadId, title: &str) -> Result<()> {
        let result = sqlx::query("UPDATE threads SET title = ?, title_source = 'model' WHERE id = ?")
            .bind(title)
            .bind(id)
            .execute(&self.writer)
            .await?;
        super::found(result, "thread", id)
    }

    /// Sets the model's title unless a person named the thread meanwhile.
    pub async fn set_model_title(&self, id: &ThreadId, title: &str) -> Result<bool> {
        let result = sqlx::query(
            "UPDATE threads SET title = ?, title_source = 'model' WHERE id = ? AND title_source IN ('default', 'prompt')",
        )
        .bind(title)
        .bind(id)
        .execute(&self.writer)
        .await?;
        Ok(result.rows_affected() == 1)
    }

    pub async fn title_is_generated(&self, id: &ThreadId) -> Result<bool> {
        let source: Option<String> = sqlx::query_scalar("SELECT title_source FROM threads WHERE id = ?")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(matches!(source.as_deref(), Some("default" | "prompt")))
    }

    pub async fn touch_thread(&self, id: &ThreadId) -> Result<()> {
        sqlx::query("UPDATE threads SET updated_at = ? WHERE id = ?")
            .bind(now())
            .bind(id)
            .execute(&self.writer)
            .await?;
        Ok(())
    }

    /// Whether the thread's runs are offered tools and MCP tools, and their step limit.
    pub async fn thread_options(&self, id: &ThreadId) -> Result<ThreadOptions> {
        let row = self.thread_row("SELECT tools_enabled, mcp_enabled, max_steps FROM threads WHERE id = ?", id).await?;
        Ok(ThreadOptions {
            tools: row.try_get::<i64, _>("tools_enabled")? != 0,
            mcp: row.try_get::<i64, _>("mcp_enabled")? != 0,
            max_steps: max_steps(&row)?,
        })
    }

    /// What a new run of the thread starts from, in one read.
    pub async fn new_run_settings(&self, id: &ThreadId) -> Result<NewRunSettings> {
        let sql = "SELECT provider_id, model, max_steps, title_source FROM threads WHERE id = ?";
        let row = self.thread_row(sql, id).await?;
        Ok(NewRunSettings {
            model: super::providers::choice(row.try_get("provider_id")?, row.try_get("model")?),
            max_steps: max_steps(&row)?,
            untitled: row.try_get::<String, _>("title_source")? == "default",
        })
    }

    /// The columns `sql` selects of the thread `id` (its only parameter); a 404 if there is none.
    async fn thread_row(&self, sql: &'static str, id: &ThreadId) -> Result<SqliteRow> {
        sqlx::query(sql).bind(id).fetch_optional(&self.pool).await?.ok_or_else(|| Error::not_found("thread", id))
    }

    /// Stores the switches (checked by the engine before they get here).
    pub async fn set_thread_options(&self, id: &ThreadId, options: &ThreadOptions) -> Result<()> {
        let result = sqlx::query("UPDATE threads SET tools_enabled = ?, mcp_enabled = ?, max_steps = ? WHERE id = ?")
            .bind(options.tools as i64)
            .bind(options.mcp as i64)
            .bind(options.max_steps.map(i64::from))
            .bind(id)
            .execute(&self.writer)
            .await?;
        super::found(result, "thread", id)
    }

    pub async fn delete_thread(&self, id: &ThreadId) -> Result<()> {
        let mut tx = self.write_tx().await?;
        let result = sqlx::query("DELETE FROM threads WHERE id = ?").bind(id).execute(&mut *tx).await?;
        super::found(result, "thread", id)?;
        // Runs, messages and rules go by cascade; tool calls, approvals and events with their runs.
        tx.commit().await?;
        Ok(())
    }
}

/// A thread's own step limit (a stored number out of range is none).
fn max_steps(row: &SqliteRow) -> Result<Option<u32>> {
    Ok(row.try_get::<Option<i64>, _>("max_steps")?.and_then(|n| u32::try_from(n).ok()))
}

/// What a new run of a thread starts from: the thread's own model choice and step limit, if it has
/// them, and whether it still has no title (a title never becomes the default one again).
pub struct NewRunSettings {
    pub model: Option<warden_types::provider::ModelChoice>,
    pub max_steps: Option<u32>,
    pub untitled: bool,
}
