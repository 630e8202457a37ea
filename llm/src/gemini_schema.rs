//! Tool parameter schemas as Gemini's function declarations take them. Gemini reads a subset of
//! OpenAPI 3.0's schema object, not JSON Schema, and answers 400 to keywords outside it. `parameters`
//! rewrites a tool's JSON Schema into that subset: `$ref`s inlined (cycles and depth cut), `oneOf` and
//! type lists as `anyOf`/`nullable`, `const` as a one-value `enum`, keywords Gemini lacks dropped, and
//! what a dropped keyword said (a default, a format, number choices) kept as words in the description.

use serde_json::{Map, Value};

/// Deeper than any real tool's arguments; a `$ref` chain deeper than this is cut.
const MAX_DEPTH: usize = 24;
/// Inlining `$ref`s can multiply a schema; past this many nodes the rest is cut.
const MAX_NODES: usize = 5_000;

const TYPES: [&str; 6] = ["string", "number", "integer", "boolean", "array", "object"];

/// The `parameters` of a function declaration for this JSON Schema, or `None` when the tool takes no
/// arguments (Gemini refuses an object schema without properties there, and `parameters` may be left out).
pub(super) fn parameters(schema: &Value) -> Option<Value> {
    let mut rewriter = Rewriter { root: schema, refs: Vec::new(), nodes: 0 };
    let mut out = rewriter.node(schema, 0);
    let map = out.as_object_mut()?;
    let has_properties = map.get("properties").and_then(Value::as_object).is_some_and(|p| !p.is_empty());
    if map.get("type").and_then(Value::as_str) != Some("object") || !has_properties {
        return None;
    }
    map.remove("nullable");
    Some(out)
}

struct Rewriter<'a> {
    root: &'a Value,
    /// The `$ref`s being inlined, outermost first; meeting one again is a cycle.
    refs: Vec<String>,
    nodes: usize,
}

