use serde_json::json;

use super::recognizer as gbnf;
use super::*;

/// The grammar with the default options (objects open where the schema leaves them open).
fn json_schema_to_grammar(schema: &Value) -> Result<String, GrammarError> {
    json_schema_to_grammar_with(schema, &Options::default())
}

// --- helpers -------------------------------------------------------------------------------

/// The grammar for `schema`, checked to load in llama.cpp's parser.
fn grammar_with(schema: &Value, options: &Options) -> (String, gbnf::Grammar) {
    let text = json_schema_to_grammar_with(schema, options).unwrap_or_else(|e| panic!("no grammar for {schema}: {e}"));
    let grammar = gbnf::parse(&text).unwrap_or_else(|e| panic!("bad grammar ({e}):\n{text}"));
    (text, grammar)
}

fn grammar(schema: &Value) -> (String, gbnf::Grammar) {
    grammar_with(schema, &Options::default())
}

fn assert_accepts(schema: &Value, inputs: &[&str]) {
    assert_accepts_with(schema, &Options::default(), inputs);
}

fn assert_rejects(schema: &Value, inputs: &[&str]) {
    assert_rejects_with(schema, &Options::default(), inputs);
}

fn assert_accepts_with(schema: &Value, options: &Options, inputs: &[&str]) {
    let (text, grammar) = grammar_with(schema, options);
    for input in inputs {
        assert!(grammar.accepts(input), "should accept {input:?}\nschema: {schema}\ngrammar:\n{text}");
    }
}

fn assert_rejects_with(schema: &Value, options: &Options, inputs: &[&str]) {
    let (text, grammar) = grammar_with(schema, options);
    for input in inputs {
        assert!(!grammar.accepts(input), "should reject {input:?}\nschema: {schema}\ngrammar:\n{text}");
    }
}

/// Compact JSON re-indented the way a model pretty-prints it (two blanks a level, `": "`).
fn pretty(compact: &str) -> String {
    let chars: Vec<char> = compact.chars().collect();
    let mut out = String::new();
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        out.push_str(&"  ".repeat(depth));
    };
    for (i, &c) in chars.iter().enumerate() {
        if in_string {
            out.push(c);
            (in_string, escaped) = match (escaped, c) {
                (true, _) => (true, false),
                (false, '\\') => (true, true),
                (false, '"') => (false, false),
                _ => (true, false),
            };
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' if matches!(chars.get(i + 1), Some('}' | ']')) => out.push(c),
            '{' | '[' => {
                out.push(c);
                depth += 1;
                newline(&mut out, depth);
            }
            '}' | ']' if i > 0 && matches!(chars[i - 1], '{' | '[') => out.push(c),
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c => out.push(c),
        }
    }
    out
}

/// Each compact JSON text, and its pretty-printed form, is accepted.
fn assert_accepts_json(schema: &Value, compact: &[&str]) {
    let inputs: Vec<String> = compact.iter().flat_map(|c| [c.to_string(), pretty(c)]).collect();
    assert_accepts(schema, &inputs.iter().map(String::as_str).collect::<Vec<_>>());
}

/// Each compact JSON text, and its pretty-printed form, is rejected.
fn assert_rejects_json(schema: &Value, compact: &[&str]) {
    let inputs: Vec<String> = compact.iter().flat_map(|c| [c.to_string(), pretty(c)]).collect();
    assert_rejects(schema, &inputs.iter().map(String::as_str).collect::<Vec<_>>());
}

fn read_file_schema() -> Value {
    json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})
}

/// Tool calls as Warden wraps them: one alternative per tool, arguments closed at the top.
///
/// Test schemas declare properties alphabetically, so that serde_json's map order (sorted, or
/// declared with `preserve_order`) is the same either way; instances list required keys first.
fn tool_calls_schema() -> Value {
    let tool = |name: &str, mut arguments: Value| {
        arguments["additionalProperties"] = json!(false);
        json!({
            "type": "object",
            "properties": {"arguments": arguments, "tool": {"const": name}},
            "required": ["tool", "arguments"],
            "additionalProperties": false,
        })
    };
    json!({"oneOf": [
        tool("read_file", read_file_schema()),
        tool("list_dir", json!({"type": "object", "properties": {}})),
        tool("search", json!({
            "type": "object",
            "properties": {
                "case_sensitive": {"type": "boolean"},
                "limit": {"type": "integer"},
                "query": {"type": "string", "minLength": 1},
            },
            "required": ["query"],
        })),
    ]})
}

// --- the recognizer itself -----------------------------------------------------------------

