-- Executors Warden dials (it connects out to their WebSocket). Each asks as the outside client it
-- names; only the direction of the socket differs from a client that connects in.
CREATE TABLE outside_executors (
    id            TEXT PRIMARY KEY NOT NULL,
    client_id     TEXT NOT NULL UNIQUE REFERENCES outside_clients (id),
    -- ws:// or wss:// address
    url           TEXT NOT NULL,
    -- the token Warden sends as `Authorization: Bearer` when it dials: the executor's secret, needed
    -- in clear to dial, never shown again
    bearer_token  TEXT,
    enabled       INTEGER NOT NULL,
    created_at    TEXT NOT NULL
);