impl Rewriter<'_> {
    /// One schema node, rewritten whole.
    fn node(&mut self, schema: &Value, depth: usize) -> Value {
        finish(self.collected(schema, depth))
    }

    /// One schema node's keywords, `$ref` inlined, not yet finished (so `allOf` branches and the
    /// keywords beside a `$ref` can still be merged in).
    fn collected(&mut self, schema: &Value, depth: usize) -> Map<String, Value> {
        self.nodes += 1;
        // `true`, `{}` and anything that is not a schema object accept any value: no constraint.
        let Some(map) = schema.as_object() else { return Map::new() };
        if depth > MAX_DEPTH || self.nodes > MAX_NODES {
            return cut(map);
        }
        match map.get("$ref").and_then(Value::as_str) {
            Some(reference) => self.reference(reference, map, depth),
            None => self.collect(map, depth),
        }
    }

    /// The target of `$ref` inlined, with the keywords beside the `$ref` taking precedence.
    fn reference(&mut self, reference: &str, siblings: &Map<String, Value>, depth: usize) -> Map<String, Value> {
        let mut own = self.collect(siblings, depth);
        let target = reference.strip_prefix('#').and_then(|pointer| self.root.pointer(pointer));
        let inlined = match target.and_then(Value::as_object) {
            None => {
                note(&mut own, &format!("(Its schema, {reference}, could not be read.)"));
                return own;
            }
            Some(target) if self.refs.iter().any(|r| r == reference) => cut(target),
            Some(target) => {
                self.refs.push(reference.to_string());
                let inlined = self.collected(&Value::Object(target.clone()), depth + 1);
                self.refs.pop();
                inlined
            }
        };
        merge(&mut own, inlined);
        own
    }

    /// The keywords Gemini knows, children rewritten; unknown keywords dropped, some said in words.
    fn collect(&mut self, map: &Map<String, Value>, depth: usize) -> Map<String, Value> {
        let mut out = Map::new();
        let mut notes = Vec::new();
        for (key, value) in map {
            match key.as_str() {
                "type" | "nullable" | "pattern" | "format" => {
                    out.insert(key.clone(), value.clone());
                }
                "minimum" | "maximum" | "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties"
                | "maxProperties"
                    if value.is_number() =>
                {
                    out.insert(key.clone(), value.clone());
                }
                "description" if value.is_string() => {
                    out.insert(key.clone(), value.clone());
                }
                "properties" => {
                    if let Some(properties) = value.as_object() {
                        let rewritten =
                            properties.iter().map(|(name, schema)| (name.clone(), self.node(schema, depth + 1)));
                        out.insert(key.clone(), Value::Object(rewritten.collect()));
                    }
                }
                "required" => {
                    let names: Vec<Value> =
                        value.as_array().into_iter().flatten().filter(|n| n.is_string()).cloned().collect();
                    out.insert(key.clone(), Value::Array(names));
                }
                "items" => match value {
                    // A tuple (`items: [..]`, older drafts) has no OpenAPI form: any of its item schemas.
                    Value::Array(tuple) => {
                        let branches = tuple.iter().map(|s| self.node(s, depth + 1)).collect();
                        out.insert(
                            "items".into(),
                            finish(Map::from_iter([("anyOf".to_string(), Value::Array(branches))])),
                        );
                    }
                    schema => {
                        out.insert("items".into(), self.node(schema, depth + 1));
                    }
                },
                "prefixItems" if !map.contains_key("items") => {
                    let branches = value.as_array().into_iter().flatten().map(|s| self.node(s, depth + 1)).collect();
                    out.insert("items".into(), finish(Map::from_iter([("anyOf".to_string(), Value::Array(branches))])));
                }
                "anyOf" | "oneOf" => {
                    let branches = value.as_array().into_iter().flatten().map(|s| self.node(s, depth + 1));
                    let existing = out.remove("anyOf").and_then(|v| v.as_array().cloned()).unwrap_or_default();
                    out.insert("anyOf".into(), Value::Array(existing.into_iter().chain(branches).collect()));
                }
                "enum" => match value.as_array() {
                    Some(values) if values.iter().all(Value::is_string) => {
                        out.insert(key.clone(), value.clone());
                    }
                    Some(values) => {
                        let listed: Vec<String> = values.iter().map(Value::to_string).collect();
                        notes.push(format!("One of: {}.", listed.join(", ")));
                    }
                    None => {}
                },
                "const" => match value {
                    Value::String(_) => {
                        out.insert("enum".into(), Value::Array(vec![value.clone()]));
                    }
                    other => notes.push(format!("Must be {other}.")),
                },
                "default" => notes.push(format!("Default: {value}.")),
                "exclusiveMinimum" if value.is_number() => notes.push(format!("Greater than {value}.")),
                "exclusiveMaximum" if value.is_number() => notes.push(format!("Less than {value}.")),
                "multipleOf" if value.is_number() => notes.push(format!("A multiple of {value}.")),
                // `$schema`, `$id`, `$comment`, `$defs`, `definitions`, `additionalProperties`, `examples`,
                // `title`, `not`, `if`/`then`/`else`, `patternProperties`, `propertyNames`, `uniqueItems`...:
                // Gemini has no field for them.
                _ => {}
            }
        }
        if !out.contains_key("description") {
            if let Some(title) = map.get("title").and_then(Value::as_str) {
                out.insert("description".into(), Value::String(title.to_string()));
            }
        }
        if let Some(Value::Array(all)) = map.get("allOf") {
            for branch in all {
                let branch = self.collected(branch, depth + 1);
                merge(&mut out, branch);
            }
        }
        for text in notes {
            note(&mut out, &text);
        }
        out
    }
}

