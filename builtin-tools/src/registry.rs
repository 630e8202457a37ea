//! The tools an agent may call, in a fixed order, with each tool's argument schema compiled once so
//! every call can be checked before it is shown to a person or run. Violations come back as one
//! readable message that is sent to the model.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use super::list_dir::ListDir;
use super::read_file::ReadFile;
use super::shell::{Shell, ShellConfig};
use super::write_file::WriteFile;
use super::{Tool, ToolSpec, Workspace};

/// At most this many violations are listed, each cut to `MAX_MESSAGE` characters.
const MAX_VIOLATIONS: usize = 20;
const MAX_MESSAGE: usize = 300;

/// Why a call's arguments were not accepted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ArgumentError {
    #[error("there is no tool named `{0}`")]
    UnknownTool(String),
    #[error("the arguments for `{tool}` do not match its schema:\n{}", list(.violations))]
    Invalid { tool: String, violations: Vec<Violation> },
    #[error("the tool `{tool}` has a JSON Schema that cannot be used: {message}")]
    UnusableSchema { tool: String, message: String },
}

/// One schema violation: where in the arguments, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON Pointer into the arguments; empty for the arguments object itself.
    pub path: String,
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "- at the top level: {}", self.message)
        } else {
            write!(f, "- at `{}`: {}", self.path, self.message)
        }
    }
}

fn list(violations: &[Violation]) -> String {
    violations.iter().map(Violation::to_string).collect::<Vec<_>>().join("\n")
}

/// Compiled JSON Schemas keyed by their text, shared across registry snapshots.
#[derive(Default)]
pub struct SchemaCache {
    compiled: std::sync::Mutex<std::collections::HashMap<String, Result<Arc<jsonschema::Validator>, String>>>,
}

impl SchemaCache {
    fn compile(&self, schema: &Value) -> Result<Arc<jsonschema::Validator>, String> {
        let key = schema.to_string();
        let mut compiled = self.compiled.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(v) = compiled.get(&key) {
            return v.clone();
        }
        let v = jsonschema::validator_for(schema).map(Arc::new).map_err(|err| err.to_string());
        compiled.insert(key, v.clone());
        v
    }
}

struct Entry {
    tool: Arc<dyn Tool>,
    name: String,
    validator: Result<Arc<jsonschema::Validator>, String>,
}

/// The tools of one agent, keyed by name, in the order they were registered. Found by name through
/// an index built as they are registered: a registry is rebuilt for every decision and every model
/// turn, and with a linear search, registering n tools cost n² comparisons (a server with 100,000
/// tools made each decision take seconds).
#[derive(Clone, Default)]
pub struct ToolRegistry {
    entries: Vec<Arc<Entry>>,
    /// Each name's position in `entries`.
    index: HashMap<String, usize>,
}

impl ToolRegistry {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a tool, or replaces the one with the same name in its place; returns the replaced tool.
    pub fn register(&mut self, tool: Arc<dyn Tool>) -> Option<Arc<dyn Tool>> {
        self.register_with(tool, &SchemaCache::default())
    }

    /// Like `register`, reusing schemas already compiled in `cache` (compiling one takes
    /// milliseconds, and registries are rebuilt at every model turn).
    pub fn register_with(&mut self, tool: Arc<dyn Tool>, cache: &SchemaCache) -> Option<Arc<dyn Tool>> {
        let spec = tool.spec();
        let validator = cache.compile(&spec.parameters);
        let entry = Arc::new(Entry { tool, name: spec.name, validator });
        match self.index.get(&entry.name).and_then(|&i| self.entries.get_mut(i)) {
            Some(slot) => Some(std::mem::replace(slot, entry).tool.clone()),
            None => {
                self.index.insert(entry.name.clone(), self.entries.len());
                self.entries.push(entry);
                None
            }
        }
    }

    pub fn remove(&mut self, name: &str) -> Option<Arc<dyn Tool>> {
        let index = self.index.remove(name)?;
        let removed = self.entries.remove(index);
        self.reindex();
        Some(removed.tool.clone())
    }

    /// Keeps only the tools `keep` accepts, in their order.
    pub fn retain(&mut self, mut keep: impl FnMut(&dyn Tool) -> bool) {
        self.entries.retain(|e| keep(e.tool.as_ref()));
        self.reindex();
    }

