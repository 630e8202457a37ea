-- Model providers added in Settings (those from environment variables are not stored), the model a
-- thread uses, and the model each run was started with.
CREATE TABLE providers (
    id              TEXT PRIMARY KEY,
    name            TEXT NOT NULL UNIQUE,
    kind            TEXT NOT NULL,
    base_url        TEXT NOT NULL,
    -- never sent to the browser; the data dir is hidden from every sandboxed command
    api_key         TEXT,
    default_model   TEXT NOT NULL,
    -- JSON array of names the API listed at the last connection test
    models          TEXT NOT NULL DEFAULT '[]',
    text_tool_calls INTEGER NOT NULL DEFAULT 0,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);

ALTER TABLE threads ADD COLUMN provider_id TEXT;
ALTER TABLE threads ADD COLUMN model TEXT;
ALTER TABLE runs ADD COLUMN provider_id TEXT;
ALTER TABLE runs ADD COLUMN model TEXT;