#[test]
fn the_recognizer_handles_literals_classes_groups_and_repetitions() {
    let grammar = gbnf::parse(concat!(
        "root ::= \"a\\\"\" [^x-z\\x41] ( b | \"c\" ){2,3} d? e* [0-9]{1} x+\n",
        "b ::= \"b\"\nd ::= \"d\"\ne ::= | \"e\"\nx ::= \"\\\\\"\n"
    ))
    .expect("parses");
    assert!(grammar.accepts("a\"qbc7\\"));
    assert!(grammar.accepts("a\"qbccdee7\\\\"));
    assert!(!grammar.accepts("a\"xbc7\\"), "negated range");
    assert!(!grammar.accepts("a\"Abc7\\"), "negated hex escape");
    assert!(!grammar.accepts("a\"qb7\\"), "too few repetitions");
    assert!(!grammar.accepts("a\"qbbbb7\\"), "too many repetitions");
    assert!(!grammar.accepts("a\"qbc7"), "missing +");
}

#[test]
fn the_recognizer_refuses_what_llama_cpp_refuses() {
    for (bad, why) in [
        ("root ::= a\n", "undefined rule"),
        ("item ::= \"x\"\n", "no root"),
        ("root ::= root \"x\" | \"y\"\n", "left recursion"),
        ("root ::= \"x\"{2001}\n", "too many repetitions"),
        ("root ::= (\"x\"{0,3}){1000}\n", "group repetition threshold"),
        ("root ::= \"\\/\"\n", "unknown escape"),
        ("root ::= \"x\"\n  \"y\"\n", "a rule continued on a new line outside parentheses"),
        ("root ::= \"x\"{3,2}\n", "maximum below minimum"),
        ("ro ot ::= \"x\"\n", "bad name"),
    ] {
        assert!(gbnf::parse(bad).is_err(), "{why}: {bad:?}");
    }
    assert!(gbnf::parse("root ::= (\n  \"x\" |\n  \"y\"\n)\n").is_ok(), "newlines inside parentheses");
}

// --- objects and tool calls ----------------------------------------------------------------

#[test]
fn a_read_file_call_with_a_path_is_accepted_compact_or_pretty() {
    assert_accepts(
        &read_file_schema(),
        &[
            r#"{"path":"src/main.rs"}"#,
            r#"{"path": "src/main.rs"}"#,
            "{\n  \"path\": \"a b\\\"c\\\\d\\u00e9\"\n}",
            "{ \"path\" : \"\" }",
            "{\n\n\t\t\"path\":\"x\"\n}",
        ],
    );
}

#[test]
fn a_read_file_call_without_its_required_path_or_with_a_wrong_type_is_rejected() {
    assert_rejects(
        &read_file_schema(),
        &[
            "{}",
            r#"{"path":1}"#,
            r#"{"path":null}"#,
            r#"{"path":"x""#,
            r#"{"path":"a"b"}"#,
            r#"{"path":"\q"}"#,
            "{\"path\":\"line\nbreak\"}",
            r#"["path"]"#,
            r#"{"path":"x"} "#,
            r#"{"path":"x" , "more":1}"#,
        ],
    );
}

