//! warden-mcp owns its table and migrations (recorded in `_warden_mcp_migrations`), run on the
//! database file the engine shares. Databases made when the engine's migrations created
//! `mcp_servers` still open, engine first, and keep their servers.

use std::path::Path;
use warden_types::id::ToolCallId;

use serde_json::json;
use sqlx::migrate::Migrator;
use warden_engine::config::Config;
use warden_engine::Engine;
use warden_mcp::{McpHub, McpServerConfig, McpStore, ServerState, MIGRATIONS_TABLE};

use crate::common::{database_at, stdio_config};

/// The engine's migrations as released before warden-mcp had its own (byte for byte).
const OLD_ENGINE_MIGRATIONS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/engine-migrations-v0.1");

/// Makes `warden.db` in `dir` exactly as the old engine did, with one stored, disabled server.
async fn old_database_with_a_server(dir: &Path) -> McpServerConfig {
    let database = database_at(dir).await;
    let old = Migrator::new(Path::new(OLD_ENGINE_MIGRATIONS)).await.expect("old migrations read");
    old.run(database.pool()).await.expect("old migrations run");
    let mut config = stdio_config("legacy", &["--flag"]);
    config.enabled = false;
    let tools = json!([{ "name": "echo", "title": null, "description": "Echoes", "input_schema": {"type": "object"} }]);
    sqlx::query(
        "INSERT INTO mcp_servers (name, config_json, known_tools_json, server_info_json) VALUES (?1, ?2, ?3, ?4)",
    )
    .bind(&config.name)
    .bind(serde_json::to_string(&config).expect("config as JSON"))
    .bind(tools.to_string())
    .bind(json!({"name": "legacy-server", "version": "1.2.3"}).to_string())
    .execute(database.pool())
    .await
    .expect("row stored");
    database.pool().close().await;
    config
}

async fn versions(pool: &sqlx::SqlitePool, table: &str) -> Vec<i64> {
    // `table` is one of two constant names, never outside input.
    sqlx::query_scalar(sqlx::AssertSqlSafe(format!("SELECT version FROM {table} ORDER BY version")))
        .fetch_all(pool)
        .await
        .expect("migrations table readable")
}

#[tokio::test]
async fn a_database_made_by_the_old_engine_migrations_keeps_its_mcp_servers() {
    let dir = tempfile::tempdir().expect("temp dir");
    let stored = old_database_with_a_server(dir.path()).await;

    // The engine opens it although its migrations no longer include the MCP table's.
    let engine = Engine::open(Config::with_data_dir(dir.path())).await.expect("engine opens an old database");
    let hub = McpHub::new(McpStore::open(&engine.database()).await.expect("mcp migrations run on an old database"));
    hub.start().await.expect("hub loads");

    let servers = hub.list();
    assert_eq!(servers.len(), 1, "the server stored by the old version is kept: {servers:?}");
    let server = &servers[0];
    assert_eq!(server.name, "legacy");
    assert_eq!(server.state, ServerState::Disabled);
    assert_eq!(server.config.transport, stored.transport);
    assert_eq!(server.server_info.as_ref().map(|i| i.version.as_str()), Some("1.2.3"));
    assert_eq!(server.tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["echo"]);

    // Each migrator recorded only its own history.
    let pool = engine.database().pool().clone();
    assert!(versions(&pool, MIGRATIONS_TABLE).await.contains(&20261122000300));
    hub.shutdown().await;
    engine.shutdown();
}

#[tokio::test]
async fn engine_and_mcp_migrations_reopen_a_fresh_database_in_either_order() {
    let dir = tempfile::tempdir().expect("temp dir");
    {
        let engine = Engine::open(Config::with_data_dir(dir.path())).await.expect("engine creates the database");
        let hub = McpHub::new(McpStore::open(&engine.database()).await.expect("mcp migrations run"));
        hub.upsert(stdio_config("kept", &[])).await.expect("saved");
        hub.set_enabled("kept", false).await.expect("disabled");
        hub.shutdown().await;
        engine.shutdown();
    }
    // mcp first this time, then the engine: neither sees the other's versions as missing or changed.
    let database = database_at(dir.path()).await;
    let store = McpStore::open(&database).await.expect("mcp migrations rerun");
    let engine = Engine::open(Config::with_data_dir(dir.path())).await.expect("engine reopens");
    let engine_versions = versions(engine.database().pool(), "_sqlx_migrations").await;
    assert!(
        !engine_versions.contains(&20261122000300),
        "the engine no longer records the MCP table: {engine_versions:?}"
    );
    assert_eq!(versions(database.pool(), MIGRATIONS_TABLE).await, [20261122000300]);

    let hub = McpHub::new(store);
    hub.start().await.expect("hub loads");
    assert_eq!(hub.list().iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["kept"]);
    hub.shutdown().await;
    engine.shutdown();
}

/// Stores a settled tool call the way the old engine did (no `failure` column yet).
async fn old_tool_call(
    pool: &sqlx::SqlitePool,
    id: &str,
    position: i64,
    origin: serde_json::Value,
    text: &str,
    is_error: bool,
) {
    sqlx::query(
        "INSERT INTO tool_calls (id, run_id, thread_id, message_id, position, call_id, name, origin, arguments, summary, \
           risk, needs_approval, status, output, is_error, created_at, finished_at) \
         VALUES (?1, 'r1', 't1', 'm1', ?2, ?1, 'fx__echo', ?3, '{}', 'Call', 'medium', 1, 'done', ?4, ?5, 'x', 'x')",
    )
    .bind(id)
    .bind(position)
    .bind(origin.to_string())
    .bind(json!([{"type": "text", "text": text}]).to_string())
    .bind(is_error)
    .execute(pool)
    .await
    .expect("old tool call stored");
}

#[tokio::test]
async fn offline_calls_stored_by_the_old_engine_get_the_typed_marker_and_others_do_not() {
    let dir = tempfile::tempdir().expect("temp dir");
    old_database_with_a_server(dir.path()).await;
    let database = database_at(dir.path()).await;
    let pool = database.pool();
    for sql in [
        "INSERT INTO threads (id, title, created_at, updated_at) VALUES ('t1', 'Old', 'x', 'x')",
        "INSERT INTO runs (id, thread_id, status, max_steps, created_at) VALUES ('r1', 't1', 'finished', 10, 'x')",
        "INSERT INTO messages (id, thread_id, run_id, position, role, blocks, created_at) VALUES ('m1', 't1', 'r1', 0, 'assistant', '[]', 'x')",
    ] {
        sqlx::query(sql).execute(pool).await.expect("old row stored");
    }
    let mcp = json!({"kind": "mcp", "server": "fx"});
    let offline = "Error: server `fx` is offline";
    old_tool_call(pool, "offline", 0, mcp.clone(), offline, true).await;
    old_tool_call(pool, "own-words", 1, mcp.clone(), offline, false).await;
    old_tool_call(pool, "other-server", 2, mcp, "Error: server `other` is offline", true).await;
    old_tool_call(pool, "built-in", 3, json!({"kind": "built_in"}), offline, true).await;
    pool.close().await;

    let engine = Engine::open(Config::with_data_dir(dir.path())).await.expect("engine opens an old database");
    let failure = |id: &'static str| {
        let engine = engine.clone();
        async move { engine.tool_call(&ToolCallId::from(id)).await.expect("old call readable").failure }
    };
    assert_eq!(failure("offline").await, Some(warden_tools::ToolFailure::ServerOffline));
    for id in ["own-words", "other-server", "built-in"] {
        assert_eq!(failure(id).await, None, "{id}");
    }
    engine.shutdown();
}
