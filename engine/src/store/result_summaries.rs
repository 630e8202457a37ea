//! Summaries of long tool results, made once per result and kept (see `run::long_results`).

use std::collections::HashMap;
use warden_types::id::{ThreadId, ToolCallId};

use sqlx::Row;

use warden_db::timestamp::now;

use super::{from_json, json, Store};
use crate::error::Result;

/// What was stored for one long result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSummary {
    /// `None`: making the summary failed; the model sees the result cut.
    pub summary: Option<String>,
    /// Ids, URLs, paths and numbers of the result that the summary does not show.
    pub kept: Vec<String>,
}

/// The summaries of given calls (a JSON array of ids), each found by its key.
const SUMMARIES_OF_CALLS: &str =
    "SELECT tool_call_id, summary, kept FROM result_summaries WHERE tool_call_id IN (SELECT value FROM json_each(?))";

impl Store {
    /// The summaries of the results of the calls `call_ids`, by tool call id (each found by its key).
    pub async fn result_summaries_of_calls(
        &self,
        call_ids: &[&ToolCallId],
    ) -> Result<HashMap<ToolCallId, StoredSummary>> {
        let rows = sqlx::query(SUMMARIES_OF_CALLS).bind(json(&call_ids)?).fetch_all(&self.pool).await?;
        rows.iter().map(summary_from_row).collect()
    }

    /// Records the summary of a result (or why there is none); the first record of a result stays.
    pub async fn insert_result_summary(
        &self,
        tool_call_id: &ToolCallId,
        thread_id: &ThreadId,
        summary: &StoredSummary,
        failure: Option<&str>,
    ) -> Result<()> {
        sqlx::query(
            "INSERT INTO result_summaries (tool_call_id, thread_id, summary, kept, failure, created_at) \
             VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (tool_call_id) DO NOTHING",
        )
        .bind(tool_call_id)
        .bind(thread_id)
        .bind(summary.summary.as_deref())
        .bind(json(&summary.kept)?)
        .bind(failure)
        .bind(now())
        .execute(&self.writer)
        .await?;
        Ok(())
    }
}

fn summary_from_row(r: &sqlx::sqlite::SqliteRow) -> Result<(ToolCallId, StoredSummary)> {
    let kept: String = r.try_get("kept")?;
    Ok((r.try_get("tool_call_id")?, StoredSummary { summary: r.try_get("summary")?, kept: from_json(&kept)? }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::test_db;

    /// The summaries of a model turn's calls are found by their key, not by a scan of every summary.
    #[tokio::test]
    async fn the_summaries_of_given_calls_are_found_by_key() {
        let (_dir, store) = test_db::store().await;
        let explained = sqlx::query(sqlx::AssertSqlSafe(format!("EXPLAIN QUERY PLAN {SUMMARIES_OF_CALLS}")));
        let plan = test_db::plan(&store, explained.bind("[]")).await;
        test_db::assert_found_by(&plan, "(tool_call_id=?)", "result_summaries");
    }
}
