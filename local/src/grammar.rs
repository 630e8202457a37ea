//! Constrained tool calls for the built-in model: a grammar (llama.cpp's GBNF, made from JSON Schema by
//! our converter, `gbnf`, in the shape of llama.cpp's own) that only admits
//! `{"tool": "<a registered tool>", "arguments": <arguments valid for that tool's schema>}`. It is lazy:
//! it takes effect once the model opens a ```json block (the form `TextToolCalls` asks for), so ordinary
//! answers are free text and a call the model starts can only be a valid one.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Mutex;

use serde_json::{json, Map, Value};

use super::gbnf::{json_schema_to_grammar_with, Options};
use warden_types::tool::ToolSpec;

/// Where a call starts: a json fence, then the object (the grammar is fed from the `{`).
pub const TRIGGER: &str = r"[\s\S]*?```(?:json)?\s*(\{[\s\S]*)";

/// The GBNF of one call to any of `tools`, or `None` when there are none or a schema cannot be converted
/// (the model then writes calls unconstrained, and the agent loop still checks them).
pub fn for_tools(tools: &[ToolSpec]) -> Option<String> {
    if tools.is_empty() {
        return None;
    }
    let one = tools.len() == 1;
    let mut defs = Map::new();
    let calls: Vec<Value> = tools
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let at =
                if one { "#/properties/arguments".to_string() } else { format!("#/oneOf/{i}/properties/arguments") };
            json!({
                "type": "object",
                "properties": {
                    "tool": {"const": t.name},
                    "arguments": hoisted(arguments_schema(&t.parameters), &format!("t{i}-"), &at, &mut defs),
                },
                "required": ["tool", "arguments"],
                "additionalProperties": false,
            })
        })
        .collect();
    let mut schema = match <[Value; 1]>::try_from(calls) {
        Ok([call]) => call,
        Err(calls) => json!({ "oneOf": calls }),
    };
    if let (false, Value::Object(root)) = (defs.is_empty(), &mut schema) {
        root.insert("$defs".into(), Value::Object(defs));
    }
    // Closed objects, as llama.cpp's converter made them: a small model invents keys, and an object
    // that lists its properties is taken to mean only those.
    let options = Options { closed_objects: true, ..Options::default() };
    match json_schema_to_grammar_with(&schema, &options) {
        Ok(grammar) => Some(grammar),
        Err(e) => {
            tracing::warn!(error = %e, "no grammar for the built-in model's tool calls; calls are checked afterwards");
            None
        }
    }
}

/// The grammar of the last tool set asked for: the same tools every turn of a thread, so the converter
/// runs once per change of tools, not once per turn.
#[derive(Default)]
pub struct GrammarCache {
    last: Mutex<Option<(u64, Option<String>)>>,
}

impl GrammarCache {
    pub fn for_tools(&self, tools: &[ToolSpec]) -> Option<String> {
        let mut hasher = DefaultHasher::new();
        for t in tools {
            (&t.name, t.parameters.to_string()).hash(&mut hasher);
        }
        let key = hasher.finish();
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        match &*last {
            Some((k, grammar)) if *k == key => grammar.clone(),
            _ => {
                let grammar = for_tools(tools);
                *last = Some((key, grammar.clone()));
                grammar
            }
        }
    }
}

/// A tool's schema as it reads inside the call's schema: its definitions (`$defs`, `definitions`) moved
/// into `defs` under names that start with `prefix` (every tool may have a `Node` of its own), and its
/// `$ref`s pointed at them, or, for the rest of the tool's own document (`#`, `#/properties/...`), at
/// `at`, where the tool's schema now sits. Without this, a tool whose schema refers to its own
/// definitions (what pydantic writes for nested models) got no grammar, as its refs named the wrong
/// document.
fn hoisted(mut schema: Value, prefix: &str, at: &str, defs: &mut Map<String, Value>) -> Value {
    let mut own = Vec::new();
    if let Value::Object(o) = &mut schema {
        for key in ["$defs", "definitions"] {
            if let Some(Value::Object(found)) = o.remove(key) {
                own.extend(found);
            }
        }
    }
    repoint(&mut schema, prefix, at);
    for (name, mut def) in own {
        repoint(&mut def, prefix, at);
        defs.insert(format!("{prefix}{name}"), def);
    }
    schema
}

