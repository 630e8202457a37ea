-- Outside approvals (owned by warden-outside, migrations recorded in `_warden_outside_migrations`):
-- the clients that may ask (token kept only as its SHA-256), their requests with the decision each
-- got, and the global policy.
CREATE TABLE outside_clients (
    id          TEXT PRIMARY KEY NOT NULL,
    name        TEXT NOT NULL,
    -- hex SHA-256 of the token; the token itself is shown once and never stored
    token_hash  TEXT NOT NULL UNIQUE,
    -- the client's policy override (`ClientPolicy` JSON)
    policy      TEXT NOT NULL DEFAULT '{}',
    created_at  TEXT NOT NULL,
    revoked_at  TEXT
);

CREATE TABLE outside_requests (
    id                TEXT PRIMARY KEY NOT NULL,
    client_id         TEXT NOT NULL REFERENCES outside_clients (id),
    -- the client's own id: one request per (client, id), however often it is sent
    client_request_id TEXT NOT NULL,
    -- security_evaluation | code_response
    kind              TEXT NOT NULL,
    -- the frame as received (`ClientFrame` JSON)
    payload           TEXT NOT NULL,
    -- low | medium | high (security evaluations)
    risk              TEXT,
    -- Warden's id of the security evaluation a code response follows
    follows           TEXT REFERENCES outside_requests (id),
    -- pending | approved | rejected | expired
    status            TEXT NOT NULL,
    -- `Decision` JSON once decided
    decision          TEXT,
    -- person | policy | timeout, for filtering
    decided_by        TEXT,
    timeout_secs      INTEGER NOT NULL,
    created_at        TEXT NOT NULL,
    expires_at        TEXT NOT NULL,
    decided_at        TEXT,
    -- when the decision went out to the client (a reconnecting client gets the others)
    delivered_at      TEXT,
    UNIQUE (client_id, client_request_id)
);
CREATE INDEX outside_requests_by_status ON outside_requests (status, created_at DESC);
CREATE INDEX outside_requests_by_expiry ON outside_requests (expires_at) WHERE status = 'pending';
CREATE INDEX outside_requests_undelivered ON outside_requests (client_id, decided_at)
    WHERE decided_at IS NOT NULL AND delivered_at IS NULL;

-- One row per setting (`policy`: the global `Policy` JSON).
CREATE TABLE outside_settings (
    key   TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
);
