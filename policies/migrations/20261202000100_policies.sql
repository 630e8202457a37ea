-- Approval policies, tried in `position` order: the first whose conditions all hold routes a request to its
-- approvers. Conditions and approvers are JSON (`warden_types::policy::PolicyMatch`, `Approvers`).
CREATE TABLE policies (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    position      INTEGER NOT NULL,
    match_json    TEXT NOT NULL,
    approvers     TEXT NOT NULL,
    quorum        INTEGER NOT NULL CHECK (quorum >= 1),
    self_approval INTEGER NOT NULL CHECK (self_approval IN (0, 1)),
    timeout_secs  INTEGER CHECK (timeout_secs IS NULL OR timeout_secs >= 1),
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
);
CREATE INDEX policies_by_position ON policies (position, id);