/// Points every `$ref` inside `value` as [`hoisted`] says.
fn repoint(value: &mut Value, prefix: &str, at: &str) {
    match value {
        Value::Object(o) => {
            for (key, inner) in o.iter_mut() {
                match (key.as_str(), inner) {
                    ("$ref", Value::String(r)) => {
                        let own = ["#/$defs/", "#/definitions/"].iter().find_map(|d| r.strip_prefix(d));
                        let moved = match own {
                            Some(name) => Some(format!("#/$defs/{prefix}{name}")),
                            // The rest of the tool's document; a ref to another document stays as it is.
                            None => r.strip_prefix('#').map(|rest| format!("{at}{rest}")),
                        };
                        if let Some(moved) = moved {
                            *r = moved;
                        }
                    }
                    (_, inner) => repoint(inner, prefix, at),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| repoint(v, prefix, at)),
        _ => {}
    }
}

/// The tool's own schema, closed to extra keys where it does not say otherwise (a small model invents
/// them), and an empty object for a tool without parameters.
fn arguments_schema(parameters: &Value) -> Value {
    let mut schema = match parameters {
        Value::Object(o) if !o.is_empty() => parameters.clone(),
        _ => json!({"type": "object", "properties": {}}),
    };
    if let Value::Object(o) = &mut schema {
        o.remove("$schema");
        o.entry("additionalProperties").or_insert(Value::Bool(false));
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &str, parameters: Value) -> ToolSpec {
        ToolSpec { name: name.into(), description: String::new(), parameters }
    }

    #[test]
    fn the_grammar_names_every_tool_and_its_argument_keys() {
        let tools = [
            spec(
                "read_file",
                json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
            ),
            spec("list_dir", json!({})),
        ];
        let grammar = for_tools(&tools).expect("a grammar");
        assert!(grammar.contains("read_file") && grammar.contains("list_dir"), "{grammar}");
        assert!(grammar.contains("path"), "{grammar}");
        assert!(grammar.contains("root ::="), "{grammar}");
        assert!(for_tools(&[]).is_none());
    }

    #[test]
    fn tools_that_refer_to_their_own_definitions_get_a_grammar_that_holds_calls_to_them() {
        // What pydantic writes for nested models, twice with the same definition name and a recursive one.
        let tree = json!({
            "$defs": {"Node": {"type": "object", "properties": {
                "name": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
            }, "required": ["name"]}},
            "type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}}, "required": ["root"],
        });
        let point = json!({
            "definitions": {"Node": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}},
            "type": "object", "properties": {"at": {"$ref": "#/definitions/Node"}, "also": {"$ref": "#/properties/at"}},
            "required": ["at"],
        });
        // Required keys come first in a call, then the optional ones (as llama.cpp's converter orders them).
        for tools in [vec![spec("tree", tree.clone())], vec![spec("tree", tree), spec("point", point)]] {
            let text = for_tools(&tools).expect("a grammar");
            let grammar = super::super::gbnf::recognizer::parse(&text).expect("a grammar llama.cpp loads");
            let tree_call = r#"{"tool":"tree","arguments":{"root":{"name":"a","children":[{"name":"b"}]}}}"#;
            assert!(grammar.accepts(tree_call), "{text}");
            assert!(!grammar.accepts(r#"{"tool":"tree","arguments":{"root":{"name":"a","children":[{}]}}}"#));
            if tools.len() == 2 {
                assert!(grammar.accepts(r#"{"tool":"point","arguments":{"at":{"x":1},"also":{"x":2}}}"#), "{text}");
                assert!(!grammar.accepts(r#"{"tool":"point","arguments":{"at":{"x":"1"}}}"#));
                assert!(!grammar.accepts(r#"{"tool":"point","arguments":{"root":{"name":"a"}}}"#));
            }
        }
    }

    #[test]
    fn the_trigger_starts_the_grammar_at_the_object_after_a_json_fence() {
        let re = regex_lite_match(TRIGGER, "Sure.\n```json\n{\"tool\"");
        assert_eq!(re.as_deref(), Some("{\"tool\""));
        assert!(regex_lite_match(TRIGGER, "No call here {\"a\": 1}").is_none());
    }

    /// The first group of a whole-text match, as llama.cpp's lazy grammar uses its patterns.
    fn regex_lite_match(pattern: &str, text: &str) -> Option<String> {
        let re = regex::Regex::new(&format!("^(?:{pattern})$")).unwrap();
        re.captures(text).and_then(|c| c.get(1)).map(|m| m.as_str().to_string())
    }
}
