-- A thread's switches, set from the composer: tools offered at all, MCP servers' tools among them, and
-- the step limit of its runs (NULL: the server's default, WARDEN_MAX_STEPS).
ALTER TABLE threads ADD COLUMN tools_enabled INTEGER NOT NULL DEFAULT 1;
ALTER TABLE threads ADD COLUMN mcp_enabled INTEGER NOT NULL DEFAULT 1;
ALTER TABLE threads ADD COLUMN max_steps INTEGER;
