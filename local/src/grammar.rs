//! Constrained tool calls for the built-in model, by llguidance: one grammar over the whole answer (Lark,
//! with the call as JSON Schema inside it). The answer is free text, or free text up to a ```json fence
//! (the form `TextToolCalls` asks for) and then one call, `{"tool": "<a registered tool>", "arguments":
//! <arguments valid for that tool's schema>}`, after which it ends. Ordinary answers stay free, and a
//! call the model starts can only be a valid one.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Mutex;

use llguidance::api::TopLevelGrammar;
use llguidance::toktrie::TokEnv;
use llguidance::{Matcher, ParserFactory};
use serde_json::{json, Map, Value};

use warden_types::tool::ToolSpec;

/// Text until a call starts: anything that does not hold a fence (```, or ```json) followed by blanks
/// and a `{`. A `{` there cannot go on with the text, so it starts the call.
const TEXT: &str = r#"TEXT: /(?s:.+)/ & ~/(?s:.*```(json)?\s*\{.*)/"#;

/// Blanks llguidance allows between a call's JSON tokens (by default, any number): a newline or two and
/// some indent, as llama.cpp's own converter allowed, so a small model cannot write blanks until its
/// answer runs out.
const CALL_BLANKS: &str = r"[ \t]{1,20}|\r?\n(\r?\n)?[ \t]{0,20}";

/// The grammar (llguidance's Lark) of an answer that may end in one call to any of `tools`, or `None`
/// when there are no tools.
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
                if one { "#/properties/arguments".to_string() } else { format!("#/anyOf/{i}/properties/arguments") };
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
    // anyOf, not oneOf: the calls differ in their `tool`, so at most one fits anyway.
    let mut schema = match <[Value; 1]>::try_from(calls) {
        Ok([call]) => call,
        Err(calls) => json!({ "anyOf": calls }),
    };
    if let Value::Object(root) = &mut schema {
        if !defs.is_empty() {
            root.insert("$defs".into(), Value::Object(defs));
        }
        // A keyword llguidance does not support is left out (a warning) rather than failing the grammar.
        root.insert("x-guidance".into(), json!({"whitespace_pattern": CALL_BLANKS, "lenient": true}));
    }
    Some(format!("start: TEXT? | TEXT call\n{TEXT}\ncall: %json {schema}\n"))
}

/// Makes call grammars into samplers' matchers for one model's vocabulary.
pub struct Compiler {
    factory: ParserFactory,
}

impl Compiler {
    /// For the vocabulary in `tokens` (walking it takes a while: make one per model).
    pub fn new(tokens: &TokEnv) -> Result<Self, String> {
        let mut factory = ParserFactory::new_simple(tokens).map_err(|e| e.to_string())?;
        // Its warnings (keywords left out) go to stderr otherwise; what matters is logged by the caller.
        factory.quiet();
        Ok(Self { factory })
    }

    /// A matcher at the start of an answer held to `grammar`, or why there is none.
    pub fn matcher(&self, grammar: &str) -> Result<Matcher, String> {
        let matcher = Matcher::new(self.factory.create_parser(TopLevelGrammar::from_lark(grammar.to_string())));
        match matcher.get_error() {
            Some(e) => Err(e),
            None => Ok(matcher),
        }
    }
}

