-- Sign-in with an OpenID Connect provider. A person is found by the provider's (issuer, subject) pair,
-- never by an email or a name the provider sends (those can change hands).
CREATE TABLE oidc_identities (
    issuer     TEXT NOT NULL,
    subject    TEXT NOT NULL,
    person_id  TEXT NOT NULL REFERENCES people(id),
    created_at TEXT NOT NULL,
    PRIMARY KEY (issuer, subject)
);
CREATE INDEX oidc_identities_by_person ON oidc_identities (person_id);

-- Someone the provider signed in for the first time without a role claim Warden knows: not a person yet,
-- with no access, until an owner lets them in with a role (or turns them away: the row goes).
CREATE TABLE oidc_waiting (
    id            TEXT PRIMARY KEY,
    issuer        TEXT NOT NULL,
    subject       TEXT NOT NULL,
    -- what the provider says they are called, and the login Warden would give them
    name          TEXT NOT NULL,
    login         TEXT NOT NULL,
    email         TEXT,
    first_seen_at TEXT NOT NULL,
    last_seen_at  TEXT NOT NULL,
    UNIQUE (issuer, subject)
);
