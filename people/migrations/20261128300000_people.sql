-- The people who use this Warden. The first row is the owner who installed it and signs in by the printed
-- link; everyone else came in by an invitation. A row is never deleted (the audit log names people by id):
-- an account is disabled instead.
CREATE TABLE people (
    id            TEXT PRIMARY KEY,
    -- what they sign in with; unique whatever its case
    login         TEXT NOT NULL UNIQUE COLLATE NOCASE,
    -- how the pages name them
    name          TEXT NOT NULL,
    role          TEXT NOT NULL CHECK (role IN ('owner', 'approver', 'member', 'viewer')),
    -- argon2id PHC string; NULL when they sign in otherwise (the owner's link, a passkey, the identity provider)
    password_hash TEXT,
    -- RFC 3339 UTC with milliseconds (sorts as text)
    created_at    TEXT NOT NULL,
    -- who invited them (NULL for the founding owner)
    invited_by    TEXT REFERENCES people(id),
    disabled_at   TEXT
);

-- Invitations: the link carries 32 random bytes, only their SHA-256 is kept. Single use: `used_at` and
-- `used_by` are set in the same statement that checks them.
CREATE TABLE invitations (
    id          TEXT PRIMARY KEY,
    secret_hash TEXT NOT NULL UNIQUE,
    role        TEXT NOT NULL CHECK (role IN ('owner', 'approver', 'member', 'viewer')),
    -- the name suggested to the invitee, if any
    name        TEXT,
    created_by  TEXT NOT NULL REFERENCES people(id),
    created_at  TEXT NOT NULL,
    expires_at  TEXT NOT NULL,
    used_at     TEXT,
    used_by     TEXT REFERENCES people(id),
    revoked_at  TEXT
);
