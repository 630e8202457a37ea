-- Threads, runs, messages, tool calls, approvals, thread rules and the run event log.
CREATE TABLE threads (
    id           TEXT PRIMARY KEY,
    title        TEXT NOT NULL,
    -- default | prompt | model | user: a model title replaces only default/prompt ones
    title_source TEXT NOT NULL DEFAULT 'default',
    archived     INTEGER NOT NULL DEFAULT 0,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
);
CREATE INDEX threads_by_update ON threads (archived, updated_at DESC, id DESC);

CREATE TABLE runs (
    id          TEXT PRIMARY KEY,
    thread_id   TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    status      TEXT NOT NULL,
    step        INTEGER NOT NULL DEFAULT 0,
    max_steps   INTEGER NOT NULL,
    error       TEXT,
    created_at  TEXT NOT NULL,
    finished_at TEXT
);
CREATE INDEX runs_by_thread ON runs (thread_id, created_at);
CREATE INDEX runs_by_status ON runs (status);

CREATE TABLE messages (
    id         TEXT PRIMARY KEY,
    thread_id  TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    run_id     TEXT,
    position   INTEGER NOT NULL,
    role       TEXT NOT NULL,
    blocks     TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX messages_by_thread ON messages (thread_id, position);

CREATE TABLE tool_calls (
    id             TEXT PRIMARY KEY,
    run_id         TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    thread_id      TEXT NOT NULL,
    message_id     TEXT NOT NULL,
    position       INTEGER NOT NULL,
    call_id        TEXT NOT NULL,
    name           TEXT NOT NULL,
    origin         TEXT NOT NULL,
    arguments      TEXT NOT NULL,
    summary        TEXT NOT NULL,
    risk           TEXT NOT NULL,
    needs_approval INTEGER NOT NULL,
    preview        TEXT,
    status         TEXT NOT NULL,
    output         TEXT,
    is_error       INTEGER NOT NULL DEFAULT 0,
    truncated      INTEGER NOT NULL DEFAULT 0,
    created_at     TEXT NOT NULL,
    started_at     TEXT,
    finished_at    TEXT
);
CREATE INDEX tool_calls_by_message ON tool_calls (message_id, position);
CREATE INDEX tool_calls_by_thread ON tool_calls (thread_id);
CREATE INDEX tool_calls_by_run ON tool_calls (run_id);
CREATE INDEX tool_calls_by_status ON tool_calls (status) WHERE status IN ('approved', 'running');

CREATE TABLE approvals (
    id           TEXT PRIMARY KEY,
    tool_call_id TEXT NOT NULL UNIQUE REFERENCES tool_calls (id) ON DELETE CASCADE,
    run_id       TEXT NOT NULL,
    thread_id    TEXT NOT NULL,
    -- the arguments the model proposed (the tool call row holds the ones it runs with)
    arguments    TEXT NOT NULL,
    status       TEXT NOT NULL,
    decision     TEXT,
    created_at   TEXT NOT NULL,
    decided_at   TEXT,
    expires_at   TEXT
);
CREATE INDEX approvals_by_status ON approvals (status, created_at);
CREATE INDEX approvals_by_thread ON approvals (thread_id);
CREATE INDEX approvals_by_expiry ON approvals (expires_at) WHERE expires_at IS NOT NULL AND status = 'pending';

CREATE TABLE thread_rules (
    id         TEXT PRIMARY KEY,
    thread_id  TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    tool       TEXT NOT NULL,
    matcher    TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX thread_rules_by_thread ON thread_rules (thread_id);

CREATE TABLE run_events (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq    INTEGER NOT NULL,
    kind   TEXT NOT NULL,
    data   TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE INDEX run_events_by_seq ON run_events (seq);
