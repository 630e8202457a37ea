//! What a model without native tool calling is told about the tools: how to write a call, then each tool.
//! A model that keeps its calls valid on its own is shown each tool's whole JSON Schema. A provider that
//! holds the model's calls to valid ones itself (the built-in model's grammar) gets each tool in brief:
//! its name, the first sentence of its description, and its parameters by name and type. The built-in
//! model's context is short and its speed falls with every token in it, and the schemas of the default
//! tools were most of its system prompt.

use std::fmt::Write as _;

use serde_json::Value;

use warden_types::tool::ToolSpec;

/// How much of each tool the model is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Detail {
    /// The description and the parameters' whole JSON Schema.
    Schema,
    /// The description's first sentence and the parameters by name and type.
    Brief,
}

const SCHEMA_HEADER: &str = "# Tools\n\n\
    You can call the tools listed below. To call one, write a JSON object with the tool's name and its \
    arguments in a fenced json block, exactly like this:\n\n\
    ```json\n{\"tool\": \"<tool name>\", \"arguments\": {<the arguments, as the tool's parameters describe \
    them>}}\n```\n\n\
    Write one block per call; to make several calls, write several blocks. Write such a block only when you \
    mean to call the tool. After your calls, end your answer: each result comes back in a message that starts \
    with \"Result of <tool name>\".\n";

/// The same, said shortly: the call's form is all the model needs, its grammar does the rest.
const BRIEF_HEADER: &str = "# Tools\n\n\
    To call a tool, write a fenced json block: ```json\n{\"tool\": \"<tool name>\", \"arguments\": {...}}\n```\n\
    One block per call. Each result comes back as \"Result of <tool name>\".\n";

/// Longest first sentence kept in brief; a longer one is cut at a word.
const BRIEF_DESCRIPTION_CHARS: usize = 160;

pub(super) fn tool_instructions(tools: &[ToolSpec], detail: Detail) -> String {
    let mut text = String::from(match detail {
        Detail::Schema => SCHEMA_HEADER,
        Detail::Brief => BRIEF_HEADER,
    });
    for tool in tools {
        let _ = match detail {
            Detail::Schema => write!(
                text,
                "\n## {}\n{}\nParameters (JSON Schema): {}\n",
                tool.name,
                tool.description.trim(),
                tool.parameters
            ),
            Detail::Brief => write!(
                text,
                "\n## {}\n{}\nArguments: {}\n",
                tool.name,
                first_sentence(&tool.description),
                brief_parameters(&tool.parameters)
            ),
        };
    }
    text
}

/// The description up to the end of its first sentence (or line), at most [`BRIEF_DESCRIPTION_CHARS`].
fn first_sentence(description: &str) -> String {
    let description = description.trim();
    let line = description.lines().next().unwrap_or_default();
    let end = line.match_indices(". ").map(|(i, _)| i + 1).next().unwrap_or(line.len());
    let sentence = &line[..end];
    if sentence.chars().count() <= BRIEF_DESCRIPTION_CHARS {
        return sentence.to_string();
    }
    let cut: String = sentence.chars().take(BRIEF_DESCRIPTION_CHARS).collect();
    let at_word = cut.rfind(' ').map_or(cut.as_str(), |i| &cut[..i]);
    format!("{at_word}…")
}

/// `path (string), content (string), mode (optional: "append" or "replace")`, or `none`: the required
/// parameters first, in the schema's `required` order, then the others.
fn brief_parameters(schema: &Value) -> String {
    let Some(properties) = schema.get("properties").and_then(Value::as_object).filter(|p| !p.is_empty()) else {
        return "none".into();
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|name| properties.contains_key(*name))
        .collect();
    let required_ones = required.iter().map(|name| format!("{name} ({})", kind_of(&properties[*name])));
    let optional_ones = properties
        .iter()
        .filter(|(name, _)| !required.contains(&name.as_str()))
        .map(|(name, property)| format!("{name} (optional: {})", kind_of(property)));
    required_ones.chain(optional_ones).collect::<Vec<_>>().join(", ")
}

/// A property's type in a few words: its `enum` values, else its `type` (or types), else "any value".
fn kind_of(property: &Value) -> String {
    if let Some(values) = property.get("enum").and_then(Value::as_array) {
        let values: Vec<String> = values.iter().map(Value::to_string).collect();
        return match values.as_slice() {
            [one] => one.clone(),
            [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
            [] => "any value".into(),
        };
    }
    match property.get("type") {
        Some(Value::String(kind)) => kind.clone(),
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" or "),
        _ => "any value".into(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn write_file() -> ToolSpec {
        ToolSpec {
            name: "write_file".into(),
            description: "Write text to a file in the workspace. Replaces the whole file.\nSecond line.".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": { "type": "string", "description": "File to write." },
                    "content": { "type": "string" },
                    "extra": {},
                    "lines": { "type": ["integer", "null"] },
                    "mode": { "enum": ["append", "replace"] }
                },
                "required": ["path", "content"]
            }),
        }
    }

    #[test]
    fn the_schema_form_shows_the_whole_description_and_schema() {
        let text = tool_instructions(&[write_file()], Detail::Schema);
        assert!(text.contains(
            "## write_file\nWrite text to a file in the workspace. Replaces the whole file.\nSecond line.\n"
        ));
        assert!(text.contains("Parameters (JSON Schema): {"), "{text}");
        assert!(text.contains("\"File to write.\""), "{text}");
    }

    #[test]
    fn the_brief_form_names_each_parameter_with_its_type_and_keeps_one_sentence() {
        let text = tool_instructions(&[write_file()], Detail::Brief);
        assert!(
            text.contains(
                "## write_file\nWrite text to a file in the workspace.\nArguments: path (string), content (string), \
                 extra (optional: any value), lines (optional: integer or null), mode (optional: \"append\" or \"replace\")\n"
            ),
            "{text}"
        );
        assert!(!text.contains("JSON Schema") && !text.contains("File to write."), "{text}");
        assert!(text.len() < tool_instructions(&[write_file()], Detail::Schema).len());
    }

    #[test]
    fn a_tool_without_parameters_takes_none_and_a_long_sentence_is_cut_at_a_word() {
        let long = "word ".repeat(60);
        let tool = ToolSpec { name: "ping".into(), description: long, parameters: json!({"type": "object"}) };
        let text = tool_instructions(&[tool], Detail::Brief);
        let line = text.lines().find(|l| l.starts_with("word")).unwrap();
        assert!(line.ends_with("word…") && line.chars().count() <= BRIEF_DESCRIPTION_CHARS + 1, "{line}");
        assert!(text.contains("\nArguments: none\n"), "{text}");
    }
}
