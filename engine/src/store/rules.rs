//! Thread rule rows ("allow for this thread").

use warden_types::id::{RuleId, ThreadId};

use warden_db::timestamp::now;

use super::{from_json, json, Store, WriteBatch};
use crate::error::{Error, Result};
use warden_types::approval::{RuleMatcher, ThreadRule};

/// A `thread_rules` row as read; the matcher is JSON, decoded into the record (bad JSON is `Corrupt`).
#[derive(sqlx::FromRow)]
struct RuleRow {
    id: RuleId,
    thread_id: ThreadId,
    tool: String,
    matcher: String,
    created_at: String,
}

impl TryFrom<RuleRow> for ThreadRule {
    type Error = Error;

    fn try_from(r: RuleRow) -> Result<Self> {
        Ok(ThreadRule {
            id: r.id,
            thread_id: r.thread_id,
            tool: r.tool,
            matcher: from_json(&r.matcher)?,
            created_at: r.created_at,
        })
    }
}

impl Store {
    /// A new thread rule's row, in `batch`.
    pub fn insert_rule(
        batch: &mut WriteBatch,
        thread_id: &ThreadId,
        tool: &str,
        matcher: &RuleMatcher,
    ) -> Result<ThreadRule> {
        let rule = ThreadRule {
            id: RuleId::new(),
            thread_id: thread_id.clone(),
            tool: tool.to_string(),
            matcher: matcher.clone(),
            created_at: now(),
        };
        batch
            .push("INSERT INTO thread_rules (id, thread_id, tool, matcher, created_at) VALUES (?, ?, ?, ?, ?)")
            .bind(&rule.id)
            .bind(&rule.thread_id)
            .bind(&rule.tool)
            .bind(json(&rule.matcher)?)
            .bind(&rule.created_at);
        Ok(rule)
    }

    pub async fn rules_of_thread(&self, thread_id: &ThreadId) -> Result<Vec<ThreadRule>> {
        let rows: Vec<RuleRow> = sqlx::query_as(
            "SELECT id, thread_id, tool, matcher, created_at FROM thread_rules WHERE thread_id = ? ORDER BY created_at",
        )
        .bind(thread_id)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(ThreadRule::try_from).collect()
    }

    /// The rule `id`, if it still exists (a revoked rule is deleted).
    pub async fn rule(&self, id: &RuleId) -> Result<Option<ThreadRule>> {
        let row: Option<RuleRow> =
            sqlx::query_as("SELECT id, thread_id, tool, matcher, created_at FROM thread_rules WHERE id = ?")
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
        row.map(ThreadRule::try_from).transpose()
    }

    pub async fn delete_rule(&self, id: &RuleId) -> Result<()> {
        let r = sqlx::query("DELETE FROM thread_rules WHERE id = ?").bind(id).execute(&self.writer).await?;
        super::found(r, "rule", id)
    }
}
