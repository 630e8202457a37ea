-- At most one run of a thread is running or waiting. Starting a run checked it inside its INSERT; as an
-- index it is the schema's, so a start can go to SQLite as one batch of statements that fails as a
-- whole when another run is active. A duplicate could only come from a bug; should one exist, every
-- active run but the newest of its thread (ids are time-ordered) is failed first.
UPDATE runs SET status = 'failed', error = 'Ended: a later run of the thread was active.',
    finished_at = COALESCE(finished_at, created_at)
 WHERE status IN ('running', 'waiting')
   AND id NOT IN (SELECT MAX(id) FROM runs WHERE status IN ('running', 'waiting') GROUP BY thread_id);
CREATE UNIQUE INDEX one_active_run_per_thread ON runs (thread_id) WHERE status IN ('running', 'waiting');
