//! The SQLite file every part of Warden shares, as a handle. The engine runs its own migrations
//! on it; other crates (warden-mcp, warden-outside, warden-sessions) own their tables and run their
//! own migrations on the same file through this handle, never through the engine's store.

use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::SqlitePool;

/// Each connection's page cache, in KiB (SQLite's default is 2,000 KiB). In WAL mode a reader
/// drops its whole cache when its next read transaction sees that the file changed, and Warden
/// writes at every run event; so beyond what one statement reads, a larger cache is memory that
/// fills and is not reused. Measured with `warden-bench` at 256 against 2,000: reads of a 5,000-message
/// thread, search, the approvals round and 1,000 streaming runs within noise; the server's peak
/// RSS under 1,000 streams 11-15 MB lower, and 500 open listeners 2.5 MB lower (SQLite's caches
/// filling as their replays read the events).
const PAGE_CACHE_KIB: u32 = 256;

/// How many connections read: twice the CPUs, at least 2 and at most 8. A read of a file the OS has in
/// its cache is CPU work, so more readers than that only wait for a core, while each holds a thread and
/// a page cache (up to `PAGE_CACHE_KIB`) that fills as replays read the log. Measured with `warden-bench`
/// on 2 cores, 4 readers against 8 in the same minutes: 500 open listeners cost 14.7-15.7 KiB each on
/// average instead of 16.3-16.5; 1,000 streaming runs (CPU per run, token gaps) and the approvals round
/// within noise.
fn reading_connections() -> u32 {
    let cpus = std::thread::available_parallelism().map_or(2, |n| u32::try_from(n.get()).unwrap_or(u32::MAX));
    cpus.saturating_mul(2).clamp(2, 8)
}

/// When the WAL's pages are copied into the database file (a checkpoint), and when the WAL starts over.
#[derive(Clone, Copy, Debug)]
struct Checkpoints {
    /// How often a reading connection checkpoints, off the write path.
    every: Duration,
    /// From how many pages in the WAL a checkpoint also runs on the writer connection, so that the WAL
    /// starts over from its beginning (see `checkpoint_now_and_then`).
    start_over_at: i64,
}

const CHECKPOINTS: Checkpoints = Checkpoints { every: Duration::from_secs(1), start_over_at: 4096 };

/// What a WAL that grew past this is cut back to when it starts over (SQLite's `journal_size_limit`):
/// the file keeps its room for a busy second or two, and gives back what a burst took beyond that.
const WAL_KEEP_BYTES: u64 = 16 * 1024 * 1024;

/// How long a statement waits for SQLite's write lock, or a writer for the writer connection.
const WRITE_WAIT: Duration = Duration::from_secs(10);

/// One open SQLite database (WAL, foreign keys on). Cheap to clone; clones share the pools.
///
/// Reads go to `pool`; every write goes to `writer`, one connection. SQLite lets one writer in at a
/// time anyway, and a connection that finds the write lock taken sleeps in its busy handler (1 ms
/// first, then 2, 5, 10...) before it tries again: measured in `warden-bench approvals`, one write in
/// ten outside a transaction slept so, a millisecond each on the way from a message to its card.
/// Writers queued for the one connection are woken as soon as it is free, and never sleep.
#[derive(Clone, Debug)]
pub struct Database {
    pool: SqlitePool,
    writer: SqlitePool,
}

impl Database {
    /// Opens (creating if needed, with its folder) the database at `database_url`. Runs no migrations.
    /// A failure to prepare the file (its folder, its modes) is `sqlx::Error::Io`.
    pub async fn open(database_url: &str) -> sqlx::Result<Self> {
        Self::open_with(database_url, WRITE_WAIT, CHECKPOINTS).await
    }

