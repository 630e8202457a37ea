-- Notification channels: how a message reaches a person (or, for a shared channel, a team). The config is
-- the JSON of `warden_types::channel::ChannelConfig`, secrets included: it never leaves the server unmasked.
CREATE TABLE notify_channels (
    id          TEXT PRIMARY KEY,
    -- whose channel it is; NULL for a shared channel (made by an owner, named by policies per rule)
    person_id   TEXT,
    name        TEXT NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('webhook', 'slack', 'discord', 'ntfy', 'email', 'web_push')),
    config      TEXT NOT NULL,
    created_by  TEXT NOT NULL,
    -- RFC 3339 UTC with milliseconds (sorts as text)
    created_at  TEXT NOT NULL,
    -- the last "Send a test": when, whether it worked, the channel's answer or the error
    tested_at   TEXT,
    test_ok     INTEGER,
    test_detail TEXT,
    -- when the push service said the subscription is gone (404/410); sending to it stops
    gone_at     TEXT
);
CREATE INDEX notify_channels_person ON notify_channels (person_id, created_at);

-- The SMTP server e-mail channels go through, as an owner set it (one row). `WARDEN_SMTP_URL` overrides it.
CREATE TABLE notify_smtp (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    host       TEXT NOT NULL,
    port       INTEGER NOT NULL,
    security   TEXT NOT NULL CHECK (security IN ('tls', 'start_tls', 'none')),
    user       TEXT,
    password   TEXT,
    from_addr  TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

-- This Warden's VAPID key pair (RFC 8292), made once: browsers subscribe with its public key, and a push
-- service accepts only pushes signed with it. The P-256 private key, base64url.
CREATE TABLE notify_vapid (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    private_key TEXT NOT NULL,
    created_at  TEXT NOT NULL
);
