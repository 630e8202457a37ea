-- MCP servers the user configured (owned by warden-mcp). The config is warden-mcp's own JSON
-- (`McpServerConfig`, secrets included: this table never leaves the server); the last-known
-- tools and server identity let offline servers keep listing their tools after a restart.
-- Databases made before warden-mcp had its own migrations already have this table (the engine's
-- migrations created it): `IF NOT EXISTS` keeps their rows.
CREATE TABLE IF NOT EXISTS mcp_servers (
    name TEXT PRIMARY KEY NOT NULL,
    config_json TEXT NOT NULL,
    known_tools_json TEXT NOT NULL DEFAULT '[]',
    server_info_json TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
