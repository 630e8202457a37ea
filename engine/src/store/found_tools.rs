//! The tools `search_tools` found in a run: offered to the model for the rest of the run (see
//! `run::tool_set`), also after a restart.

use warden_db::timestamp::now;
use warden_types::id::RunId;

use super::Store;
use crate::error::Result;

impl Store {
    /// Adds tools to those found in a run.
    pub async fn remember_found_tools(&self, run_id: &RunId, names: &[String]) -> Result<()> {
        let mut tx = self.write_tx().await?;
        let found_at = now();
        for name in names {
            sqlx::query("INSERT INTO found_tools (run_id, name, found_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")
                .bind(run_id)
                .bind(name)
                .bind(&found_at)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// The names of the tools found in a run so far.
    pub async fn found_tools(&self, run_id: &RunId) -> Result<Vec<String>> {
        Ok(sqlx::query_scalar("SELECT name FROM found_tools WHERE run_id = ? ORDER BY found_at, name")
            .bind(run_id)
            .fetch_all(&self.pool)
            .await?)
    }
}
