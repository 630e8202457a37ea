-- A thread imported from a JSON export: when. Its approvals were decided elsewhere, so the audit log of
-- this server leaves them out.
ALTER TABLE threads ADD COLUMN imported_at TEXT;
