//! Run rows: status, step counter and the error a failed run ended with.

use sqlx::sqlite::SqliteRow;
use sqlx::Row;
use warden_types::id::{MessageId, RunId, ThreadId};

use super::batch::returned_as;
use warden_db::timestamp::now;

use super::{from_json, json, Store, WriteBatch};
use crate::error::{Error, Result};
use warden_types::person::ActingPerson;
use warden_types::run::{RunStatus, RunSummary, ToolCallRecord};

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

/// A run's status, the error it failed with and, once it ended, when (`set_run_status`, `finish_run`).
const SET_RUN_STATUS: &str =
    "UPDATE runs SET status = ?, error = ?, finished_at = COALESCE(?, finished_at) WHERE id = ?";
const COLUMNS: &str = "id, thread_id, status, step, max_steps, error, created_at, provider_id, model";

/// How `resume_run`'s rows are told apart from the other rows of a batch (`returned_as`).
const RESUMED_RUN: &str = "resumed_run";
const RESUMED_TURN_CALL: &str = "resumed_turn_call";

/// A waiting run made runnable (the run's id bound).
const MAKE_RESUMABLE: &str = "UPDATE runs SET status = 'running' WHERE id = ? AND status = 'waiting'";

static RESUME_RUN: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| format!("{MAKE_RESUMABLE} RETURNING '{RESUMED_RUN}' AS returned_as, {COLUMNS}"));