    /// `open`, with SQLite's busy timeout and the checkpoints' schedule given (the tests turn the first
    /// off and make the second quick).
    async fn open_with(database_url: &str, busy_timeout: Duration, checkpoints: Checkpoints) -> sqlx::Result<Self> {
        let options = SqliteConnectOptions::from_str(database_url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(busy_timeout)
            .foreign_keys(true)
            .pragma("cache_size", format!("-{PAGE_CACHE_KIB}"))
            // Checkpoints are `checkpoint_now_and_then`'s, never a commit's.
            .pragma("wal_autocheckpoint", "0")
            .pragma("journal_size_limit", WAL_KEEP_BYTES.to_string());
        // The file (0600) and its folder (0700) before SQLite makes them with the umask's modes: SQLite
        // gives the `-wal`, `-shm` and `-journal` the file's own mode.
        let file = options.get_filename().to_path_buf();
        let name = file.to_string_lossy();
        if !name.is_empty() && name != ":memory:" && !name.starts_with("file:") {
            let tightened = tokio::task::spawn_blocking(move || crate::private_files::prepare_database_file(&file))
                .await
                .map_err(std::io::Error::other)
                .flatten()
                .map_err(sqlx::Error::Io)?;
            if let Some(first) = tightened.first() {
                tracing::warn!(file = %first.display(), count = tightened.len(), "the database was open to other local users; now 0600");
            }
        }
        // No ping before each use: it is a round trip to the connection's worker thread, which doubled
        // the cost of every statement, and a connection to a local file has no far end to lose.
        let pool = SqlitePoolOptions::new()
            .max_connections(reading_connections())
            .test_before_acquire(false)
            .connect_with(options.clone())
            .await?;
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .acquire_timeout(WRITE_WAIT)
            .test_before_acquire(false)
            .connect_with(options)
            .await?;
        tokio::spawn(checkpoint_now_and_then(pool.clone(), writer.clone(), checkpoints));
        Ok(Self { pool, writer })
    }

    /// The reading connections, for a crate that owns its own tables in this file (with its own
    /// migrator and migrations table: see `warden_mcp::McpStore::open`); it writes through `writer`.
    pub fn pool(&self) -> &SqlitePool {
        &self.pool
    }

    /// The one connection every write goes through (statements and `BEGIN IMMEDIATE` transactions).
    pub fn writer(&self) -> &SqlitePool {
        &self.writer
    }
}

/// Checkpoints the WAL every `checkpoints.every` on a reading connection, until the pool is closed
/// (a task of the runtime that opened the database: the server opens it on the one it serves from).
/// Left to itself, SQLite checkpoints inside the commit that takes the WAL past 1,000 pages: the
/// pages are copied and synced while that write (a run's step, a decision) and every writer queued
/// behind it wait. Measured in `warden-bench approvals`, this task against SQLite's own checkpoints
/// in the same minutes: message to card p95 4.0-4.8 ms against 7.0-9.2, decision to result 5.2-5.8
/// against 5.9-7.5. A passive checkpoint copies what no reader still needs and blocks neither
/// readers nor the writer.
///
/// But it does not let the WAL start over. SQLite writes the WAL from its beginning again only when a
/// write finds every page of it copied; a checkpoint on a reading connection runs while writes go on,
/// so under steady writing it always ends a few pages behind, and the file grew without end: 3.2 GB
/// beside a 67 MB database after `warden-bench waiting` (10,050 runs), and the server's next start
/// read all of it (1.16 s to its health check, against 58 ms with an empty store). So once the WAL
/// holds `start_over_at` pages, the checkpoint runs once more on the writer connection: no write
/// comes between its end and the next write, which then starts the WAL over (unless a reader began
/// before the checkpoint and is still reading; then a later round does it). That one holds the
/// writes back while it copies the few pages written since the first and syncs the database file.
async fn checkpoint_now_and_then(pool: SqlitePool, writer: SqlitePool, checkpoints: Checkpoints) {
    let mut every = tokio::time::interval(checkpoints.every);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        if pool.is_closed() {
            return;
        }
        let in_wal = match checkpoint(&pool).await {
            Ok((in_wal, _copied)) => in_wal,
            Err(error) => {
                tracing::warn!(%error, "could not checkpoint the database's WAL");
                continue;
            }
        };
        if in_wal >= checkpoints.start_over_at && !writer.is_closed() {
            if let Err(error) = checkpoint(&writer).await {
                tracing::warn!(%error, "could not checkpoint the database's WAL on the writer");
            }
        }
    }
}

