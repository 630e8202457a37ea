//! The tools a run may use right now: the built-in ones plus live sources such as MCP servers,
//! whose tool lists change while the app runs. Each model turn takes a fresh snapshot, narrowed to
//! what the thread's switches allow.

use std::sync::{Arc, RwLock};

use warden_types::thread::ThreadOptions;

use crate::tools::registry::{SchemaCache, ToolRegistry};
use crate::tools::{Tool, ToolOrigin};

/// Something that offers tools whose list can change (an MCP hub).
pub trait ToolSource: Send + Sync {
    fn tools(&self) -> Vec<Arc<dyn Tool>>;
}

#[derive(Default)]
pub struct ToolBox {
    builtin: Vec<Arc<dyn Tool>>,
    sources: RwLock<Vec<Arc<dyn ToolSource>>>,
    schemas: SchemaCache,
}

impl ToolBox {
    pub fn new(builtin: Vec<Arc<dyn Tool>>) -> Self {
        Self { builtin, sources: RwLock::new(Vec::new()), schemas: SchemaCache::default() }
    }

    pub fn add_source(&self, source: Arc<dyn ToolSource>) {
        self.sources.write().unwrap_or_else(|p| p.into_inner()).push(source);
    }

    /// A registry of every tool available now (built-ins first).
    pub fn snapshot(&self) -> ToolRegistry {
        let mut registry = ToolRegistry::new();
        for tool in &self.builtin {
            registry.register_with(tool.clone(), &self.schemas);
        }
        for source in self.sources.read().unwrap_or_else(|p| p.into_inner()).iter() {
            for tool in source.tools() {
                registry.register_with(tool, &self.schemas);
            }
        }
        registry
    }

    /// Adds a tool to a snapshot (a run's own tools), its schema compiled once for all snapshots.
    pub fn add_to(&self, registry: &mut ToolRegistry, tool: Arc<dyn Tool>) {
        registry.register_with(tool, &self.schemas);
    }

    /// The tools a thread's model turn is offered (and may call): none with tools off, and without
    /// MCP servers' tools with MCP off.
    pub fn offered(&self, options: &ThreadOptions) -> ToolRegistry {
        if !options.tools {
            return ToolRegistry::new();
        }
        let mut registry = self.snapshot();
        if !options.mcp {
            registry.retain(|tool| !matches!(tool.origin(), ToolOrigin::Mcp { .. }));
        }
        registry
    }
}
