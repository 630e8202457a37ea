-- What Warden sent about a request, to which channel, and what became of it: the delivery log.
CREATE TABLE notifications (
    id TEXT PRIMARY KEY,
    request_kind TEXT NOT NULL,
    request_id TEXT NOT NULL,
    -- Whose channel (NULL: a shared channel, such as a team's chat), and their name then.
    person_id TEXT,
    person_name TEXT,
    channel_id TEXT NOT NULL,
    channel_kind TEXT NOT NULL,
    channel_name TEXT NOT NULL,
    -- request | reminder | escalated
    reason TEXT NOT NULL,
    -- The escalation step it belongs to (0: the first group).
    step INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    delivered_at TEXT,
    detail TEXT,
    failed_at TEXT,
    error TEXT,
    opened_at TEXT
);
CREATE INDEX notifications_by_request ON notifications (request_kind, request_id, created_at);

-- Single-use decision links: one request, one person, one intended action (approve or deny). Only the
-- SHA-256 of the link's secret is kept. Opening the link (GET) only shows a confirm page; the POST from that
-- page burns the link (`used_at`) before the decision is made.
CREATE TABLE decision_links (
    id TEXT PRIMARY KEY,
    secret_hash TEXT NOT NULL UNIQUE,
    request_kind TEXT NOT NULL,
    request_id TEXT NOT NULL,
    person_id TEXT NOT NULL,
    -- approve | deny
    intent TEXT NOT NULL,
    notification_id TEXT,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    opened_at TEXT,
    used_at TEXT,
    -- What the POST did, in words ("approved", "this request was decided already").
    outcome TEXT
);
CREATE INDEX decision_links_by_request ON decision_links (request_kind, request_id);
