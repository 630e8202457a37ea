//! The run event log: every event a run emitted, so a stream can be replayed from the start or
//! from a Last-Event-ID, also after a restart.

use sqlx::{QueryBuilder, Row, Sqlite};
use warden_types::id::RunId;

use super::Store;
use crate::error::{Error, Result};
use warden_types::event::EventKind;

/// Events per INSERT statement: 4 parameters each, well under SQLite's 32,766.
const ROWS_PER_INSERT: usize = 500;

/// An event as written: already serialised, so the writer does no work per row but the insert.
#[derive(Debug, Clone)]
pub struct StoredEvent {
    pub run_id: RunId,
    pub seq: u64,
    pub kind: EventKind,
    /// The event's JSON, shared with the live stream and the events not stored yet (not copied per event).
    pub data: std::sync::Arc<str>,
}

/// One INSERT for `rows` (sqlx 0.9's query builder owns what it binds: the run id is copied, the JSON shared).
fn insert_statement(rows: &[(&StoredEvent, i64)]) -> QueryBuilder<Sqlite> {
    // `WHERE EXISTS`: a run deleted while its driver still emitted has no row to point to.
    let mut q = QueryBuilder::<Sqlite>::new(
        "INSERT OR IGNORE INTO run_events (run_id, seq, kind, data) \
         SELECT v.column1, v.column2, v.column3, v.column4 FROM (",
    );
    q.push_values(rows, |mut row, (e, seq)| {
        row.push_bind(e.run_id.clone()).push_bind(*seq).push_bind(e.kind.as_str()).push_bind(e.data.clone());
    });
    q.push(") AS v WHERE EXISTS (SELECT 1 FROM runs WHERE id = v.column1)");
    q
}

/// Each number of rows is a statement of its own; only the sizes that recur (one event, a full
/// chunk) stay prepared, so batches of every other size do not push the hot statements out of
/// the connection's statement cache.
fn keep_prepared(rows: usize) -> bool {
    rows == 1 || rows == ROWS_PER_INSERT
}

impl Store {
    /// Appends a batch of events and returns how many were dropped. One bad row never costs the
    /// others: events of runs that no longer exist (a late event after the thread was deleted) are
    /// skipped by the insert itself, and if the batch still fails, each row is tried on its own and
    /// only the rows that fail are dropped (and logged).
    pub async fn append_events(&self, events: &[StoredEvent]) -> Result<usize> {
        match self.insert_events(events).await {
            Ok(()) => Ok(0),
            Err(batch_error) => {
                tracing::warn!(error = %batch_error, rows = events.len(), "event batch failed; writing row by row");
                let mut dropped = 0;
                for e in events {
                    if let Err(error) = self.insert_events(std::slice::from_ref(e)).await {
                        tracing::error!(run_id = %e.run_id, seq = e.seq, kind = %e.kind, %error, "dropped a run event");
                        dropped += 1;
                    }
                }
                Ok(dropped)
            }
        }
    }

    /// One statement per `ROWS_PER_INSERT` events (a statement is one round trip to SQLite's thread;
    /// under load a batch holds hundreds of events), in one transaction when there are several.
    async fn insert_events(&self, events: &[StoredEvent]) -> Result<()> {
        let mut rows = Vec::with_capacity(events.len());
        for e in events {
            let seq =
                i64::try_from(e.seq).map_err(|_| Error::Corrupt(format!("event number {} is too large", e.seq)))?;
            rows.push((e, seq));
        }
        if rows.len() <= ROWS_PER_INSERT {
            insert_statement(&rows).build().persistent(keep_prepared(rows.len())).execute(&self.writer).await?;
            return Ok(());
        }
        let mut tx = self.write_tx().await?;
        for chunk in rows.chunks(ROWS_PER_INSERT) {
            insert_statement(chunk).build().persistent(keep_prepared(chunk.len())).execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Events of a run after `after` (exclusive), in order: (seq, kind, data).
    pub async fn events_after(&self, run_id: &RunId, after: u64) -> Result<Vec<(u64, EventKind, String)>> {
        // A client's Last-Event-ID above i64::MAX must mean "after everything", not wrap to a
        // negative number that replays the whole log.
        let after = i64::try_from(after).unwrap_or(i64::MAX);
        let rows = sqlx::query("SELECT seq, kind, data FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq")
            .bind(run_id)
            .bind(after)
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|r| {
                let kind: String = r.try_get("kind")?;
                let kind = kind.parse().map_err(|_| Error::Corrupt(format!("unknown run event kind `{kind}`")))?;
                Ok((r.try_get::<i64, _>("seq")? as u64, kind, r.try_get("data")?))
            })
            .collect()
    }

    pub async fn max_event_seq(&self) -> Result<u64> {
        let max: Option<i64> = sqlx::query_scalar("SELECT MAX(seq) FROM run_events").fetch_one(&self.pool).await?;
        Ok(max.unwrap_or(0).max(0) as u64)
    }

    /// Records a start of the engine and returns the first event id of this boot: `boot << 32`, above
    /// every id stored so far. Events are written in batches, so a killed process may have sent ids it
    /// never stored; numbering from the stored maximum would give those ids again to other events.
    /// Ids stay below 2^53 (exact in JavaScript) for 2^21 boots.
    pub async fn first_event_seq_of_this_boot(&self) -> Result<u64> {
        let boot: i64 = sqlx::query_scalar("INSERT INTO boots (started_at) VALUES (?) RETURNING n")
            .bind(warden_db::timestamp::now())
            .fetch_one(&self.writer)
            .await?;
        let base = u64::try_from(boot).unwrap_or(0) << 32;
        Ok(base.max(self.max_event_seq().await? + 1))
    }
}