/// One passive checkpoint: the pages in the WAL and how many of them are now in the database file.
async fn checkpoint(pool: &SqlitePool) -> sqlx::Result<(i64, i64)> {
    let (_busy, in_wal, copied): (i64, i64, i64) =
        sqlx::query_as("PRAGMA wal_checkpoint(PASSIVE)").fetch_one(pool).await?;
    Ok((in_wal, copied))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn every_connection_has_the_small_page_cache() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("warden.db").display());
        let db = Database::open(&url).await.unwrap();
        // Several connections at once, so the pool opens more than one.
        let mut held = Vec::new();
        for _ in 0..3 {
            let mut conn = db.pool().acquire().await.unwrap();
            let size: i64 = sqlx::query_scalar("PRAGMA cache_size").fetch_one(&mut *conn).await.unwrap();
            assert_eq!(size, -i64::from(PAGE_CACHE_KIB));
            held.push(conn);
        }
    }

    /// As many reads as there are reading connections run at once (at least two), and no more.
    #[tokio::test]
    async fn reads_share_twice_as_many_connections_as_cpus() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("warden.db").display());
        let db = Database::open(&url).await.unwrap();
        let readers = reading_connections();
        let cpus = std::thread::available_parallelism().unwrap().get() as u32;
        assert_eq!(readers, (2 * cpus).clamp(2, 8));
        let mut held = Vec::new();
        for _ in 0..readers {
            let mut conn = db.pool().acquire().await.unwrap();
            let one: i64 = sqlx::query_scalar("SELECT 1").fetch_one(&mut *conn).await.unwrap();
            assert_eq!(one, 1);
            held.push(conn);
        }
        assert!(db.pool().try_acquire().is_none(), "a read beyond {readers} waits for a connection");
        held.pop();
        // The pool takes a connection back on a task of its own; a read waiting for one then gets it.
        db.pool().acquire().await.expect("a read gets the connection given back");
    }

    /// No connection checkpoints as it commits; the background checkpoint copies the WAL's pages.
    #[tokio::test]
    async fn commits_leave_the_checkpoint_to_the_background() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("warden.db").display());
        let db = Database::open(&url).await.unwrap();
        for pool in [db.pool(), db.writer()] {
            let every: i64 = sqlx::query_scalar("PRAGMA wal_autocheckpoint").fetch_one(pool).await.unwrap();
            assert_eq!(every, 0);
        }
        sqlx::query("CREATE TABLE t (n INTEGER)").execute(db.writer()).await.unwrap();
        for n in 0..50 {
            sqlx::query("INSERT INTO t VALUES (?)").bind(n).execute(db.writer()).await.unwrap();
        }
        let (in_wal, copied) = checkpoint(db.pool()).await.unwrap();
        assert!(in_wal > 0, "the commits are in the WAL");
        assert_eq!(copied, in_wal, "and all of it is copied");
    }

    /// Writes one after another while reads go on, as a busy server's: the WAL starts over again and
    /// again instead of growing by every page written. Each commit writes a page or two, so 3,000 of
    /// them make a WAL of about 12-24 MB if it never starts over.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn under_steady_writing_the_wal_starts_over_instead_of_growing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("warden.db");
        let url = format!("sqlite://{}", path.display());
        let quick = Checkpoints { every: Duration::from_millis(5), start_over_at: 64 };
        let db = Database::open_with(&url, WRITE_WAIT, quick).await.unwrap();
        sqlx::query("CREATE TABLE t (n INTEGER PRIMARY KEY, body BLOB)").execute(db.writer()).await.unwrap();
        let reading = tokio_util::sync::CancellationToken::new();
        let reader = tokio::spawn({
            let (pool, reading) = (db.pool().clone(), reading.clone());
            async move {
                let mut reads = 0u64;
                while !reading.is_cancelled() {
                    let _: Option<i64> = sqlx::query_scalar("SELECT max(n) FROM t").fetch_one(&pool).await.unwrap();
                    reads += 1;
                }
                reads
            }
        });
        let wal = dir.path().join("warden.db-wal");
        let body = vec![7u8; 2000];
        let mut largest = 0;
        for n in 0..3000 {
            sqlx::query("INSERT INTO t VALUES (?, ?)").bind(n).bind(&body).execute(db.writer()).await.unwrap();
            largest = largest.max(std::fs::metadata(&wal).unwrap().len());
        }
        reading.cancel();
        assert!(reader.await.unwrap() > 0, "reads went on meanwhile");
        let count: i64 = sqlx::query_scalar("SELECT count(*) FROM t").fetch_one(db.pool()).await.unwrap();
        assert_eq!(count, 3000);
        assert!(largest < 4 << 20, "the WAL grew to {largest} bytes");
    }

    /// With SQLite's busy wait off, a write that finds the write lock taken is refused at once: what
    /// a second connection gets. Through the writer it waits for its turn instead, and is stored.
    #[tokio::test]
    async fn a_writer_waits_its_turn_where_a_second_connection_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("warden.db").display());
        let db = Database::open_with(&url, Duration::ZERO, CHECKPOINTS).await.unwrap();
        sqlx::query("CREATE TABLE t (n INTEGER)").execute(db.writer()).await.unwrap();

        let mut held = db.writer().begin_with("BEGIN IMMEDIATE").await.unwrap();
        sqlx::query("INSERT INTO t VALUES (1)").execute(&mut *held).await.unwrap();
        let refused = sqlx::query("INSERT INTO t VALUES (2)").execute(db.pool()).await.unwrap_err();
        assert!(refused.to_string().contains("locked"), "{refused}");
        let queued = tokio::spawn({
            let writer = db.writer().clone();
            async move { sqlx::query("INSERT INTO t VALUES (3)").execute(&writer).await }
        });
        held.commit().await.unwrap();
        queued.await.unwrap().unwrap();

        let stored: Vec<i64> = sqlx::query_scalar("SELECT n FROM t ORDER BY n").fetch_all(db.pool()).await.unwrap();
        assert_eq!(stored, [1, 3]);
    }
}