    fn reindex(&mut self) {
        self.index = self.entries.iter().enumerate().map(|(i, e)| (e.name.clone(), i)).collect();
    }

    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.entry(name).map(|e| e.tool.clone())
    }

    /// The tools in their order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn Tool>> {
        self.entries.iter().map(|e| &e.tool)
    }

    pub fn specs(&self) -> Vec<ToolSpec> {
        self.entries.iter().map(|e| e.tool.spec()).collect()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Checks `args` against the tool's JSON Schema.
    pub fn validate(&self, name: &str, args: &Value) -> Result<(), ArgumentError> {
        let entry = self.entry(name).ok_or_else(|| ArgumentError::UnknownTool(name.to_string()))?;
        let validator = entry
            .validator
            .as_ref()
            .map_err(|message| ArgumentError::UnusableSchema { tool: name.to_string(), message: message.clone() })?;
        let violations: Vec<Violation> = validator
            .iter_errors(args)
            .take(MAX_VIOLATIONS)
            .map(|err| Violation {
                path: err.instance_path.to_string(),
                // Masked: a wrong value can be huge, and the model already has it.
                message: shorten(err.masked().to_string()),
            })
            .collect();
        if violations.is_empty() {
            Ok(())
        } else {
            Err(ArgumentError::Invalid { tool: name.to_string(), violations })
        }
    }

    fn entry(&self, name: &str) -> Option<&Entry> {
        self.index.get(name).and_then(|&i| self.entries.get(i)).map(|e| e.as_ref())
    }
}

impl fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.entries.iter().map(|e| &e.name)).finish()
    }
}

fn shorten(mut message: String) -> String {
    if let Some((cut, _)) = message.char_indices().nth(MAX_MESSAGE) {
        message.truncate(cut);
        message.push('…');
    }
    message
}

