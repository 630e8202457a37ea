-- Connection checks: a run that needs an MCP server that is offline or disabled (the model called one of
-- its tools, or the person's message named it with @name) waits for the person to Connect it or Continue
-- anyway. The calls that wait on a check point at it; "Continue anyway" leaves the server out of the
-- thread until `until` (an hour), so the thread is not asked again for it meanwhile.
CREATE TABLE connection_checks (
    id         TEXT PRIMARY KEY,
    run_id     TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    thread_id  TEXT NOT NULL,
    server     TEXT NOT NULL,
    -- JSON: {"kind":"called_tool","tool":...} or {"kind":"mentioned"}
    reason     TEXT NOT NULL,
    -- offline | disabled
    down       TEXT NOT NULL,
    -- pending | connected | continued_without | cancelled
    status     TEXT NOT NULL,
    error      TEXT,
    created_at TEXT NOT NULL,
    decided_at TEXT
);
CREATE INDEX connection_checks_by_run ON connection_checks (run_id);
CREATE INDEX connection_checks_by_thread ON connection_checks (thread_id);
-- At most one open question per run and server.
CREATE UNIQUE INDEX connection_checks_pending ON connection_checks (run_id, server) WHERE status = 'pending';

ALTER TABLE tool_calls ADD COLUMN connection_check_id TEXT;
CREATE INDEX tool_calls_by_check ON tool_calls (connection_check_id) WHERE connection_check_id IS NOT NULL;

CREATE TABLE servers_left_out (
    thread_id TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    server    TEXT NOT NULL,
    -- RFC 3339 UTC with milliseconds (sorts as text): asked again from then on
    until     TEXT NOT NULL,
    PRIMARY KEY (thread_id, server)
) WITHOUT ROWID;