/// Puts a collected node in Gemini's form: one `type` (with `nullable`, or `anyOf` per type), null
/// branches as `nullable`, one remaining branch inlined, keywords only where its type allows them,
/// `required` naming only listed properties. Finishing a finished node changes nothing.
fn finish(mut map: Map<String, Value>) -> Value {
    let mut nullable = map.remove("nullable").and_then(|v| v.as_bool()).unwrap_or(false);
    if let Some(Value::Array(branches)) = map.remove("anyOf") {
        let (nulls, mut kept): (Vec<Value>, Vec<Value>) = branches.into_iter().partition(is_only_null);
        nullable |= !nulls.is_empty();
        if kept.len() == 1 && !map.contains_key("type") {
            if let Some(Value::Object(only)) = kept.pop() {
                nullable |= only.get("nullable").and_then(Value::as_bool).unwrap_or(false);
                merge(&mut map, only);
                map.remove("nullable");
            }
        } else if !kept.is_empty() {
            map.insert("anyOf".into(), Value::Array(kept));
        }
    }
    let mut types: Vec<String> = match map.remove("type") {
        Some(Value::String(t)) => vec![t.to_lowercase()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).map(str::to_lowercase).collect(),
        _ => Vec::new(),
    };
    nullable |= types.iter().any(|t| t == "null");
    types.retain(|t| TYPES.contains(&t.as_str()));
    types.dedup();
    if types.is_empty() && !map.contains_key("anyOf") {
        if map.contains_key("properties") || map.contains_key("required") {
            types.push("object".into());
        } else if map.contains_key("items") {
            types.push("array".into());
        } else if map.contains_key("enum") {
            types.push("string".into());
        }
    }
    match types.as_slice() {
        [] => {}
        [only] => {
            map.insert("type".into(), Value::String(only.clone()));
        }
        several if !map.contains_key("anyOf") => {
            let branches = several.iter().map(|t| split_off(&mut map, t)).collect();
            map.insert("anyOf".into(), Value::Array(branches));
        }
        several => note(&mut map, &format!("Of type {}.", several.join(" or "))),
    }
    let ty = map.get("type").and_then(Value::as_str).map(str::to_string);
    if let Some(ty) = &ty {
        map.retain(|key, _| belongs(key, ty));
    }
    check_format(&mut map, ty.as_deref());
    keep_listed_required(&mut map);
    if nullable {
        map.insert("nullable".into(), Value::Bool(true));
    }
    Value::Object(map)
}

/// A branch that allows only null (after finishing, `{"nullable": true}` and perhaps a description).
fn is_only_null(branch: &Value) -> bool {
    let Some(map) = branch.as_object() else { return false };
    map.get("nullable").and_then(Value::as_bool) == Some(true)
        && map.keys().all(|k| k == "nullable" || k == "description")
}

/// Whether `key` may appear on a node of type `ty` (Gemini rejects e.g. `properties` on a string).
fn belongs(key: &str, ty: &str) -> bool {
    match key {
        "properties" | "required" | "minProperties" | "maxProperties" => ty == "object",
        "items" | "minItems" | "maxItems" => ty == "array",
        "minLength" | "maxLength" | "pattern" | "enum" => ty == "string",
        "minimum" | "maximum" => ty == "number" || ty == "integer",
        _ => true,
    }
}

/// The branch of a multi-typed node for type `ty`, taking along the keywords that belong only to it.
fn split_off(map: &mut Map<String, Value>, ty: &str) -> Value {
    let mut branch = Map::new();
    branch.insert("type".into(), Value::String(ty.to_string()));
    let specific: Vec<String> = map
        .keys()
        // Keywords every type takes (`description`, `format`, ...) stay on the node itself.
        .filter(|k| belongs(k, ty) && !belongs(k, "boolean"))
        .cloned()
        .collect();
    for key in specific {
        if let Some(value) = map.remove(&key) {
            branch.insert(key, value);
        }
    }
    finish(branch)
}

/// Gemini knows few formats (`enum`, `date-time` for strings, `float`/`double`, `int32`/`int64`);
/// another one is said in the description.
fn check_format(map: &mut Map<String, Value>, ty: Option<&str>) {
    let Some(format) = map.remove("format") else { return };
    let Some(name) = format.as_str() else { return };
    let known = match ty {
        Some("string") => matches!(name, "enum" | "date-time"),
        Some("number") => matches!(name, "float" | "double"),
        Some("integer") => matches!(name, "int32" | "int64"),
        _ => false,
    };
    if known {
        map.insert("format".into(), format);
    } else {
        note(map, &format!("Format: {name}."));
    }
}