/// The built-in tools, all confined to `workspace`: list_dir, read_file, write_file and shell.
pub fn builtin_tools(workspace: Workspace, shell: ShellConfig) -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(ListDir::new(workspace.clone())),
        Arc::new(ReadFile::new(workspace.clone())),
        Arc::new(WriteFile::new(workspace.clone())),
        Arc::new(Shell::new(workspace, shell)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn registry() -> (tempfile::TempDir, ToolRegistry) {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let mut registry = ToolRegistry::new();
        for tool in builtin_tools(ws, ShellConfig::default()) {
            registry.register(tool);
        }
        (dir, registry)
    }

    #[track_caller]
    fn invalid(registry: &ToolRegistry, name: &str, args: Value) -> (Vec<Violation>, String) {
        match registry.validate(name, &args) {
            Err(err @ ArgumentError::Invalid { .. }) => {
                let message = err.to_string();
                let ArgumentError::Invalid { violations, .. } = err else { unreachable!() };
                (violations, message)
            }
            other => panic!("expected invalid arguments, got {other:?}"),
        }
    }

    #[test]
    fn builtin_tools_register_in_order_with_strict_schemas() {
        let (_dir, registry) = registry();
        let specs = registry.specs();
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["list_dir", "read_file", "write_file", "shell"]);
        for spec in &specs {
            assert_eq!(spec.parameters["additionalProperties"], json!(false), "{}", spec.name);
            assert!(spec.parameters["required"].as_array().is_some_and(|r| !r.is_empty()), "{}", spec.name);
            assert!(spec.description.len() > 40, "{}", spec.name);
        }
    }

    #[test]
    fn valid_arguments_pass() {
        let (_dir, registry) = registry();
        assert_eq!(registry.validate("write_file", &json!({"path": "a.txt", "content": ""})), Ok(()));
        assert_eq!(registry.validate("shell", &json!({"command": "ls"})), Ok(()));
    }

    #[test]
    fn missing_field_is_named() {
        let (_dir, registry) = registry();
        let (violations, message) = invalid(&registry, "write_file", json!({"path": "a.txt"}));
        assert_eq!(
            violations,
            [Violation { path: String::new(), message: "\"content\" is a required property".into() }]
        );
        assert_eq!(
            message,
            "the arguments for `write_file` do not match its schema:\n- at the top level: \"content\" is a required property"
        );
    }

    #[test]
    fn extra_field_is_named() {
        let (_dir, registry) = registry();
        let (violations, _) = invalid(&registry, "read_file", json!({"path": "a", "encoding": "latin1"}));
        assert_eq!(violations.len(), 1);
        assert!(violations[0].message.contains("'encoding' was unexpected"), "{violations:?}");
    }

    #[test]
    fn wrong_types_are_listed_with_their_paths() {
        let (_dir, registry) = registry();
        let (violations, message) = invalid(&registry, "write_file", json!({"path": 7, "content": ["x"]}));
        let paths: Vec<&str> = violations.iter().map(|v| v.path.as_str()).collect();
        assert_eq!(paths.len(), 2, "{violations:?}");
        assert!(paths.contains(&"/path") && paths.contains(&"/content"), "{paths:?}");
        assert!(message.contains("- at `/path`: value is not of type \"string\""), "{message}");
        let (violations, _) = invalid(&registry, "shell", json!("ls"));
        assert_eq!(violations[0].message, "value is not of type \"object\"");
    }

    #[test]
    fn unknown_tool_has_its_own_error() {
        let (_dir, registry) = registry();
        assert_eq!(registry.validate("format_disk", &json!({})), Err(ArgumentError::UnknownTool("format_disk".into())));
    }

    struct Fake {
        name: String,
        schema: Value,
    }

    #[async_trait::async_trait]
    impl Tool for Fake {
        fn spec(&self) -> ToolSpec {
            ToolSpec { name: self.name.clone(), description: "fake".into(), parameters: self.schema.clone() }
        }
        fn needs_approval(&self, _: &Value) -> bool {
            false
        }
        fn risk(&self, _: &Value) -> super::super::Risk {
            super::super::Risk::Low
        }
        fn summary(&self, _: &Value) -> String {
            String::new()
        }
        async fn call(
            &self,
            _: Value,
            _: super::super::ToolContext,
        ) -> Result<super::super::ToolOutput, super::super::ToolError> {
            Ok(super::super::ToolOutput::text("fake"))
        }
    }

    #[test]
    fn registering_a_name_again_replaces_it_in_place_with_its_new_schema() {
        let (_dir, mut registry) = registry();
        let loose = Arc::new(Fake { name: "read_file".into(), schema: json!({"type": "object"}) });
        assert!(registry.register(loose).is_some());
        let names: Vec<String> = registry.specs().into_iter().map(|s| s.name).collect();
        assert_eq!(names, ["list_dir", "read_file", "write_file", "shell"]);
        assert_eq!(registry.validate("read_file", &json!({"anything": 1})), Ok(()));
    }

    #[test]
    fn removed_tools_are_gone() {
        let (_dir, mut registry) = registry();
        assert!(registry.remove("shell").is_some());
        assert!(registry.get("shell").is_none());
        assert!(registry.remove("shell").is_none());
        assert_eq!(registry.len(), 3);
        assert!(matches!(registry.validate("shell", &json!({"command": "ls"})), Err(ArgumentError::UnknownTool(_))));
    }

    /// A registry of 100,000 tools (a server that lists that many) finds each one by name through its
    /// index, keeps their order, and stays right after replacing, removing and filtering. Registering
    /// them searched the list for each name before: 5 billion comparisons per registry, and one was
    /// built for every decision.
    #[test]
    fn tools_are_found_by_name_through_the_index_even_with_100000_of_them() {
        let mut registry = ToolRegistry::new();
        let schema = json!({"type": "object"});
        for i in 0..100_000 {
            assert!(registry.register(Arc::new(Fake { name: format!("tool_{i}"), schema: schema.clone() })).is_none());
        }
        assert_eq!(registry.len(), 100_000);
        for i in (0..100_000).step_by(997) {
            let name = format!("tool_{i}");
            assert_eq!(registry.get(&name).map(|t| t.spec().name), Some(name.clone()));
            assert_eq!(registry.validate(&name, &json!({})), Ok(()));
        }
        assert!(registry.get("tool_100000").is_none());

        // Replaced in place, removed, filtered: every name still leads to its own tool.
        let strict = json!({"type": "object", "required": ["x"]});
        assert!(registry.register(Arc::new(Fake { name: "tool_5".into(), schema: strict })).is_some());
        assert!(matches!(registry.validate("tool_5", &json!({})), Err(ArgumentError::Invalid { .. })));
        assert!(registry.remove("tool_3").is_some());
        registry.retain(|tool| !tool.spec().name.ends_with('7'));
        assert!(registry.get("tool_3").is_none() && registry.get("tool_17").is_none());
        for name in ["tool_0", "tool_5", "tool_4", "tool_99998", "tool_12345"] {
            assert_eq!(registry.get(name).map(|t| t.spec().name).as_deref(), Some(name));
        }
        let order: Vec<String> = registry.iter().take(5).map(|t| t.spec().name).collect();
        assert_eq!(order, ["tool_0", "tool_1", "tool_2", "tool_4", "tool_5"]);
    }

    #[test]
    fn a_broken_schema_is_reported_not_panicked_on() {
        let mut registry = ToolRegistry::new();
        registry.register(Arc::new(Fake { name: "broken".into(), schema: json!({"type": "no-such-type"}) }));
        assert!(matches!(registry.validate("broken", &json!({})), Err(ArgumentError::UnusableSchema { .. })));
    }
}
