-- An approval is bound to what its card showed: its own preview, and the state of the call's
-- target at preview time (`target_state`: for a file write `sha256:<hex>` of the file, or
-- `absent`). If the target changed before the approved call runs, that approval is settled as
-- `superseded` and the call gets a new one with the new diff, so a call can now have several
-- approvals over time (at most one pending): the UNIQUE on `tool_call_id` goes. SQLite cannot drop
-- a constraint in place, so the table is rebuilt. Later migrations that change `approvals` must
-- come after this one.
CREATE TABLE approvals_v2 (
    id           TEXT PRIMARY KEY,
    tool_call_id TEXT NOT NULL REFERENCES tool_calls (id) ON DELETE CASCADE,
    run_id       TEXT NOT NULL,
    thread_id    TEXT NOT NULL,
    -- the arguments the card showed (the model's, or the call's current ones for a new card)
    arguments    TEXT NOT NULL,
    status       TEXT NOT NULL,
    decision     TEXT,
    created_at   TEXT NOT NULL,
    decided_at   TEXT,
    expires_at   TEXT,
    -- the preview this card showed (JSON `Preview`)
    preview      TEXT,
    target_state TEXT
);
INSERT INTO approvals_v2 (id, tool_call_id, run_id, thread_id, arguments, status, decision, created_at,
                          decided_at, expires_at, preview, target_state)
SELECT a.id, a.tool_call_id, a.run_id, a.thread_id, a.arguments, a.status, a.decision, a.created_at,
       a.decided_at, a.expires_at, t.preview, NULL
FROM approvals a JOIN tool_calls t ON t.id = a.tool_call_id;
DROP TABLE approvals;
ALTER TABLE approvals_v2 RENAME TO approvals;
CREATE INDEX approvals_by_status ON approvals (status, created_at);
CREATE INDEX approvals_by_thread ON approvals (thread_id);
CREATE INDEX approvals_by_call ON approvals (tool_call_id, created_at);
CREATE INDEX approvals_by_expiry ON approvals (expires_at) WHERE expires_at IS NOT NULL AND status = 'pending';
CREATE UNIQUE INDEX approvals_one_pending_per_call ON approvals (tool_call_id) WHERE status = 'pending';
