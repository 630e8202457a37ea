//! Write statements gathered to go to SQLite as one query: the statements one after the other, their
//! arguments in order (sqlx-sqlite binds them across the statements). Every query is a round trip to
//! the connection's own thread (24-34 µs measured here): a turn's transaction of `BEGIN`, three
//! inserts and `COMMIT` was five of them, and is one as a batch ([`Store::commit`]).
//!
//! Statements of a batch use plain `?` parameters only: a numbered one (`?1`) would count from the
//! batch's first argument, not its statement's.

use sqlx::sqlite::{SqliteArguments, SqliteRow};
use sqlx::{Arguments, Encode, Sqlite, Transaction, Type};

use super::Store;
use crate::error::{Error, Result};

#[derive(Default)]
pub struct WriteBatch {
    sql: String,
    args: SqliteArguments,
    /// The first argument that could not be encoded: the batch then runs nothing.
    unencodable: Option<String>,
}

/// Binds the arguments of the statement just added, in the order of its `?`s.
pub struct Binder<'b>(&'b mut WriteBatch);

impl Binder<'_> {
    pub fn bind<'t, T: Encode<'t, Sqlite> + Type<Sqlite>>(self, value: T) -> Self {
        if let Err(e) = self.0.args.add(value) {
            self.0.unencodable.get_or_insert_with(|| e.to_string());
        }
        self
    }
}

impl WriteBatch {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a statement (or several, `;`-separated) to the batch; bind its arguments on what it returns.
    pub fn push(&mut self, sql: &str) -> Binder<'_> {
        self.sql.push_str(sql.trim().trim_end_matches(';'));
        self.sql.push_str(";\n");
        Binder(self)
    }

    pub fn is_empty(&self) -> bool {
        self.sql.is_empty()
    }

    /// The query, and its arguments, or why one could not be encoded.
    fn into_query(self, around: Option<(&str, &str)>) -> Result<(String, SqliteArguments)> {
        if let Some(e) = self.unencodable {
            return Err(Error::Corrupt(format!("an argument of a write could not be encoded: {e}")));
        }
        let sql = match around {
            Some((before, after)) => format!("{before};\n{}{after};", self.sql),
            None => self.sql,
        };
        Ok((sql, self.args))
    }

    /// Runs the statements inside the caller's transaction (one round trip); the rows the statements
    /// returned, in order. An error leaves the transaction to the caller, who drops it (rolled back).
    pub async fn run_in(self, tx: &mut Transaction<'static, Sqlite>) -> Result<Vec<SqliteRow>> {
        if self.is_empty() {
            return Ok(Vec::new());
        }
        let (sql, args) = self.into_query(None)?;
        Ok(sqlx::query_with(sqlx::AssertSqlSafe(sql), args).fetch_all(&mut **tx).await?)
    }
}

/// The mark a statement of a batch put on its rows (a `returned_as` column), to tell them apart from
/// the rows of the batch's other statements; `None` for rows without one.
pub(super) fn returned_as(row: &SqliteRow) -> Option<&str> {
    use sqlx::Row;
    row.try_get::<&str, _>("returned_as").ok()
}

impl Store {
    /// Runs the batch as one transaction of its own (`BEGIN IMMEDIATE` ... `COMMIT`, as `write_tx`
    /// would) in one round trip to the writer connection; the rows its statements returned, in order.
    ///
    /// A statement that fails stops the batch before its `COMMIT`: what ran before it is rolled back
    /// before the writer is given to anyone else. If that rollback fails, or this future is dropped
    /// before the batch's outcome is known (its connection could be inside the transaction), the
    /// connection is closed instead of returned, and closing rolls back what was not committed.
    pub async fn commit(&self, batch: WriteBatch) -> Result<Vec<SqliteRow>> {
        if batch.is_empty() {
            return Ok(Vec::new());
        }
        let (sql, args) = batch.into_query(Some(("BEGIN IMMEDIATE", "COMMIT")))?;
        let mut writer = OnlyIfSettled { conn: self.writer.acquire().await?, settled: false };
        let outcome = sqlx::query_with(sqlx::AssertSqlSafe(sql), args).fetch_all(&mut *writer.conn).await;
        match outcome {
            Ok(rows) => {
                writer.settled = true;
                Ok(rows)
            }
            Err(e) => {
                // No transaction open (the `BEGIN` itself failed) is the one error `ROLLBACK` may give.
                match sqlx::query("ROLLBACK").execute(&mut *writer.conn).await {
                    Ok(_) => writer.settled = true,
                    Err(r) if r.as_database_error().is_some_and(|d| d.message().contains("no transaction")) => {
                        writer.settled = true
                    }
                    Err(r) => tracing::error!(error = %r, "could not roll back a failed write; closing the writer"),
                }
                Err(e.into())
            }
        }
    }
}

/// The writer connection of a batch: returned to the pool once the batch is known to have committed
/// or rolled back, closed otherwise.
struct OnlyIfSettled {
    conn: sqlx::pool::PoolConnection<Sqlite>,
    settled: bool,
}

