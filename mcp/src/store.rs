//! Persistence of MCP server configs and their last-known tools in SQLite. warden-mcp owns its
//! table (`mcp_servers`) and its migrations (`mcp/migrations`, recorded in their own table
//! `_warden_mcp_migrations`), run on the database file the engine shares through its handle.

use sqlx::migrate::Migrator;
use sqlx::SqlitePool;
use warden_db::Database;

use crate::config::McpServerConfig;
use crate::error::{Error, Result};
use crate::model::{RemoteTool, ServerInfo};

/// One stored server.
#[derive(Debug, Clone)]
pub struct StoredServer {
    pub config: McpServerConfig,
    pub known_tools: Vec<RemoteTool>,
    pub server_info: Option<ServerInfo>,
}

/// Where warden-mcp's migrations are recorded: apart from the engine's `_sqlx_migrations`, so the
/// two crates' version numbers never meet and each migrator sees only its own history.
pub const MIGRATIONS_TABLE: &str = "_warden_mcp_migrations";

/// warden-mcp's handle on its own table. Built once from the shared [`Database`]; the only place
/// in this crate that holds the connection pool.
#[derive(Debug, Clone)]
pub struct McpStore {
    /// Reads.
    pool: SqlitePool,
    /// Writes: the database's one writer connection (see `Database`).
    writer: SqlitePool,
}

impl McpStore {
    /// Applies warden-mcp's pending migrations to `database` and keeps it. On a database made when
    /// the engine's migrations still created `mcp_servers`, the table and its rows are kept.
    pub async fn open(database: &Database) -> Result<Self> {
        migrator().run(database.writer()).await?;
        Ok(Self { pool: database.pool().clone(), writer: database.writer().clone() })
    }

    pub async fn load_all(&self) -> Result<Vec<StoredServer>> {
        let rows: Vec<(String, String, String, Option<String>)> = sqlx::query_as(
            "SELECT name, config_json, known_tools_json, server_info_json FROM mcp_servers ORDER BY name",
        )
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(|(name, config, tools, info)| {
                let corrupt = |e: serde_json::Error| Error::CorruptRecord { name: name.clone(), reason: e.to_string() };
                Ok(StoredServer {
                    config: serde_json::from_str(&config).map_err(corrupt)?,
                    // Last-known tools are a cache: unreadable ones are simply forgotten.
                    known_tools: serde_json::from_str(&tools).unwrap_or_default(),
                    server_info: info.and_then(|info| serde_json::from_str(&info).ok()),
                })
            })
            .collect()
    }

    /// Inserts or replaces the config; keeps the last-known tools unless the transport changed.
    pub async fn save_config(&self, config: &McpServerConfig, transport_changed: bool) -> Result<()> {
        let json = to_json(config)?;
        sqlx::query(
            "INSERT INTO mcp_servers (name, config_json) VALUES (?1, ?2)
             ON CONFLICT(name) DO UPDATE SET
                config_json = excluded.config_json,
                known_tools_json = CASE WHEN ?3 THEN '[]' ELSE known_tools_json END,
                server_info_json = CASE WHEN ?3 THEN NULL ELSE server_info_json END,
                updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')",
        )
        .bind(&config.name)
        .bind(json)
        .bind(transport_changed)
        .execute(&self.writer)
        .await?;
        Ok(())
    }

    pub async fn save_known(&self, name: &str, tools: &[RemoteTool], info: Option<&ServerInfo>) -> Result<()> {
        let tools = to_json(&tools)?;
        let info = info.map(to_json).transpose()?;
        sqlx::query("UPDATE mcp_servers SET known_tools_json = ?2, server_info_json = ?3 WHERE name = ?1")
            .bind(name)
            .bind(tools)
            .bind(info)
            .execute(&self.writer)
            .await?;
        Ok(())
    }

    /// Returns whether a row was deleted.
    pub async fn delete(&self, name: &str) -> Result<bool> {
        let result = sqlx::query("DELETE FROM mcp_servers WHERE name = ?1").bind(name).execute(&self.writer).await?;
        Ok(result.rows_affected() > 0)
    }
}

fn migrator() -> Migrator {
    let mut migrator = sqlx::migrate!("./migrations");
    migrator.dangerous_set_table_name(MIGRATIONS_TABLE);
    migrator
}

fn to_json<T: serde::Serialize + ?Sized>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::InvalidConfig(e.to_string()))
}
