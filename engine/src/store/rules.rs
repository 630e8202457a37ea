//! Thread rule rows ("allow for this thread").

use sqlx::sqlite::SqliteRow;
use sqlx::Row;
use warden_types::id::{RuleId, ThreadId};

use warden_db::timestamp::now;

use super::{from_json, json, Store, WriteBatch};
use crate::error::Result;
use warden_types::approval::{RuleMatcher, ThreadRule};

fn rule_from_row(r: &SqliteRow) -> Result<ThreadRule> {
    Ok(ThreadRule {
        id: r.try_get("id")?,
        thread_id: r.try_get("thread_id")?,
        tool: r.try_get("tool")?,
        matcher: from_json(&r.try_get::<String, _>("matcher")?)?,
        created_at: r.try_get("created_at")?,
    })
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
        let rows = sqlx::query(
            "SELECT id, thread_id, tool, matcher, created_at FROM thread_rules WHERE thread_id = ? ORDER BY created_at",
        )
        .bind(thread_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(rule_from_row).collect()
    }

    /// The rule `id`, if it still exists (a revoked rule is deleted).
    pub async fn rule(&self, id: &RuleId) -> Result<Option<ThreadRule>> {
        let row = sqlx::query("SELECT id, thread_id, tool, matcher, created_at FROM thread_rules WHERE id = ?")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(rule_from_row).transpose()
    }

    pub async fn delete_rule(&self, id: &RuleId) -> Result<()> {
        let r = sqlx::query("DELETE FROM thread_rules WHERE id = ?").bind(id).execute(&self.writer).await?;
        super::found(r, "rule", id)
    }
}
