//! The run event log: every event a run emitted, so a stream can be replayed from the start or
//! from a Last-Event-ID, also after a restart.

use sqlx::Row;

use super::Store;
use crate::error::Result;

/// An event as written: already serialised, so the writer does no work per row but the insert.
#[derive(Debug, Clone)]
pub struct StoredEvent {
    pub run_id: String,
    pub seq: u64,
    pub kind: &'static str,
    pub data: String,
}

impl Store {
    pub async fn append_events(&self, events: &[StoredEvent]) -> Result<()> {
        let mut tx = self.pool.begin().await?;
        for e in events {
            sqlx::query("INSERT OR IGNORE INTO run_events (run_id, seq, kind, data) VALUES (?, ?, ?, ?)")
                .bind(&e.run_id)
                .bind(e.seq as i64)
                .bind(e.kind)
                .bind(&e.data)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Events of a run after `after` (exclusive), in order: (seq, kind, data).
    pub async fn events_after(&self, run_id: &str, after: u64) -> Result<Vec<(u64, String, String)>> {
        let rows = sqlx::query("SELECT seq, kind, data FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq")
            .bind(run_id)
            .bind(after as i64)
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|r| Ok((r.try_get::<i64, _>("seq")? as u64, r.try_get("kind")?, r.try_get("data")?)))
            .collect()
    }

    pub async fn max_event_seq(&self) -> Result<u64> {
        let max: Option<i64> = sqlx::query_scalar("SELECT MAX(seq) FROM run_events").fetch_one(&self.pool).await?;
        Ok(max.unwrap_or(0).max(0) as u64)
    }
}
