//! Run rows: status, step counter and the error a failed run ended with.

use sqlx::sqlite::SqliteRow;
use sqlx::Row;

use super::{now, Store};
use crate::error::{Error, Result};
use warden_types::run::{RunStatus, RunSummary};

fn run_from_row(r: &SqliteRow) -> Result<RunSummary> {
    Ok(RunSummary {
        id: r.try_get("id")?,
        thread_id: r.try_get("thread_id")?,
        status: r.try_get("status")?,
        step: r.try_get::<i64, _>("step")? as u32,
        max_steps: r.try_get::<i64, _>("max_steps")? as u32,
        error: r.try_get("error")?,
        created_at: r.try_get("created_at")?,
        model: super::providers::choice(r.try_get("provider_id")?, r.try_get("model")?),
    })
}

const COLUMNS: &str = "id, thread_id, status, step, max_steps, error, created_at, provider_id, model";

impl Store {
    pub async fn run(&self, id: &str) -> Result<RunSummary> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!("SELECT {COLUMNS} FROM runs WHERE id = ?")))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| Error::not_found("run", id))?;
        run_from_row(&row)
    }

    /// The newest run of a thread.
    pub async fn last_run(&self, thread_id: &str) -> Result<Option<RunSummary>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM runs WHERE thread_id = ? ORDER BY created_at DESC, id DESC LIMIT 1"
        )))
        .bind(thread_id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(run_from_row).transpose()
    }

    /// Every run of a thread, oldest first (at most `limit`, the newest of them).
    pub async fn runs_of_thread(&self, thread_id: &str, limit: u32) -> Result<Vec<RunSummary>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT * FROM (SELECT {COLUMNS} FROM runs WHERE thread_id = ? ORDER BY created_at DESC, id DESC LIMIT ?) \
             ORDER BY created_at, id"
        )))
        .bind(thread_id)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(run_from_row).collect()
    }

    pub async fn runs_with_status(&self, status: RunStatus) -> Result<Vec<String>> {
        Ok(sqlx::query_scalar("SELECT id FROM runs WHERE status = ?").bind(status).fetch_all(&self.pool).await?)
    }

    pub async fn set_run_status(&self, id: &str, status: RunStatus, error: Option<&str>) -> Result<()> {
        let finished = status.is_terminal().then(now);
        sqlx::query("UPDATE runs SET status = ?, error = ?, finished_at = COALESCE(?, finished_at) WHERE id = ?")
            .bind(status)
            .bind(error)
            .bind(finished)
            .bind(id)
            .execute(&self.writer)
            .await?;
        Ok(())
    }

    /// Stores the run's next step, unless a connection check of the run waits for the person.
    /// `false`: one waits (or the run is gone), and the step is not stored.
    pub async fn advance_step_unless_a_check_waits(&self, id: &str, step: u32) -> Result<bool> {
        let advanced = sqlx::query(
            "UPDATE runs SET step = ?1 WHERE id = ?2 \
             AND NOT EXISTS (SELECT 1 FROM connection_checks WHERE run_id = ?2 AND status = 'pending')",
        )
        .bind(step as i64)
        .bind(id)
        .execute(&self.writer)
        .await?;
        Ok(advanced.rows_affected() == 1)
    }
}

impl Store {
    /// Within a decision's transaction: a waiting run becomes runnable, so a restart resumes it
    /// even if the server dies before the run is driven.
    pub async fn mark_run_resumable(tx: &mut sqlx::Transaction<'static, sqlx::Sqlite>, run_id: &str) -> Result<()> {
        sqlx::query("UPDATE runs SET status = 'running' WHERE id = ? AND status = 'waiting'")
            .bind(run_id)
            .execute(&mut **tx)
            .await?;
        Ok(())
    }

    /// Starts a run for a thread, with the user's message if there is one, in one transaction.
    /// Returns the run, the stored message, and the thread's new title when the prompt gave the
    /// untitled thread one.
    pub async fn start_run(
        &self,
        thread_id: &str,
        max_steps: u32,
        user_text: Option<&str>,
        prompt_title: Option<&str>,
        model: Option<&warden_types::provider::ModelChoice>,
        // Where the run continues from, when not the thread's head: the branch ending at this message
        // (`Some(None)`: before the first message), which becomes the head.
        from: Option<Option<&str>>,
    ) -> Result<StartedRun> {
        let run_id = super::new_id();
        let ts = now();
        let mut tx = self.write_tx().await?;
        // One write statement: the check and the insert cannot be split by another writer.
        let inserted = sqlx::query(
            "INSERT INTO runs (id, thread_id, status, step, max_steps, created_at, provider_id, model) \
             SELECT ?, ?, 'running', 0, ?, ?, ?, ? WHERE NOT EXISTS \
               (SELECT 1 FROM runs WHERE thread_id = ? AND status IN ('running', 'waiting'))",
        )
        .bind(&run_id)
        .bind(thread_id)
        .bind(max_steps as i64)
        .bind(&ts)
        .bind(model.map(|m| &m.provider_id))
        .bind(model.map(|m| &m.model))
        .bind(thread_id)
        .execute(&mut *tx)
        .await?;
        if inserted.rows_affected() == 0 {
            return Err(Error::RunInProgress);
        }
        if let Some(head) = from {
            Self::set_head_in(&mut tx, thread_id, head).await?;
        }
        let message = match user_text {
            Some(text) => {
                let blocks = [warden_types::message::Block::Text { text: text.to_string() }];
                let role = warden_types::message::Role::User;
                Some(Self::insert_message(&mut tx, thread_id, Some(&run_id), role, &blocks).await?)
            }
            // Storing the message marked the thread's activity; without one the run does.
            None => {
                sqlx::query("UPDATE threads SET updated_at = ? WHERE id = ?")
                    .bind(&ts)
                    .bind(thread_id)
                    .execute(&mut *tx)
                    .await?;
                None
            }
        };
        let mut title = None;
        if let Some(prompt_title) = prompt_title {
            let titled = sqlx::query(
                "UPDATE threads SET title = ?, title_source = 'prompt' WHERE id = ? AND title_source = 'default'",
            )
            .bind(prompt_title)
            .bind(thread_id)
            .execute(&mut *tx)
            .await?;
            title = (titled.rows_affected() == 1).then(|| prompt_title.to_string());
        }
        tx.commit().await?;
        Ok(StartedRun { run_id, message, title })
    }
}

/// What `Store::start_run` made.
pub struct StartedRun {
    pub run_id: String,
    pub message: Option<warden_types::thread::StoredMessage>,
    /// The title the prompt gave an untitled thread.
    pub title: Option<String>,
}
