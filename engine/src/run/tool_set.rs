//! The tools of one run: every tool of the toolbox plus the run's own, `read_result` (over its
//! thread's results) and, when there are more tools than `Config::tool_search_above`, `search_tools`;
//! and which of them the model is offered on a turn. With search on, that is the built-in tools (always:
//! few, and the core of the work), `search_tools` and the tools found in this run; any tool of the run
//! can still be called by name.

use std::collections::HashSet;
use std::sync::Arc;
use warden_types::id::{RunId, ThreadId, ToolCallId};

use async_trait::async_trait;

use super::RunSummary;
use crate::error::{Error, Result};
use crate::outcome_text::full_text;
use crate::run::handles::RunHandles;
use crate::store::Store;
use crate::thread::ThreadOptions;
use warden_tools::read_result::{ReadResult, ResultTexts, StoredResult};
use warden_tools::registry::ToolRegistry;
use warden_tools::search_tools::{self, FoundTools, SearchTools};
use warden_tools::{ToolError, ToolOrigin, ToolSpec};

/// Room left in a `read_result` answer for its header line.
const READ_RESULT_HEADER: usize = 200;

/// Every tool the run may call now, within the thread's switches: none with tools off (not even
/// `read_result`), no MCP server's with MCP off.
pub fn registry(rt: &RunHandles, run: &RunSummary, options: &ThreadOptions) -> ToolRegistry {
    if !options.tools {
        return ToolRegistry::new();
    }
    let mut registry = rt.tools.offered(options);
    let above = rt.config.tool_search_above;
    if above > 0 && registry.len() > above {
        let searchable = registry.iter().filter(|t| t.origin() != ToolOrigin::BuiltIn).cloned().collect();
        let found = Arc::new(RunFound { store: rt.store.clone(), run_id: run.id.clone() });
        rt.tools.add_to(&mut registry, Arc::new(SearchTools::new(searchable, found)));
    }
    let results = Arc::new(ThreadResults { store: rt.store.clone(), thread_id: run.thread_id.clone() });
    let max_bytes = rt.config.tool_output_limit.saturating_sub(READ_RESULT_HEADER);
    rt.tools.add_to(&mut registry, Arc::new(ReadResult::new(results, max_bytes)));
    registry
}

/// The tools the model is shown this turn.
pub async fn offered(rt: &RunHandles, run: &RunSummary, registry: &ToolRegistry) -> Result<Vec<ToolSpec>> {
    if registry.get(search_tools::NAME).is_none() {
        return Ok(registry.specs());
    }
    let found: HashSet<String> = rt.store.found_tools(&run.id).await?.into_iter().collect();
    Ok(registry
        .iter()
        .map(|tool| (tool.origin(), tool.spec()))
        .filter(|(origin, spec)| *origin == ToolOrigin::BuiltIn || found.contains(&spec.name))
        .map(|(_, spec)| spec)
        .collect())
}

/// The results `read_result` may read: those of the run's thread.
struct ThreadResults {
    store: Store,
    thread_id: ThreadId,
}

#[async_trait]
impl ResultTexts for ThreadResults {
    async fn result(&self, handle: &str) -> std::result::Result<Option<StoredResult>, ToolError> {
        let call = match self.store.tool_call(&ToolCallId::from(handle)).await {
            Ok(call) => call,
            Err(Error::NotFound { .. }) => return Ok(None),
            Err(e) => {
                tracing::error!(error = %e, "read_result could not read a stored result");
                return Err(ToolError::Failed("the stored result could not be read".into()));
            }
        };
        // Another thread's result is as absent as one that never was.
        if call.thread_id != self.thread_id {
            return Ok(None);
        }
        Ok(call.output.map(|output| StoredResult { tool: call.name, text: full_text(&output) }))
    }
}

/// Where `search_tools` remembers what it found: the run's row set.
struct RunFound {
    store: Store,
    run_id: RunId,
}

#[async_trait]
impl FoundTools for RunFound {
    async fn remember(&self, names: &[String]) -> std::result::Result<(), ToolError> {
        self.store.remember_found_tools(&self.run_id, names).await.map_err(|e| {
            tracing::error!(run_id = %self.run_id, error = %e, "search_tools could not remember what it found");
            ToolError::Failed("the tools found could not be remembered".into())
        })
    }
}
