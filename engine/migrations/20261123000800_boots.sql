-- One row per start of the engine. Run event ids are numbered from `n << 32` in each boot, so an id a
-- client saw from a process that was killed before its events were written is never given again.
CREATE TABLE boots (
    n INTEGER PRIMARY KEY AUTOINCREMENT,
    started_at TEXT NOT NULL
);
