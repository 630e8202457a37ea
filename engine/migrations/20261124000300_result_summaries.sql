-- What the model sees of a long tool result instead of the result: a summary made once by the run's
-- model and the ids, URLs, paths and numbers of the result that the summary left out (JSON array).
-- `summary` is NULL when making it failed (`failure` says why): the model then sees the result cut,
-- and it is not tried again. The result itself stays whole in tool_calls.output.
CREATE TABLE result_summaries (
    tool_call_id TEXT PRIMARY KEY REFERENCES tool_calls (id) ON DELETE CASCADE,
    thread_id    TEXT NOT NULL,
    summary      TEXT,
    kept         TEXT NOT NULL DEFAULT '[]',
    failure      TEXT,
    created_at   TEXT NOT NULL
);
CREATE INDEX result_summaries_by_thread ON result_summaries (thread_id);

-- The tools `search_tools` found in a run: offered to the model for the rest of that run, also after a
-- restart.
CREATE TABLE found_tools (
    run_id   TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    name     TEXT NOT NULL,
    found_at TEXT NOT NULL,
    PRIMARY KEY (run_id, name)
);