impl Store {
    pub async fn run(&self, id: &RunId) -> Result<RunSummary> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!("SELECT {COLUMNS} FROM runs WHERE id = ?")))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| Error::not_found("run", id))?;
        run_from_row(&row)
    }

    /// Who asked for the run (`None`: a run from before people were recorded).
    pub async fn run_requester(&self, id: &RunId) -> Result<Option<ActingPerson>> {
        let requester: Option<Option<String>> =
            sqlx::query_scalar("SELECT requester FROM runs WHERE id = ?").bind(id).fetch_optional(&self.pool).await?;
        requester.flatten().as_deref().map(from_json).transpose()
    }

    /// The newest run of a thread.
    pub async fn last_run(&self, thread_id: &ThreadId) -> Result<Option<RunSummary>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM runs WHERE thread_id = ? ORDER BY created_at DESC, id DESC LIMIT 1"
        )))
        .bind(thread_id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(run_from_row).transpose()
    }

    /// The last answer of each of the thread's runs a person stopped (cancelled): where it was cut off.
    pub async fn stopped_answers(&self, thread_id: &ThreadId) -> Result<Vec<MessageId>> {
        let ids: Vec<Option<MessageId>> = sqlx::query_scalar(
            "SELECT (SELECT m.id FROM messages m WHERE m.run_id = r.id AND m.role = 'assistant' \
                     ORDER BY m.position DESC LIMIT 1) \
             FROM runs r WHERE r.thread_id = ? AND r.status = 'cancelled'",
        )
        .bind(thread_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(ids.into_iter().flatten().collect())
    }

    /// Every run of a thread, oldest first (at most `limit`, the newest of them).
    pub async fn runs_of_thread(&self, thread_id: &ThreadId, limit: u32) -> Result<Vec<RunSummary>> {
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

    pub async fn runs_with_status(&self, status: RunStatus) -> Result<Vec<RunId>> {
        Ok(sqlx::query_scalar("SELECT id FROM runs WHERE status = ?").bind(status).fetch_all(&self.pool).await?)
    }

    pub async fn set_run_status(&self, id: &RunId, status: RunStatus, error: Option<&str>) -> Result<()> {
        let finished = status.is_terminal().then(now);
        sqlx::query(SET_RUN_STATUS).bind(status).bind(error).bind(finished).bind(id).execute(&self.writer).await?;
        Ok(())
    }
}

impl Store {
    /// In the batch of a turn that answered (no calls): the run is finished, with the answer.
    pub fn finish_run(batch: &mut WriteBatch, run_id: &RunId) {
        batch.push(SET_RUN_STATUS).bind(RunStatus::Finished).bind(None::<&str>).bind(Some(now())).bind(run_id);
    }

    /// In a model turn's batch: the step the turn took, stored with what the turn stored (its message
    /// and calls). A turn that stores nothing (it failed, was stopped before any text, or the server
    /// died during it) took no step that a restart or a retry would count.
    pub fn store_step(batch: &mut WriteBatch, run_id: &RunId, step: u32) {
        batch.push("UPDATE runs SET step = ? WHERE id = ?").bind(i64::from(step)).bind(run_id);
    }

    /// In a decision's batch: a waiting run becomes runnable, so a restart resumes it even if the
    /// server dies before the run is driven.
    pub fn mark_run_resumable(batch: &mut WriteBatch, run_id: &RunId) {
        batch.push(MAKE_RESUMABLE).bind(run_id);
    }

    /// `mark_run_resumable`, and what the run's driver reads first, read in the same transaction: the
    /// run's row (only if it was waiting: a run that was not has a driver at work, which a wake makes
    /// look again) and the calls of its latest turn. [`Store::resumed_run`] finds them in the rows.
    pub fn resume_run(batch: &mut WriteBatch, run_id: &RunId) {
        batch.push(&RESUME_RUN).bind(run_id);
        Self::push_turn_calls(batch, run_id, RESUMED_TURN_CALL);
    }

    /// The run `resume_run` resumed and its latest turn's calls, as of the commit, among the rows of
    /// its batch; `None` if the run was not waiting.
    pub fn resumed_run(rows: &[SqliteRow]) -> Result<Option<(RunSummary, Vec<ToolCallRecord>)>> {
        let Some(run) = rows.iter().find(|r| returned_as(r) == Some(RESUMED_RUN)) else { return Ok(None) };
        let calls = Self::turn_calls_among(rows, RESUMED_TURN_CALL)?;
        Ok(Some((run_from_row(run)?, calls)))
    }

    /// Starts a run for a thread, with the user's message if there is one, in one transaction.
    /// Returns the run, the stored message, and the thread's new title when the prompt gave the
    /// untitled thread one.
    #[allow(clippy::too_many_arguments, reason = "one batch of one run's columns; each says what it is")]
    pub async fn start_run(
        &self,
        thread_id: &ThreadId,
        max_steps: u32,
        user_text: Option<&str>,
        prompt_title: Option<&str>,
        model: Option<&warden_types::provider::ModelChoice>,
        // Where the run continues from, when not the thread's head: the branch ending at this message
        // (`Some(None)`: before the first message), which becomes the head.
        from: Option<Option<&MessageId>>,
        // Who asked for it (`None`: nobody known, as for runs from before people).
        requester: Option<&ActingPerson>,
    ) -> Result<StartedRun> {
        let run_id = RunId::new();
        let ts = now();
        // One batch, one round trip to the writer: the run, the branch it continues, the message, the title.
        let mut batch = WriteBatch::new();
        // Refused by `one_active_run_per_thread` while another run of the thread is running or waiting.
        batch
            .push(
                "INSERT INTO runs (id, thread_id, status, step, max_steps, created_at, provider_id, model, \
                 requested_by, requester) VALUES (?, ?, 'running', 0, ?, ?, ?, ?, ?, ?)",
            )
            .bind(&run_id)
            .bind(thread_id)
            .bind(max_steps as i64)
            .bind(&ts)
            .bind(model.map(|m| m.provider_id.clone()))
            .bind(model.map(|m| m.model.clone()))
            .bind(requester.map(|r| r.id.clone()))
            .bind(requester.map(json).transpose()?);
        if let Some(head) = from {
            Self::set_head_in(&mut batch, thread_id, head);
        }
        let message = match user_text {
            Some(text) => {
                let blocks = [warden_types::message::Block::Text { text: text.to_string() }];
                let role = warden_types::message::Role::User;
                Some(Self::insert_message(&mut batch, thread_id, Some(&run_id), role, &blocks)?)
            }
            // Storing the message marked the thread's activity; without one the run does.
            None => {
                batch.push("UPDATE threads SET updated_at = ? WHERE id = ?").bind(&ts).bind(thread_id);
                None
            }
        };
        if let Some(prompt_title) = prompt_title {
            batch
                .push("UPDATE threads SET title = ?, title_source = 'prompt' WHERE id = ? AND title_source = 'default'")
                .bind(prompt_title)
                .bind(thread_id);
            batch.push("SELECT changes() AS titled");
        }
        let rows = self.commit(batch).await.map_err(|e| match e {
            Error::Sqlx(sqlx::Error::Database(d)) if d.message().contains("runs.thread_id") => Error::RunInProgress,
            e => e,
        })?;
        let titled = rows.first().map(|r| r.try_get::<i64, _>("titled")).transpose()? == Some(1);
        let title = prompt_title.filter(|_| titled).map(str::to_string);
        let run = RunSummary {
            id: run_id,
            thread_id: thread_id.clone(),
            status: RunStatus::Running,
            step: 0,
            max_steps,
            error: None,
            created_at: ts,
            model: model.cloned(),
        };
        Ok(StartedRun { run, message, title })
    }
}

/// What `Store::start_run` made.
pub struct StartedRun {
    /// The run as stored: what a read of its row would give.
    pub run: RunSummary,
    pub message: Option<warden_types::thread::StoredMessage>,
    /// The title the prompt gave an untitled thread.
    pub title: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::test_db;
    use warden_types::provider::ModelChoice;

    /// A start is one batch: what it returns is what the store holds, and a start refused because a
    /// run of the thread is active stores nothing of itself (no run, no message, no title).
    #[tokio::test]
    async fn a_start_is_stored_whole_or_not_at_all() {
        let (_dir, store) = test_db::store().await;
        let thread = store.create_thread(None).await.unwrap();
        let model = ModelChoice { provider_id: "p".into(), model: "m".into() };
        let first =
            store.start_run(&thread.id, 7, Some("first words"), Some("First"), Some(&model), None, None).await.unwrap();
        assert_eq!(store.run(&first.run.id).await.unwrap(), first.run);
        assert_eq!(first.title.as_deref(), Some("First"));
        let message = first.message.unwrap();
        assert_eq!(store.head(&thread.id).await.unwrap(), Some(message.id));

        let refused = store.start_run(&thread.id, 7, Some("second words"), Some("Second"), None, None, None).await;
        assert!(matches!(refused, Err(Error::RunInProgress)), "{:?}", refused.err());
        let texts: Vec<String> = store.messages(&thread.id).await.unwrap().into_iter().map(|m| m.content).collect();
        assert_eq!(texts, ["first words"]);
        assert_eq!(store.thread(&thread.id).await.unwrap().title, "First");
        let runs: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM runs").fetch_one(store.pool()).await.unwrap();
        assert_eq!(runs, 1);

        // Once it ended, the thread takes a new run; its prompt no longer titles the titled thread.
        store.set_run_status(&first.run.id, RunStatus::Finished, None).await.unwrap();
        let second =
            store.start_run(&thread.id, 7, Some("second words"), Some("Second"), None, None, None).await.unwrap();
        assert_eq!(second.title, None);
        assert_eq!(store.thread(&thread.id).await.unwrap().title, "First");
        assert_eq!(store.run(&second.run.id).await.unwrap(), second.run);
    }

    /// A decision that resumes a waiting run hands back, from its own transaction, the run as it is
    /// now and its latest turn's calls in order (the call it settled among them, changed), told apart
    /// from the other rows of the batch; a run that was not waiting gives none.
    #[tokio::test]
    async fn a_resumed_run_comes_back_with_its_turns_calls_as_the_decision_left_them() {
        use crate::message::Role;
        use crate::store::NewToolCall;
        use warden_types::run::ToolCallStatus;
        use warden_types::tool::{Risk, ToolOrigin};

        let (_dir, store) = test_db::store().await;
        let thread = store.create_thread(None).await.unwrap();
        let run = store.start_run(&thread.id, 5, Some("go"), None, None, None, None).await.unwrap().run;
        let mut batch = WriteBatch::new();
        let message = Store::insert_message(&mut batch, &thread.id, Some(&run.id), Role::Assistant, &[]).unwrap();
        for (position, id) in ["second", "first"].into_iter().enumerate().map(|(i, id)| (1 - i as u32, id)) {
            let call = NewToolCall {
                id: id.into(),
                run_id: run.id.clone(),
                thread_id: thread.id.clone(),
                message_id: message.id.clone(),
                position,
                call_id: format!("c-{id}"),
                name: "shell".into(),
                origin: ToolOrigin::BuiltIn,
                arguments: serde_json::json!({"command": id}),
                summary: id.into(),
                risk: Risk::Medium,
                needs_approval: true,
                preview: None,
                status: ToolCallStatus::Pending,
                output: None,
            };
            Store::insert_tool_call(&mut batch, call).unwrap();
        }
        store.commit(batch).await.unwrap();
        store.set_run_status(&run.id, RunStatus::Waiting, None).await.unwrap();

        let decide = |call: &'static str| {
            let mut batch = WriteBatch::new();
            Store::resolve_pending_call(&mut batch, &call.into(), ToolCallStatus::Running, None, None, None).unwrap();
            Store::resume_run(&mut batch, &run.id);
            batch
        };
        let rows = store.commit(decide("second")).await.unwrap();
        assert_eq!(Store::returned_call(&rows[0]).unwrap().id, "second", "the settled call's own row comes first");
        let (resumed, calls) = Store::resumed_run(&rows).unwrap().expect("the run was waiting");
        assert_eq!(resumed, store.run(&run.id).await.unwrap());
        assert_eq!(resumed.status, RunStatus::Running);
        assert_eq!(calls, store.calls_of_runs_last_message(&run.id).await.unwrap());
        let seen: Vec<_> = calls.iter().map(|c| (c.id.as_str(), c.status)).collect();
        assert_eq!(seen, [("first", ToolCallStatus::Pending), ("second", ToolCallStatus::Running)]);

        // The run is running now (its driver at work): a second decision resumes nothing.
        let rows = store.commit(decide("first")).await.unwrap();
        assert_eq!(Store::resumed_run(&rows).unwrap(), None);
    }

    /// The migration that makes one active run per thread an index first fails any duplicate an
    /// older database might hold, keeping the newest active run of each thread.
    #[tokio::test]
    async fn the_migration_keeps_the_newest_active_run_of_a_thread() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("old.db").display());
        let database = warden_db::Database::open(&url).await.unwrap();
        crate::store::migrator().run_to(20261127000300, database.writer()).await.unwrap();
        let now = now();
        sqlx::query(
            "INSERT INTO threads (id, title, created_at, updated_at) VALUES ('t', 'T', ?, ?), ('u', 'U', ?, ?)",
        )
        .bind(&now)
        .bind(&now)
        .bind(&now)
        .bind(&now)
        .execute(database.writer())
        .await
        .unwrap();
        for (id, thread, status) in
            [("r1", "t", "running"), ("r2", "t", "waiting"), ("r3", "t", "finished"), ("r4", "u", "waiting")]
        {
            sqlx::query("INSERT INTO runs (id, thread_id, status, max_steps, created_at) VALUES (?, ?, ?, 5, ?)")
                .bind(id)
                .bind(thread)
                .bind(status)
                .bind(&now)
                .execute(database.writer())
                .await
                .unwrap();
        }
        let store = Store::on(database).await.unwrap();
        let status = |id: &'static str| {
            let store = store.clone();
            async move { store.run(&id.into()).await.unwrap().status }
        };
        assert_eq!(status("r1").await, RunStatus::Failed, "the older of two active runs");
        assert_eq!(status("r2").await, RunStatus::Waiting);
        assert_eq!(status("r3").await, RunStatus::Finished);
        assert_eq!(status("r4").await, RunStatus::Waiting);
        assert!(store.run(&"r1".into()).await.unwrap().error.is_some());
    }
}