impl Drop for OnlyIfSettled {
    fn drop(&mut self) {
        if !self.settled {
            self.conn.close_on_drop();
        }
    }
}

#[cfg(test)]
mod tests {
    use sqlx::Row;

    use super::*;
    use crate::store::test_db;

    async fn count(store: &Store, title: &str) -> i64 {
        sqlx::query_scalar("SELECT COUNT(*) FROM threads WHERE title = ?")
            .bind(title)
            .fetch_one(store.pool())
            .await
            .unwrap()
    }

    fn insert_thread(batch: &mut WriteBatch, id: &str, title: &str) {
        batch
            .push("INSERT INTO threads (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)")
            .bind(id)
            .bind(title)
            .bind("2026-01-01T00:00:00.000Z")
            .bind("2026-01-01T00:00:00.000Z");
    }

    /// The statements run in order with their own arguments, and the rows they return come back.
    #[tokio::test]
    async fn a_batch_commits_its_statements_and_returns_their_rows() {
        let (_dir, store) = test_db::store().await;
        let mut batch = WriteBatch::new();
        insert_thread(&mut batch, "a", "batched");
        insert_thread(&mut batch, "b", "batched");
        batch.push("UPDATE threads SET title = ? WHERE id = ?").bind("renamed").bind("b");
        batch.push("SELECT changes() AS changed");
        let rows = store.commit(batch).await.unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].get::<i64, _>("changed"), 1);
        assert_eq!(count(&store, "batched").await, 1);
        assert_eq!(count(&store, "renamed").await, 1);
    }

    /// A failing statement undoes the ones before it, and the writer is usable (not left inside the
    /// transaction) for the next write.
    #[tokio::test]
    async fn a_failing_statement_rolls_back_the_whole_batch() {
        let (_dir, store) = test_db::store().await;
        let mut batch = WriteBatch::new();
        insert_thread(&mut batch, "a", "kept out");
        insert_thread(&mut batch, "a", "kept out");
        let err = store.commit(batch).await.unwrap_err();
        assert!(err.to_string().contains("UNIQUE"), "{err}");
        assert_eq!(count(&store, "kept out").await, 0);

        let mut next = WriteBatch::new();
        insert_thread(&mut next, "a", "after");
        store.commit(next).await.unwrap();
        assert_eq!(count(&store, "after").await, 1);
        // A transaction the failed batch had left open would make this `BEGIN` fail.
        let mut tx = store.write_tx().await.unwrap();
        sqlx::query("SELECT 1").execute(&mut *tx).await.unwrap();
        tx.commit().await.unwrap();
    }

    /// Dropped before its outcome is known, a batch leaves nothing half-done: the writer it held is
    /// closed (rolling back), and the next write gets a connection outside any transaction.
    #[tokio::test]
    async fn a_batch_dropped_midway_leaves_no_open_transaction() {
        let (_dir, store) = test_db::store().await;
        let mut batch = WriteBatch::new();
        // Long enough (tens of milliseconds) to be under way when it is dropped.
        for i in 0..20_000 {
            insert_thread(&mut batch, &format!("t{i}"), "dropped");
        }
        // Polled until the query is on its way to the writer's thread, then dropped.
        {
            let fut = store.commit(batch);
            futures::pin_mut!(fut);
            for _ in 0..3 {
                if futures::poll!(fut.as_mut()).is_ready() {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_micros(300)).await;
            }
        }
        let mut next = WriteBatch::new();
        insert_thread(&mut next, "after", "after");
        store.commit(next).await.unwrap();
        assert_eq!(count(&store, "after").await, 1);
        let dropped = count(&store, "dropped").await;
        assert!(dropped == 0 || dropped == 20_000, "all or nothing, not {dropped}");
    }

    /// Inside a caller's transaction the batch is part of it: dropping the transaction undoes it.
    #[tokio::test]
    async fn a_batch_run_in_a_transaction_goes_with_it() {
        let (_dir, store) = test_db::store().await;
        let mut tx = store.write_tx().await.unwrap();
        let mut batch = WriteBatch::new();
        insert_thread(&mut batch, "a", "inside");
        batch.run_in(&mut tx).await.unwrap();
        drop(tx);
        assert_eq!(count(&store, "inside").await, 0);
    }

    /// The statements are joined in order, each ended once, inside the transaction's own.
    #[test]
    fn the_sql_joins_statements_in_order() {
        let mut batch = WriteBatch::new();
        batch.push("SELECT ?;").bind(1_i64);
        batch.push("SELECT ?").bind("x");
        let (sql, args) = batch.into_query(Some(("BEGIN IMMEDIATE", "COMMIT"))).unwrap();
        assert_eq!(sql, "BEGIN IMMEDIATE;\nSELECT ?;\nSELECT ?;\nCOMMIT;");
        assert_eq!(args.len(), 2);
    }
}
