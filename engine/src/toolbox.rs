//! The tools a run may use right now: the built-in ones plus live sources such as MCP servers,
//! whose tool lists change while the app runs. Each model turn takes a fresh snapshot, narrowed to
//! what the thread's switches allow.

use std::sync::{Arc, RwLock};

use futures::future::BoxFuture;
use warden_types::connection::ServerDown;
use warden_types::thread::ThreadOptions;

use warden_tools::registry::{SchemaCache, ToolRegistry};
use warden_tools::{Tool, ToolOrigin};

/// Something that offers tools whose list can change (an MCP hub).
pub trait ToolSource: Send + Sync {
    fn tools(&self) -> Vec<Arc<dyn Tool>>;

    /// The servers behind these tools, for the connection check (a source without servers: none).
    fn servers(&self) -> Vec<SourceServer> {
        Vec::new()
    }

    /// Enables `server` if it is disabled and connects it now, waiting (bounded) for the attempt:
    /// `Ok` once it is connected, else why not, in words a person can act on.
    fn connect<'a>(&'a self, server: &'a str) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(async move { Err(format!("no MCP server named `{server}` is configured")) })
    }
}

/// One server of a source as the connection check sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceServer {
    pub name: String,
    /// `None` while it is connected or connecting.
    pub down: Option<ServerDown>,
    /// The names the model calls its tools by (`server__tool`), as last known.
    pub tools: Vec<String>,
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

    fn sources(&self) -> Vec<Arc<dyn ToolSource>> {
        self.sources.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Every source's servers as they are now.
    pub fn servers(&self) -> Vec<SourceServer> {
        self.sources().iter().flat_map(|source| source.servers()).collect()
    }

    /// Connects `server` through the source that has it (see [`ToolSource::connect`]).
    pub async fn connect(&self, server: &str) -> Result<(), String> {
        let owner = self.sources().into_iter().find(|source| source.servers().iter().any(|s| s.name == server));
        match owner {
            Some(source) => source.connect(server).await,
            None => Err(format!("no MCP server named `{server}` is configured")),
        }
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