/// `required` may only name listed properties (Gemini: "property is not defined"); empty goes.
fn keep_listed_required(map: &mut Map<String, Value>) {
    let Some(Value::Array(required)) = map.remove("required") else { return };
    let listed = map.get("properties").and_then(Value::as_object);
    let mut names: Vec<Value> = required
        .into_iter()
        .filter(|n| n.as_str().is_some_and(|n| listed.is_some_and(|p| p.contains_key(n))))
        .collect();
    names.dedup();
    if !names.is_empty() {
        map.insert("required".into(), Value::Array(names));
    }
}

/// Adds `from`'s keywords to `into`: `into` keeps its own, properties and required lists are joined.
fn merge(into: &mut Map<String, Value>, from: Map<String, Value>) {
    for (key, value) in from {
        match (key.as_str(), into.get_mut(&key), value) {
            ("properties", Some(Value::Object(mine)), Value::Object(theirs)) => {
                for (name, schema) in theirs {
                    mine.entry(name).or_insert(schema);
                }
            }
            ("required", Some(Value::Array(mine)), Value::Array(theirs)) => {
                for name in theirs {
                    if !mine.contains(&name) {
                        mine.push(name);
                    }
                }
            }
            (_, Some(_), _) => {}
            (_, None, value) => {
                into.insert(key, value);
            }
        }
    }
}

/// A node not expanded further (a `$ref` cycle, or too deep): its type if it says one, and why.
fn cut(map: &Map<String, Value>) -> Map<String, Value> {
    let ty = match map.get("type") {
        Some(Value::String(t)) => Some(t.clone()),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).find(|t| *t != "null").map(str::to_string),
        _ if map.contains_key("properties") => Some("object".to_string()),
        _ => None,
    }
    .filter(|t| TYPES.contains(&t.as_str()));
    let mut out = Map::new();
    if let Some(ty) = ty {
        out.insert("type".into(), Value::String(ty));
    }
    if let Some(description) = map.get("description").and_then(Value::as_str) {
        out.insert("description".into(), Value::String(description.to_string()));
    }
    note(&mut out, "(A nested structure of the same shape; not described further.)");
    out
}