#[test]
fn required_keys_come_in_the_order_required_lists_them_not_the_maps() {
    // `properties` is sorted by key ("arguments" before "tool"); `required` says "tool" first.
    assert_accepts_json(&tool_calls_schema(), &[r#"{"tool":"list_dir","arguments":{}}"#]);
    assert_rejects_json(&tool_calls_schema(), &[r#"{"arguments":{},"tool":"list_dir"}"#]);
}

#[test]
fn each_registered_tool_call_is_accepted_in_compact_and_pretty_form() {
    assert_accepts_json(
        &tool_calls_schema(),
        &[
            r#"{"tool":"read_file","arguments":{"path":"README.md"}}"#,
            r#"{"tool":"list_dir","arguments":{}}"#,
            r#"{"tool":"search","arguments":{"query":"fn main"}}"#,
            r#"{"tool":"search","arguments":{"query":"x","case_sensitive":true,"limit":5}}"#,
            r#"{"tool":"search","arguments":{"query":"x","case_sensitive":false}}"#,
            r#"{"tool":"search","arguments":{"query":"x","limit":-3}}"#,
        ],
    );
}

#[test]
fn a_call_to_an_unknown_tool_is_rejected() {
    assert_rejects_json(
        &tool_calls_schema(),
        &[
            r#"{"tool":"write_file","arguments":{"path":"README.md"}}"#,
            r#"{"tool":"read_files","arguments":{"path":"README.md"}}"#,
            r#"{"tool":"READ_FILE","arguments":{"path":"README.md"}}"#,
            r#"{"tool":read_file,"arguments":{"path":"README.md"}}"#,
            r#"{"arguments":{"path":"README.md"}}"#,
        ],
    );
}

#[test]
fn a_call_with_the_arguments_of_another_tool_is_rejected() {
    assert_rejects_json(
        &tool_calls_schema(),
        &[
            r#"{"tool":"read_file","arguments":{"query":"x"}}"#,
            r#"{"tool":"list_dir","arguments":{"path":"x"}}"#,
            r#"{"tool":"search","arguments":{"limit":5}}"#,
            r#"{"tool":"search","arguments":{"query":""}}"#,
            r#"{"tool":"search","arguments":{"query":"x","limit":1.5}}"#,
            r#"{"tool":"search","arguments":{"query":"x","limit":"5"}}"#,
        ],
    );
}

#[test]
fn an_extra_key_is_rejected_where_additional_properties_is_false() {
    assert_rejects_json(
        &tool_calls_schema(),
        &[
            r#"{"tool":"read_file","arguments":{"path":"a","mode":"r"}}"#,
            r#"{"tool":"read_file","arguments":{"path":"a"},"why":"because"}"#,
            r#"{"tool":"list_dir","arguments":{"":1}}"#,
        ],
    );
}

#[test]
fn a_tool_without_parameters_takes_only_an_empty_object() {
    let schema = json!({"type": "object", "properties": {}, "additionalProperties": false});
    assert_accepts(&schema, &["{}", "{ }", "{\n}"]);
    assert_rejects(&schema, &[r#"{"a":1}"#, "[]", "null"]);
}

#[test]
fn extra_keys_are_accepted_when_additional_properties_is_absent_or_true() {
    for extra in [None, Some(json!(true))] {
        let mut schema = read_file_schema();
        if let Some(extra) = extra {
            schema["additionalProperties"] = extra;
        }
        assert_accepts(
            &schema,
            &[
                r#"{"path":"a"}"#,
                r#"{"path":"a","mode":"r"}"#,
                r#"{"path":"a", "n": [1, {"x": null}], "p": "pa", "pathx": 1, "": 0, "pat": 2}"#,
            ],
        );
        assert_rejects(&schema, &[r#"{"mode":"r"}"#, r#"{"path":"a","path":"b"}"#, r#"{"path":"a","mode":}"#]);
    }
}

#[test]
fn an_additional_properties_schema_constrains_the_extra_values() {
    let schema = json!({
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "additionalProperties": {"type": "integer"},
    });
    assert_accepts(&schema, &[r#"{}"#, r#"{"name":"x","a":1,"b":-2}"#, r#"{"a":1}"#]);
    assert_rejects(&schema, &[r#"{"name":"x","a":"1"}"#, r#"{"a":1.5}"#, r#"{"name":1}"#]);
    let map = json!({"type": "object", "additionalProperties": {"type": "boolean"}});
    assert_accepts(&map, &["{}", r#"{"x": true, "y": false}"#]);
    assert_rejects(&map, &[r#"{"x": 1}"#]);
}

#[test]
fn the_closed_objects_option_rejects_undeclared_keys_when_additional_properties_is_absent() {
    let options = Options { closed_objects: true, ..Options::default() };
    let schema = json!({
        "type": "object",
        "properties": {"inner": {"type": "object", "properties": {"a": {"type": "integer"}}}},
    });
    assert_accepts_with(&schema, &options, &["{}", r#"{"inner":{}}"#, r#"{"inner":{"a":1}}"#]);
    assert_rejects_with(&schema, &options, &[r#"{"inner":{"b":1}}"#, r#"{"other":1}"#]);
    assert_accepts(&schema, &[r#"{"inner":{"b":1}}"#, r#"{"other":1}"#]);
    // A bare {"type": "object"} stays any object.
    assert_accepts_with(&json!({"type": "object"}), &options, &[r#"{"any":[1]}"#]);
}

#[test]
fn optional_properties_may_be_left_out_but_keep_their_order_after_the_required_ones() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}, "c": {"type": "integer"}},
        "required": ["b"],
        "additionalProperties": false,
    });
    assert_accepts(&schema, &[r#"{"b":1}"#, r#"{"b":1,"a":2}"#, r#"{"b":1,"c":3}"#, r#"{"b":1,"a":2,"c":3}"#]);
    assert_rejects(&schema, &[r#"{"a":2}"#, r#"{"a":2,"b":1}"#, r#"{"b":1,"c":3,"a":2}"#, r#"{"b":1,"a":2,"a":2}"#]);
}

#[test]
fn a_required_key_that_is_not_declared_is_required_with_any_value() {
    let schema = json!({"type": "object", "required": ["id"], "additionalProperties": false});
    assert_accepts(&schema, &[r#"{"id":1}"#, r#"{"id":{"x":[]}}"#]);
    assert_rejects(&schema, &["{}", r#"{"idx":1}"#]);
}

#[test]
fn a_property_whose_schema_is_false_may_not_appear() {
    let schema = json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": false}});
    assert_accepts(&schema, &[r#"{"a":1}"#, r#"{"c":1}"#]);
    assert_rejects(&schema, &[r#"{"b":1}"#, r#"{"a":1,"b":1}"#]);
}

// --- values --------------------------------------------------------------------------------

#[test]
fn a_value_outside_the_enum_is_rejected() {
    let schema = json!({"type": "string", "enum": ["red", "green", "blue"]});
    assert_accepts(&schema, &[r#""red""#, r#""blue""#]);
    assert_rejects(&schema, &[r#""yellow""#, r#""Red""#, r#""re""#, "red", r#""red ""#, "1"]);
}

#[test]
fn an_enum_of_mixed_json_values_accepts_each_one_as_compact_json() {
    let schema = json!({"enum": [1, 2.5, null, true, "x", [1, "a"], {"k": "v"}]});
    assert_accepts(&schema, &["1", "2.5", "null", "true", r#""x""#, r#"[1,"a"]"#, r#"{"k":"v"}"#]);
    assert_rejects(&schema, &["3", "false", r#""y""#, r#"[1, "a"]"#, r#"{"k":"w"}"#]);
}

#[test]
fn integers_reject_fractions_while_numbers_accept_them() {
    let integer = json!({"type": "integer"});
    let number = json!({"type": "number"});
    assert_accepts(&integer, &["0", "42", "-7"]);
    assert_rejects(&integer, &["1.5", "1e3", "01", "+1", "\"1\"", "", "-"]);
    assert_accepts(&number, &["0", "-0.5", "3.25", "1e10", "2.5E-3", "-1.0e+2"]);
    assert_rejects(&number, &[".5", "1.", "01", "NaN", "1e", "--1"]);
}

#[test]
fn booleans_and_null_match_only_their_literals() {
    assert_accepts(&json!({"type": "boolean"}), &["true", "false"]);
    assert_rejects(&json!({"type": "boolean"}), &["True", "1", "null"]);
    assert_accepts(&json!({"type": "null"}), &["null"]);
    assert_rejects(&json!({"type": "null"}), &["nil", "\"null\""]);
}

#[test]
fn a_nullable_union_accepts_null_and_the_type_but_nothing_else() {
    for schema in [
        json!({"type": ["string", "null"]}),
        json!({"anyOf": [{"type": "string"}, {"type": "null"}], "default": null, "title": "Note"}),
        json!({"oneOf": [{"type": "null"}, {"type": "string"}]}),
    ] {
        assert_accepts(&schema, &["null", r#""text""#]);
        assert_rejects(&schema, &["1", "true", "{}"]);
    }
}

#[test]
fn a_list_of_types_accepts_each_type() {
    let schema = json!({"type": ["integer", "boolean", "array"], "items": {"type": "integer"}});
    assert_accepts(&schema, &["1", "true", "[1,2]", "[]"]);
    assert_rejects(&schema, &["1.5", "[true]", "\"x\"", "null"]);
}

#[test]
fn nested_arrays_respect_their_item_types_and_bounds() {
    let schema = json!({
        "type": "array",
        "items": {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 2},
        "maxItems": 3,
    });
    assert_accepts_json(&schema, &["[]", "[[1]]", "[[1,2],[3],[-4,5]]"]);
    assert_accepts(&schema, &["[ [1] ]", "[[1],\n [2]]"]);
    assert_rejects_json(&schema, &["[[]]", "[[1,2,3]]", "[[1],[2],[3],[4]]", r#"[["1"]]"#, "[1]"]);
}

#[test]
fn array_bounds_count_items() {
    let schema = json!({"type": "array", "items": {"type": "string"}, "minItems": 2});
    assert_accepts(&schema, &[r#"["a","b"]"#, r#"["a","b","c","d"]"#]);
    assert_rejects(&schema, &["[]", r#"["a"]"#, r#"["a",]"#]);
    let exact = json!({"type": "array", "minItems": 1, "maxItems": 1});
    assert_accepts(&exact, &["[null]", r#"[{"a":[1]}]"#]);
    assert_rejects(&exact, &["[]", "[1,2]"]);
    let none = json!({"type": "array", "items": false});
    assert_accepts(&none, &["[]"]);
    assert_rejects(&none, &["[1]"]);
}

#[test]
fn prefix_items_form_a_tuple() {
    let schema = json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]});
    assert_accepts(&schema, &[r#"["a",1]"#, r#"[ "a", 1 ]"#]);
    assert_rejects(&schema, &[r#"[1,"a"]"#, r#"["a"]"#, r#"["a",1,2]"#]);
    let draft4 = json!({"type": "array", "items": [{"const": "x"}]});
    assert_accepts(&draft4, &[r#"["x"]"#]);
    assert_rejects(&draft4, &[r#"["y"]"#, "[]"]);
}

#[test]
fn strings_respect_min_and_max_length_counting_an_escape_as_one_character() {
    let schema = json!({"type": "string", "minLength": 2, "maxLength": 4});
    assert_accepts(&schema, &[r#""ab""#, r#""abcd""#, r#""a\"""#, r#""\u00e9\n""#, r#""éé""#]);
    assert_rejects(&schema, &[r#""a""#, r#""abcde""#, r#""""#, "12"]);
    let at_most = json!({"maxLength": 1});
    assert_accepts(&at_most, &[r#""""#, r#""x""#]);
    assert_rejects(&at_most, &[r#""xy""#]);
}

#[test]
fn const_strings_with_quotes_backslashes_and_unicode_match_their_json_text() {
    let tricky = "say \"hi\" \\ C:\\dir\\ ünïcødé 😀 tab\t new\nline \u{1} \u{7f} [x-y] ^$ # end";
    let schema = json!({"const": tricky});
    let text = json!(tricky).to_string();
    assert_accepts(&schema, &[&text]);
    let other = json!(format!("{tricky}!")).to_string();
    assert_rejects(&schema, &[&other, r#""say""#, &text.replace("ü", "\\u00fc")]);
    let key_schema = json!({"type": "object", "properties": {tricky: {"const": 1}}, "required": [tricky]});
    assert_accepts(&key_schema, &[&format!("{{{text}:1}}")]);
}

#[test]
fn an_empty_schema_or_true_accepts_any_json_value() {
    for schema in [json!({}), json!(true), json!({"description": "anything"})] {
        assert_accepts(
            &schema,
            &[
                "null",
                "0",
                "-1.5e3",
                r#""s""#,
                "[]",
                r#"[1,"a",{"b":[null]}]"#,
                r#"{"a":{"b":{}}}"#,
                "{\n  \"a\": 1\n}",
            ],
        );
        assert_rejects(&schema, &["", "nul", "{a:1}", "[1,]", "'s'", "undefined"]);
    }
}

#[test]
fn unknown_keywords_types_and_formats_fall_back_to_looser_values() {
    assert_accepts(&json!({"type": "date"}), &["1", r#""2024-01-01""#]);
    assert_accepts(&json!({"type": "string", "format": "date-time", "pattern": "^x$"}), &[r#""anything""#]);
    assert_accepts(&json!({"type": "integer", "minimum": 10, "maximum": 20}), &["5", "100"]);
    assert_accepts(&json!({"not": {"type": "string"}, "x-custom": 1}), &[r#""s""#, "1"]);
    assert_accepts(&json!({"required": "path"}), &["1"]);
}

// --- $ref, $defs, allOf --------------------------------------------------------------------

fn pydantic_schema() -> Value {
    json!({
        "$defs": {
            "Mode": {"enum": ["read", "write"], "title": "Mode", "type": "string"},
            "Node": {
                "properties": {
                    "children": {"items": {"$ref": "#/$defs/Node"}, "title": "Children", "type": "array"},
                    "name": {"title": "Name", "type": "string"},
                },
                "required": ["name"],
                "title": "Node",
                "type": "object",
                "additionalProperties": false,
            },
        },
        "properties": {
            "mode": {"$ref": "#/$defs/Mode"},
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null, "title": "Note"},
            "tree": {"$ref": "#/$defs/Node"},
        },
        "required": ["mode", "tree"],
        "title": "Args",
        "type": "object",
        "additionalProperties": false,
    })
}

#[test]
fn pydantic_defs_and_refs_are_resolved_including_a_recursive_one() {
    let schema = pydantic_schema();
    assert_accepts_json(
        &schema,
        &[
            r#"{"mode":"read","tree":{"name":"root"}}"#,
            r#"{"mode":"write","tree":{"name":"a","children":[{"name":"b","children":[]}]},"note":null}"#,
            r#"{"mode":"read","tree":{"name":"a","children":[{"name":"b","children":[{"name":"c"}]}]},"note":"x"}"#,
        ],
    );
    assert_rejects_json(
        &schema,
        &[
            r#"{"mode":"append","tree":{"name":"root"}}"#,
            r#"{"mode":"read","tree":{"children":[]}}"#,
            r#"{"mode":"read","tree":{"name":"a","children":[{"name":1}]}}"#,
            r#"{"mode":"read","tree":{"name":"a","children":[{"name":"b","extra":1}]}}"#,
            r#"{"mode":"read","tree":{"name":"a"},"note":1}"#,
            r#"{"mode":"read"}"#,
        ],
    );
    let (text, _) = grammar(&schema);
    assert!(text.contains("ref-defs-Node ::= "), "one rule per definition:\n{text}");
}

#[test]
fn definitions_and_root_refs_are_resolved_too() {
    let schema = json!({
        "definitions": {"a/b": {"type": "integer"}, "list": {"type": "array", "items": {"$ref": "#"}}},
        "anyOf": [{"$ref": "#/definitions/a~1b"}, {"$ref": "#/definitions/list"}],
    });
    assert_accepts(&schema, &["1", "[]", "[1,[2,[]]]"]);
    assert_rejects(&schema, &["\"1\"", "[1,[\"2\"]]"]);
}

#[test]
fn all_of_objects_are_merged() {
    let schema = json!({
        "$defs": {"Base": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}},
        "allOf": [
            {"$ref": "#/$defs/Base"},
            {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
            {"description": "no constraint"},
        ],
        "additionalProperties": false,
    });
    assert_accepts(&schema, &[r#"{"id":1,"name":"x"}"#]);
    assert_rejects(&schema, &[r#"{"id":1}"#, r#"{"name":"x"}"#, r#"{"id":1,"name":"x","z":0}"#]);
    // pydantic's single-ref allOf is that ref.
    let single = json!({"$defs": {"E": {"enum": ["a"]}}, "allOf": [{"$ref": "#/$defs/E"}], "description": "d"});
    assert_accepts(&single, &[r#""a""#]);
    assert_rejects(&single, &[r#""b""#]);
    // Not all objects: any value.
    assert_accepts(&json!({"allOf": [{"type": "string"}, {"type": "object"}]}), &["1"]);
}

#[test]
fn an_unresolvable_ref_is_an_error() {
    for reference in ["#/$defs/Missing", "https://example.com/schema.json", "#/properties/0", "other.json#/a"] {
        let schema = json!({"type": "object", "properties": {"a": {"$ref": reference}}});
        assert_eq!(json_schema_to_grammar(&schema), Err(GrammarError::UnresolvedRef(reference.to_string())));
    }
}

#[test]
fn a_ref_that_reaches_itself_before_any_text_is_an_error_not_a_left_recursive_grammar() {
    for schema in [
        json!({"$ref": "#"}),
        json!({"anyOf": [{"$ref": "#"}, {"type": "string"}]}),
        json!({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"oneOf": [{"type": "null"}, {"$ref": "#/$defs/A"}]}},
               "$ref": "#/$defs/A"}),
    ] {
        assert!(matches!(json_schema_to_grammar(&schema), Err(GrammarError::LeftRecursion(_))), "{schema}");
    }
    // Recursion behind a bracket is fine.
    assert_accepts(&json!({"anyOf": [{"type": "array", "items": {"$ref": "#"}}, {"type": "null"}]}), &["[[null],[]]"]);
}

// --- names, limits and hostile input -------------------------------------------------------

#[test]
fn rule_names_stay_valid_and_distinct_for_odd_property_names() {
    let long = "x".repeat(1000);
    let schema = json!({
        "type": "object",
        "properties": {
            "root": {"type": "integer"}, "space": {"type": "object", "properties": {"a": {}}},
            "string": {"enum": [1]}, "": {"enum": [2]}, "a b": {"enum": [3]}, "a-b": {"enum": [4]},
            "日本": {"enum": [5]}, "-": {"enum": [6]}, "0": {"enum": [7]}, long.as_str(): {"enum": [8]},
            "value": {"type": "array", "items": {"enum": [9]}},
        },
        "additionalProperties": false,
    });
    let (text, _) = grammar(&schema);
    for line in text.lines() {
        let name = line.split(" ::= ").next().unwrap_or_default();
        assert!(is_identifier(name) && name.len() <= MAX_RULE_NAME, "bad rule name {name:?}");
    }
    let instance = format!(
        r#"{{"":2,"-":6,"0":7,"a b":3,"a-b":4,"root":1,"space":{{"a":[]}},"string":1,"value":[9],"{long}":8,"日本":5}}"#
    );
    assert_accepts(&schema, &[&instance]);
    assert_rejects(&schema, &[&instance.replace(r#""a-b":4"#, r#""a-b":3"#)]);
}

#[test]
fn every_generated_grammar_passes_the_checks_of_llama_cpp_parser() {
    let schemas = [
        read_file_schema(),
        tool_calls_schema(),
        pydantic_schema(),
        json!({"type": "string", "maxLength": 5000}),
        json!({"type": "string", "minLength": 5000}),
        json!({"type": "array", "minItems": 1000, "maxItems": 5000, "items": {"type": "integer"}}),
        json!({"type": "array", "maxItems": 600}),
        json!({"type": "array", "minItems": 0, "maxItems": 599, "items": {"type": "object", "properties": {"a": {}}}}),
        json!({"type": "object", "properties": {"a\"b": {}, "a\\b": {}, "a]b": {}, "a-b": {}}}),
        json!({"type": "object", "additionalProperties": {"type": "object", "additionalProperties": false}}),
        json!({"type": ["object", "array", "null", "mystery"]}),
        json!({"enum": []}),
        json!({"anyOf": []}),
        json!({"$defs": {}, "allOf": []}),
    ];
    for schema in &schemas {
        grammar(schema);
    }
}

#[test]
fn huge_bounds_are_relaxed_to_what_llama_cpp_accepts() {
    let long = json!({"type": "string", "minLength": 3, "maxLength": 100_000});
    let text = format!("\"{}\"", "a".repeat(3000));
    assert_accepts(&long, &[&text, r#""abc""#]);
    assert_rejects(&long, &[r#""ab""#]);
    let huge_min = json!({"type": "string", "minLength": 100_000});
    assert_accepts(&huge_min, &[&text]);
}

#[test]
fn contradictory_bounds_are_an_error() {
    for schema in [
        json!({"type": "string", "minLength": 5, "maxLength": 2}),
        json!({"type": "array", "minItems": 3, "maxItems": 1}),
        json!({"type": "object", "properties": {"a": {"type": "array", "items": false, "minItems": 1}}}),
        json!(false),
        json!({"anyOf": [false, false]}),
    ] {
        assert!(matches!(json_schema_to_grammar(&schema), Err(GrammarError::Unsatisfiable(_))), "{schema}");
    }
}

/// An object of these members (`json!` would copy a nested value at every level).
fn object<const N: usize>(members: [(&str, Value); N]) -> Value {
    Value::Object(members.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// Runs `f` on a thread with a large stack: dropping a 10,000-deep `Value` recurses.
fn with_big_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new().stack_size(256 << 20).spawn(f).expect("thread").join().expect("no panic");
}

#[test]
fn a_schema_nested_ten_thousand_deep_is_a_depth_error() {
    with_big_stack(|| {
        let nestings: [fn(Value) -> Value; 5] = [
            |s| object([("type", json!("array")), ("items", s)]),
            |s| object([("type", json!("object")), ("properties", object([("a", s)]))]),
            |s| object([("anyOf", Value::Array(vec![s, json!({"type": "null"})]))]),
            |s| object([("allOf", Value::Array(vec![s, json!({"type": "object"})]))]),
            |s| object([("type", json!("object")), ("additionalProperties", s)]),
        ];
        for nest in nestings {
            let mut schema = json!({"type": "string"});
            for _ in 0..10_000 {
                schema = nest(schema);
            }
            let result = json_schema_to_grammar(&schema);
            assert_eq!(result, Err(GrammarError::TooDeep { limit: 64 }));
            std::mem::forget(schema); // dropping it would recurse 10,000 deep
        }
    });
}

#[test]
fn a_ten_thousand_hop_ref_chain_or_deep_const_is_a_depth_error() {
    with_big_stack(|| {
        let mut defs = Map::new();
        for i in 0..10_000 {
            defs.insert(format!("D{i}"), json!({"$ref": format!("#/$defs/D{}", i + 1)}));
        }
        defs.insert("D10000".into(), json!({"type": "integer"}));
        let chain = json!({"$defs": defs, "$ref": "#/$defs/D0"});
        assert_eq!(json_schema_to_grammar(&chain), Err(GrammarError::TooDeep { limit: 64 }));

        let mut value = json!(1);
        for _ in 0..10_000 {
            value = Value::Array(vec![value]);
        }
        let schema = object([("const", value)]);
        assert_eq!(json_schema_to_grammar(&schema), Err(GrammarError::TooDeep { limit: 64 }));
        std::mem::forget(schema);
    });
}

#[test]
fn a_huge_enum_or_object_is_a_size_error() {
    let values: Vec<Value> = (0..200_000).map(|i| json!(format!("value-{i}"))).collect();
    let result = json_schema_to_grammar(&json!({"enum": values}));
    assert!(matches!(result, Err(GrammarError::TooLarge { .. })), "{result:?}");

    let properties: Map<String, Value> = (0..50_000).map(|i| (format!("p{i}"), json!({"type": "string"}))).collect();
    let result = json_schema_to_grammar(&json!({"type": "object", "properties": properties}));
    assert!(matches!(result, Err(GrammarError::TooLarge { .. })), "{result:?}");

    let small = Options { max_grammar_bytes: 100, ..Options::default() };
    let result = json_schema_to_grammar_with(&tool_calls_schema(), &small);
    assert_eq!(result, Err(GrammarError::TooLarge { limit: 100 }));
}

#[test]
fn an_exponential_all_of_diamond_stops_at_the_work_limit_while_shared_refs_stay_small() {
    let mut defs = Map::new();
    for i in 0..25 {
        let next = json!({"$ref": format!("#/$defs/A{}", i + 1)});
        defs.insert(format!("A{i}"), json!({"allOf": [next.clone(), next, {"required": ["x"]}]}));
    }
    defs.insert("A25".into(), json!({"type": "object"}));
    let result = json_schema_to_grammar(&json!({"$defs": defs, "$ref": "#/$defs/A0"}));
    assert!(matches!(result, Err(GrammarError::TooLarge { .. })), "{result:?}");

    let mut defs = Map::new();
    for i in 0..20 {
        let next = json!({"$ref": format!("#/$defs/B{}", i + 1)});
        let alternatives = json!([{"type": "array", "items": next}, {"type": "object", "additionalProperties": next}]);
        defs.insert(format!("B{i}"), json!({"anyOf": alternatives}));
    }
    defs.insert("B20".into(), json!({"type": "integer"}));
    let (text, grammar) = grammar(&json!({"$defs": defs, "$ref": "#/$defs/B0"}));
    assert!(text.len() < 40_000, "one rule per definition, {} bytes", text.len());
    let (open, close): (String, String) =
        (0..20).map(|i| if i % 2 == 0 { ("[", "]") } else { (r#"{"a":"#, "}") }).unzip();
    let close: String = close.chars().rev().collect();
    assert!(grammar.accepts(&format!("{open}7{close}")));
    assert!(!grammar.accepts(&format!("{open}true{close}")));
}

#[test]
fn schemas_that_are_not_objects_do_not_panic() {
    for schema in [json!(42), json!("string"), json!(null), json!([1, 2]), json!(-1.5)] {
        let (_, grammar) = grammar(&schema);
        assert!(grammar.accepts("[1]"), "treated as any value: {schema}");
    }
    for schema in [
        json!({"type": 42, "properties": [], "required": {}, "items": 3, "enum": "x", "anyOf": {}}),
        json!({"$ref": 5, "allOf": 5, "minLength": -1, "maxLength": "3", "minItems": 1.5}),
        json!({"type": "object", "properties": {"a": 42, "b": null, "c": "s"}, "additionalProperties": 7}),
        json!({"type": "array", "items": null, "prefixItems": "x", "maxItems": 1e300}),
        json!({"$ref": "#/$defs/a/0/b", "$defs": {"a": [{"b": {"const": 1}}]}}),
    ] {
        grammar(&schema);
    }
}

#[test]
fn random_hostile_schemas_never_panic_and_any_grammar_loads() {
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }
    fn random_schema(rng: &mut Rng, depth: u32) -> Value {
        let leaves = [json!(true), json!(false), json!({}), json!(1), json!("x"), json!(null)];
        if depth == 0 || rng.below(4) == 0 {
            return leaves[rng.below(leaves.len() as u64) as usize].clone();
        }
        let mut map = Map::new();
        let words = ["a", "b", "a b", "\"", "root", "日", ""];
        for _ in 0..rng.below(5) {
            let (key, value) = match rng.below(16) {
                0 => (
                    "type",
                    json!(
                        ["object", "array", "string", "integer", "number", "boolean", "null", "x"]
                            [rng.below(8) as usize]
                    ),
                ),
                1 => ("type", json!(["string", "null", "array"])),
                2 => ("properties", {
                    let mut props = Map::new();
                    for _ in 0..rng.below(4) {
                        props.insert(words[rng.below(7) as usize].to_string(), random_schema(rng, depth - 1));
                    }
                    Value::Object(props)
                }),
                3 => ("required", json!([words[rng.below(7) as usize], words[rng.below(7) as usize]])),
                4 => ("additionalProperties", random_schema(rng, depth - 1)),
                5 => ("items", random_schema(rng, depth - 1)),
                6 => ("prefixItems", json!([random_schema(rng, depth - 1), random_schema(rng, depth - 1)])),
                7 => ("anyOf", json!([random_schema(rng, depth - 1), random_schema(rng, depth - 1)])),
                8 => ("allOf", json!([random_schema(rng, depth - 1), random_schema(rng, depth - 1)])),
                9 => {
                    ("$ref", json!(["#", "#/$defs/A", "#/$defs/B", "#/nope", "#/properties/a"][rng.below(5) as usize]))
                }
                10 => ("$defs", json!({"A": random_schema(rng, depth - 1), "B": random_schema(rng, depth - 1)})),
                11 => ("enum", json!([words[rng.below(7) as usize], 1, null, [depth]])),
                12 => ("const", json!({"k": words[rng.below(7) as usize]})),
                13 => ("minLength", json!(rng.below(5))),
                14 => ("maxItems", json!(rng.below(5))),
                _ => ("oneOf", json!([random_schema(rng, depth - 1)])),
            };
            map.insert(key.to_string(), value);
        }
        Value::Object(map)
    }
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut loaded, mut refused) = (0, 0);
    for _ in 0..3000 {
        let schema = random_schema(&mut rng, 5);
        match json_schema_to_grammar(&schema) {
            Ok(text) => {
                gbnf::parse(&text).unwrap_or_else(|e| panic!("bad grammar ({e}) for {schema}:\n{text}"));
                loaded += 1;
            }
            Err(_) => refused += 1,
        }
    }
    assert!(loaded > 1000 && refused > 10, "loaded {loaded}, refused {refused}");
}

#[test]
fn errors_read_as_sentences() {
    let error = GrammarError::UnresolvedRef("#/$defs/X".into());
    assert_eq!(error.to_string(), r##"cannot resolve $ref "#/$defs/X" in this schema"##);
    let _: &dyn std::error::Error = &error;
}
