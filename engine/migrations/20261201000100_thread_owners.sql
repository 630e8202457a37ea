-- Threads belong to who started them (issue 39). `owner_id` names a person of warden-people (their table
-- is that crate's, so no foreign key across crates); NULL is a thread from before people, which the
-- server gives to the founding owner at start (`Engine::adopt_unowned_threads`). Imported threads belong
-- to the importer; branches are messages of their thread and need nothing of their own.
ALTER TABLE threads ADD COLUMN owner_id TEXT;
CREATE INDEX threads_by_owner ON threads (owner_id, archived, updated_at DESC, id DESC);

-- Who else may read a thread: a named person, or everyone signed in (person_id NULL). Sharing is for
-- reading only: the owner alone writes to a thread (a second writer would make a run "asked by" two
-- people). One row per person; "everyone" is at most one row per thread.
CREATE TABLE thread_shares (
    thread_id  TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    person_id  TEXT,
    created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX thread_shares_once ON thread_shares (thread_id, coalesce(person_id, ''));
CREATE INDEX thread_shares_by_person ON thread_shares (person_id, thread_id);
