-- Signed-in browsers: one row per sign-in. The cookie holds a random secret; only its SHA-256 is kept
-- here, so the database (or a copy of it) signs nobody in. A row removed is a browser signed out.
CREATE TABLE browser_sessions (
    id           TEXT PRIMARY KEY,
    -- hex SHA-256 of the cookie's 32 random bytes
    secret_hash  TEXT NOT NULL UNIQUE,
    -- RFC 3339 UTC with milliseconds (sorts as text)
    created_at   TEXT NOT NULL,
    last_seen_at TEXT NOT NULL,
    -- what the browser said it was, and where it signed in from (display only)
    user_agent   TEXT,
    address      TEXT
);