/// Adds a sentence to the node's description.
fn note(map: &mut Map<String, Value>, text: &str) {
    let description = match map.get("description").and_then(Value::as_str).map(str::trim_end) {
        Some(existing) if existing.ends_with(['.', '!', '?', ')', ':']) => format!("{existing} {text}"),
        Some(existing) if !existing.is_empty() => format!("{existing}. {text}"),
        _ => text.to_string(),
    };
    map.insert("description".into(), Value::String(description));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rewritten(schema: Value) -> Value {
        parameters(&schema).expect("parameters")
    }

    #[test]
    fn a_plain_schema_passes_without_the_keywords_gemini_lacks() {
        let schema = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "$id": "urn:x", "$comment": "c", "title": "Args",
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "path": {"type": "string", "description": "Where", "examples": ["a.txt"], "minLength": 1},
                "lines": {"type": "integer", "minimum": 1, "maximum": 100, "format": "int32"}
            },
            "required": ["path"]
        });
        assert_eq!(
            rewritten(schema),
            json!({
                "type": "object", "description": "Args",
                "properties": {
                    "path": {"type": "string", "description": "Where", "minLength": 1},
                    "lines": {"type": "integer", "minimum": 1, "maximum": 100, "format": "int32"}
                },
                "required": ["path"]
            })
        );
    }

    #[test]
    fn no_parameters_or_an_empty_object_means_no_parameters_field() {
        assert_eq!(parameters(&json!({"type": "object", "properties": {}})), None);
        assert_eq!(parameters(&json!({"type": "object"})), None);
        assert_eq!(parameters(&json!({})), None);
        assert_eq!(parameters(&Value::Null), None);
    }

    #[test]
    fn refs_are_inlined_from_defs_and_definitions_with_sibling_keywords_winning() {
        let schema = json!({
            "type": "object",
            "properties": {
                "from": {"$ref": "#/$defs/point", "description": "Start"},
                "to": {"$ref": "#/definitions/point"}
            },
            "$defs": {"point": {"type": "object", "description": "A point",
                                "properties": {"x": {"type": "number"}}, "required": ["x"]}},
            "definitions": {"point": {"type": "object", "properties": {"y": {"type": "number"}}}}
        });
        let out = rewritten(schema);
        assert_eq!(
            out["properties"]["from"],
            json!({"type": "object", "description": "Start", "properties": {"x": {"type": "number"}}, "required": ["x"]})
        );
        assert_eq!(out["properties"]["to"], json!({"type": "object", "properties": {"y": {"type": "number"}}}));
        assert!(out.get("$defs").is_none() && out.get("definitions").is_none());
    }

    #[test]
    fn a_recursive_ref_is_cut_after_one_expansion() {
        let schema = json!({
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/node"}},
            "$defs": {"node": {"type": "object", "properties": {
                "name": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}
            }}}
        });
        let out = rewritten(schema);
        let root = &out["properties"]["root"];
        assert_eq!(root["properties"]["name"], json!({"type": "string"}));
        let inner = &root["properties"]["children"]["items"];
        assert_eq!(inner["type"], "object");
        assert!(inner.get("properties").is_none(), "{inner}");
        assert!(inner["description"].as_str().unwrap().contains("not described further"));
    }

    #[test]
    fn a_ref_to_nowhere_is_said_and_the_rest_kept() {
        let out = rewritten(json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}));
        assert!(out["properties"]["a"]["description"].as_str().unwrap().contains("#/$defs/missing"));
    }

    #[test]
    fn const_becomes_a_one_value_enum_and_number_choices_become_words() {
        let out = rewritten(json!({"type": "object", "properties": {
            "kind": {"const": "file"},
            "level": {"type": "integer", "enum": [1, 2, 3]},
            "flag": {"type": "boolean", "const": true},
            "mode": {"type": "string", "enum": ["r", "w"]}
        }}));
        assert_eq!(out["properties"]["kind"], json!({"type": "string", "enum": ["file"]}));
        assert_eq!(out["properties"]["level"], json!({"type": "integer", "description": "One of: 1, 2, 3."}));
        assert_eq!(out["properties"]["flag"], json!({"type": "boolean", "description": "Must be true."}));
        assert_eq!(out["properties"]["mode"], json!({"type": "string", "enum": ["r", "w"]}));
    }

    #[test]
    fn a_nullable_type_list_becomes_one_type_with_nullable() {
        let out = rewritten(json!({"type": "object", "properties": {
            "name": {"type": ["string", "null"], "maxLength": 5},
            "tags": {"type": ["array", "null"], "items": {"type": "string"}}
        }}));
        assert_eq!(out["properties"]["name"], json!({"type": "string", "maxLength": 5, "nullable": true}));
        assert_eq!(out["properties"]["tags"], json!({"type": "array", "items": {"type": "string"}, "nullable": true}));
    }

    #[test]
    fn several_types_become_any_of_with_each_types_keywords_in_its_branch() {
        let out = rewritten(json!({"type": "object", "properties": {
            "value": {"type": ["string", "integer"], "description": "Either", "maxLength": 3, "minimum": 0}
        }}));
        assert_eq!(
            out["properties"]["value"],
            json!({"description": "Either", "anyOf": [
                {"type": "string", "maxLength": 3},
                {"type": "integer", "minimum": 0}
            ]})
        );
    }

    #[test]
    fn one_of_becomes_any_of_and_a_null_branch_becomes_nullable() {
        let out = rewritten(json!({"type": "object", "properties": {
            "target": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "maybe": {"anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}], "description": "When"}
        }}));
        assert_eq!(out["properties"]["target"], json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}));
        assert_eq!(
            out["properties"]["maybe"],
            json!({"type": "string", "format": "date-time", "description": "When", "nullable": true})
        );
    }

    #[test]
    fn all_of_branches_merge_into_one_object() {
        let out = rewritten(json!({"type": "object", "properties": {"p": {"allOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"properties": {"b": {"type": "number"}}},
            {"required": ["b"]}
        ]}}}));
        assert_eq!(
            out["properties"]["p"],
            json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "number"}}, "required": ["a", "b"]})
        );
    }

    #[test]
    fn formats_gemini_lacks_defaults_and_exclusive_bounds_are_kept_as_words() {
        let out = rewritten(json!({"type": "object", "properties": {
            "id": {"type": "string", "format": "uuid", "description": "The id"},
            "when": {"type": "string", "format": "date-time"},
            "n": {"type": "number", "default": 2, "exclusiveMinimum": 0}
        }}));
        assert_eq!(out["properties"]["id"], json!({"type": "string", "description": "The id. Format: uuid."}));
        assert_eq!(out["properties"]["when"], json!({"type": "string", "format": "date-time"}));
        assert_eq!(out["properties"]["n"], json!({"type": "number", "description": "Default: 2. Greater than 0."}));
    }

    #[test]
    fn keywords_of_another_type_and_unlisted_required_names_are_dropped() {
        let out = rewritten(json!({"type": "object", "properties": {
            "s": {"type": "string", "properties": {"x": {}}, "required": ["x"], "items": {}},
            "free": {"type": "object", "additionalProperties": {"type": "string"}}
        }, "required": ["s", "ghost"]}));
        assert_eq!(out["properties"]["s"], json!({"type": "string"}));
        assert_eq!(out["properties"]["free"], json!({"type": "object"}));
        assert_eq!(out["required"], json!(["s"]));
    }

    #[test]
    fn untyped_nodes_get_the_type_their_keywords_imply() {
        let out = rewritten(json!({"properties": {
            "o": {"properties": {"k": {"type": "string"}}},
            "a": {"items": {"type": "string"}},
            "e": {"enum": ["x", "y"]},
            "any": {}
        }}));
        assert_eq!(out["type"], "object");
        assert_eq!(out["properties"]["o"]["type"], "object");
        assert_eq!(out["properties"]["a"]["type"], "array");
        assert_eq!(out["properties"]["e"]["type"], "string");
        assert_eq!(out["properties"]["any"], json!({}));
    }

    #[test]
    fn tuples_become_arrays_of_any_item() {
        let out = rewritten(json!({"type": "object", "properties": {
            "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]}
        }}));
        assert_eq!(
            out["properties"]["pair"],
            json!({"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}})
        );
    }

    #[test]
    fn a_ref_bomb_is_bounded() {
        // Each level refers to the next twice: 2^30 nodes if inlined naively.
        let mut defs = serde_json::Map::new();
        for i in 0..30 {
            let next = format!("#/$defs/d{}", i + 1);
            defs.insert(
                format!("d{i}"),
                json!({"type": "object", "properties": {"l": {"$ref": next}, "r": {"$ref": next}}}),
            );
        }
        defs.insert("d30".into(), json!({"type": "string"}));
        let schema = json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": defs});
        let out = rewritten(schema);
        let size = out.to_string().len();
        assert!(size < 2_000_000, "{size} bytes");
    }

    #[test]
    fn rewriting_is_stable() {
        let schema = json!({"type": "object", "properties": {
            "v": {"type": ["string", "integer", "null"], "maxLength": 2},
            "w": {"anyOf": [{"$ref": "#/$defs/x"}, {"type": "null"}]}
        }, "$defs": {"x": {"type": "integer", "format": "int64"}}});
        let once = rewritten(schema);
        assert_eq!(rewritten(once.clone()), once);
        assert_eq!(once["properties"]["w"], json!({"type": "integer", "format": "int64", "nullable": true}));
        assert_eq!(
            once["properties"]["v"],
            json!({"nullable": true, "anyOf": [{"type": "string", "maxLength": 2}, {"type": "integer"}]})
        );
    }
}