/// The grammar of the last tool set asked for: the same tools every turn of a thread, so it is made
/// once per change of tools, not once per turn.
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
    use llguidance::toktrie::ApproximateTokEnv;

    use super::*;

    fn spec(name: &str, parameters: Value) -> ToolSpec {
        ToolSpec { name: name.into(), description: String::new(), parameters }
    }

    fn read_file() -> ToolSpec {
        spec("read_file", json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}))
    }

    /// Whether the whole of `answer` may be written under `grammar`, byte by byte, and may end there.
    fn accepts(grammar: &str, answer: &str) -> bool {
        let env = ApproximateTokEnv::single_byte_env();
        let mut matcher = Compiler::new(&env).unwrap().matcher(grammar).unwrap();
        matcher.consume_tokens(&env.tokenize_bytes(answer.as_bytes())).is_ok() && matcher.is_accepting().unwrap()
    }

    fn call(json: &str) -> String {
        format!("Sure.\n```json\n{json}")
    }

    #[test]
    fn an_answer_is_free_text_or_text_then_one_valid_call_and_nothing_after_it() {
        let grammar = for_tools(&[read_file(), spec("list_dir", json!({}))]).unwrap();
        for free in ["", "Paris.", "Use {\"a\": 1} or ```python\nprint(1)\n```", "```json\n", "a ``` b"] {
            assert!(accepts(&grammar, free), "{free:?}");
        }
        for valid in [
            r#"{"tool":"read_file","arguments":{"path":"notes.txt"}}"#,
            "{\"tool\": \"read_file\",\n  \"arguments\": {\"path\": \"notes.txt\"}}",
            r#"{"tool":"list_dir","arguments":{}}"#,
        ] {
            assert!(accepts(&grammar, &call(valid)), "{valid}");
            assert!(accepts(&grammar, &format!("```\n{valid}")), "{valid}");
        }
        for invalid in [
            r#"{"tool":"read_fil","arguments":{"path":"notes.txt"}}"#,
            r#"{"tool":"read_file","arguments":{"pth":"notes.txt"}}"#,
            r#"{"tool":"read_file","arguments":{"path":1}}"#,
            r#"{"tool":"read_file","arguments":{}}"#,
            r#"{"tool":"list_dir","arguments":{"path":"."}}"#,
            r#"{"tool":"read_file","arguments":{"path":"a"}}\n```\nDone."#,
            r#"{"tool":"read_file","arguments":{"path":"a"}"#,
        ] {
            assert!(!accepts(&grammar, &call(invalid)), "{invalid}");
        }
        assert!(for_tools(&[]).is_none());
    }

    #[test]
    fn blanks_inside_a_call_are_bounded() {
        let grammar = for_tools(&[read_file()]).unwrap();
        let spaced = format!("{{{}\"tool\":\"read_file\",\"arguments\":{{\"path\":\"a\"}}}}", " ".repeat(21));
        assert!(!accepts(&grammar, &call(&spaced)));
        assert!(accepts(&grammar, &call(&spaced.replacen(&" ".repeat(21), "\n    ", 1))));
    }

    #[test]
    fn minimum_pattern_and_format_in_a_tool_schema_are_held_to() {
        let tool = spec(
            "book",
            json!({"type": "object", "properties": {
                "seats": {"type": "integer", "minimum": 1, "maximum": 9},
                "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
                "day": {"type": "string", "format": "date"},
            }, "required": ["seats", "code", "day"]}),
        );
        let grammar = for_tools(&[tool]).unwrap();
        let with = |seats: &str, code: &str, day: &str| {
            call(&format!(r#"{{"tool":"book","arguments":{{"seats":{seats},"code":"{code}","day":"{day}"}}}}"#))
        };
        assert!(accepts(&grammar, &with("2", "LHR", "2026-11-28")));
        assert!(!accepts(&grammar, &with("0", "LHR", "2026-11-28")), "below the minimum");
        assert!(!accepts(&grammar, &with("10", "LHR", "2026-11-28")), "above the maximum");
        assert!(!accepts(&grammar, &with("2", "lhr", "2026-11-28")), "not the pattern");
        assert!(!accepts(&grammar, &with("2", "LHR", "next Tuesday")), "not a date");
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
        for tools in [vec![spec("tree", tree.clone())], vec![spec("tree", tree), spec("point", point)]] {
            let grammar = for_tools(&tools).unwrap();
            let tree_call = r#"{"tool":"tree","arguments":{"root":{"name":"a","children":[{"name":"b"}]}}}"#;
            assert!(accepts(&grammar, &call(tree_call)), "{grammar}");
            assert!(!accepts(&grammar, &call(r#"{"tool":"tree","arguments":{"root":{"name":"a","children":[{}]}}}"#)));
            if tools.len() == 2 {
                assert!(accepts(&grammar, &call(r#"{"tool":"point","arguments":{"at":{"x":1},"also":{"x":2}}}"#)));
                assert!(!accepts(&grammar, &call(r#"{"tool":"point","arguments":{"at":{"x":"1"}}}"#)));
                assert!(!accepts(&grammar, &call(r#"{"tool":"point","arguments":{"root":{"name":"a"}}}"#)));
            }
        }
    }

    #[test]
    fn unusual_schemas_get_a_grammar_or_are_refused_without_a_panic() {
        let env = ApproximateTokEnv::single_byte_env();
        let compiler = Compiler::new(&env).unwrap();
        let unresolvable = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/Missing"}}});
        let contradictory = json!({"type": "integer", "minimum": 5, "maximum": 1});
        for parameters in [unresolvable, contradictory, json!(17), json!([1, 2])] {
            // Refused, or a grammar; never a panic.
            let _ = compiler.matcher(&for_tools(&[spec("t", parameters)]).unwrap());
        }
    }

    #[test]
    fn a_schema_deeper_than_llguidance_reads_is_refused() {
        // llguidance reads 128 levels, as serde_json does (a schema from outside came through it, so it
        // is no deeper than that).
        let mut deep = json!({"type": "string"});
        for _ in 0..300 {
            deep = json!({"type": "object", "properties": {"a": deep}});
        }
        let env = ApproximateTokEnv::single_byte_env();
        assert!(Compiler::new(&env).unwrap().matcher(&for_tools(&[spec("deep", deep)]).unwrap()).is_err());
    }
}
