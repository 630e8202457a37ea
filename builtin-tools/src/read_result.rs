//! `read_result`: a slice of a tool result the model saw only in part (summarised or cut), by the
//! handle the result's note gave. Read-only, so it runs without asking; where results come from (one
//! thread's, nobody else's) is the `ResultTexts` it is built with.

use std::sync::Arc;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{args, Risk, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};

pub const NAME: &str = "read_result";
/// Characters returned when the model does not say how many.
pub const DEFAULT_LENGTH: usize = 8000;
/// Most characters one call returns.
pub const MAX_LENGTH: usize = 16000;

/// A stored result: the tool that made it and its whole text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredResult {
    pub tool: String,
    pub text: String,
}

/// Where `read_result` finds results.
#[async_trait]
pub trait ResultTexts: Send + Sync {
    /// The result with this handle; `None` if there is none the caller may read.
    async fn result(&self, handle: &str) -> Result<Option<StoredResult>, ToolError>;
}

pub struct ReadResult {
    results: Arc<dyn ResultTexts>,
    /// Most bytes of text one call returns, so a slice is never cut again on its way to the model.
    max_bytes: usize,
}

impl ReadResult {
    pub fn new(results: Arc<dyn ResultTexts>, max_bytes: usize) -> Self {
        Self { results, max_bytes: max_bytes.max(1) }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    handle: String,
    #[serde(default)]
    offset: usize,
    length: Option<usize>,
}

#[async_trait]
impl Tool for ReadResult {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: NAME.into(),
            description: format!(
                "Read part of a long tool result that you were shown only as a summary or cut short. Its note \
                 gives the handle. Returns the characters from `offset` (default 0), at most `length` (default \
                 {DEFAULT_LENGTH}, at most {MAX_LENGTH})."
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "handle": { "type": "string", "description": "The result's handle, from its note." },
                    "offset": { "type": "integer", "minimum": 0, "description": "First character to read (0 is the start)." },
                    "length": { "type": "integer", "minimum": 1, "maximum": MAX_LENGTH, "description": "How many characters to read." }
                },
                "required": ["handle"],
                "additionalProperties": false
            }),
        }
    }

    fn needs_approval(&self, _args: &Value) -> bool {
        false
    }

    fn risk(&self, _args: &Value) -> Risk {
        Risk::Low
    }

    fn summary(&self, args: &Value) -> String {
        match args::peek::<Args>(args) {
            Some(a) => format!("Read part of a long result (from character {})", a.offset),
            None => "Read part of a long result".into(),
        }
    }

    async fn call(&self, args: Value, _ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        let Args { handle, offset, length } = args::parse(args)?;
        let handle = handle.trim();
        let Some(result) = self.results.result(handle).await? else {
            return Ok(ToolOutput::error(format!(
                "There is no result with the handle `{handle}` in this conversation. Use the handle exactly as a \
                 result's note gives it."
            )));
        };
        let length = length.unwrap_or(DEFAULT_LENGTH).clamp(1, MAX_LENGTH);
        Ok(match slice(&result.text, offset, length, self.max_bytes) {
            Some(s) => ToolOutput::text(format!(
                "[Result `{handle}` of `{}`: chars {}-{} of {}.{}]\n{}",
                result.tool,
                s.start,
                s.end,
                s.total,
                if s.end < s.total { format!(" Continue with offset {}.", s.end) } else { " This is the end.".into() },
                s.text
            )),
            None => ToolOutput::error(format!(
                "The offset {offset} is past the end of the result `{handle}`, which has {} characters.",
                result.text.chars().count()
            )),
        })
    }
}

/// Characters `start..end` of a text of `total` characters.
#[derive(Debug, PartialEq, Eq)]
struct Slice<'a> {
    text: &'a str,
    start: usize,
    end: usize,
    total: usize,
}

/// At most `length` characters (and `max_bytes` bytes, but at least one character) from character
/// `offset`; `None` if `offset` is past the end (an empty text has only offset 0).
fn slice(text: &str, offset: usize, length: usize, max_bytes: usize) -> Option<Slice<'_>> {
    let total = text.chars().count();
    if offset > total || (offset == total && total > 0) {
        return None;
    }
    let from = text.char_indices().nth(offset).map_or(text.len(), |(i, _)| i);
    let rest = &text[from..];
    let mut taken = 0;
    let mut to = 0;
    for (i, c) in rest.char_indices() {
        if taken == length || (taken > 0 && i + c.len_utf8() > max_bytes) {
            break;
        }
        taken += 1;
        to = i + c.len_utf8();
    }
    Some(Slice { text: &rest[..to], start: offset, end: offset + taken, total })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{ctx, text_of};

    struct One(StoredResult);

    #[async_trait]
    impl ResultTexts for One {
        async fn result(&self, handle: &str) -> Result<Option<StoredResult>, ToolError> {
            Ok((handle == "h1").then(|| self.0.clone()))
        }
    }

    fn tool(text: &str, max_bytes: usize) -> ReadResult {
        ReadResult::new(Arc::new(One(StoredResult { tool: "read_file".into(), text: text.into() })), max_bytes)
    }

    #[test]
    fn slices_count_characters_and_stop_at_the_byte_bound() {
        let s = slice("héllo wörld", 1, 4, 100).unwrap();
        assert_eq!((s.text, s.start, s.end, s.total), ("éllo", 1, 5, 11));
        let s = slice("ééééé", 0, 5, 5).unwrap();
        assert_eq!((s.text, s.end), ("éé", 2), "bytes bound the slice too");
        let s = slice("ééé", 0, 5, 1).unwrap();
        assert_eq!(s.text, "é", "at least one character, so paging always moves on");
        assert_eq!(slice("abc", 3, 5, 100), None);
        assert_eq!(slice("abc", 9, 5, 100), None);
        assert_eq!(slice("", 0, 5, 100).map(|s| s.total), Some(0));
    }

    #[tokio::test]
    async fn a_slice_says_where_it_is_and_how_to_go_on() {
        let text: String = (0..100).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
        let out = tool(&text, 1000).call(json!({"handle": "h1", "offset": 10, "length": 5}), ctx()).await.unwrap();
        assert!(!out.is_error);
        assert_eq!(text_of(&out), "[Result `h1` of `read_file`: chars 10-15 of 100. Continue with offset 15.]\nklmno");
        let out = tool(&text, 1000).call(json!({"handle": "h1", "offset": 95}), ctx()).await.unwrap();
        assert!(text_of(&out).ends_with("chars 95-100 of 100. This is the end.]\nrstuv"), "{}", text_of(&out));
    }

    #[tokio::test]
    async fn unknown_handles_and_offsets_past_the_end_are_told_to_the_model() {
        let out = tool("abc", 100).call(json!({"handle": "other"}), ctx()).await.unwrap();
        assert!(out.is_error && text_of(&out).contains("no result with the handle `other`"), "{}", text_of(&out));
        let out = tool("abc", 100).call(json!({"handle": "h1", "offset": 7}), ctx()).await.unwrap();
        assert!(out.is_error && text_of(&out).contains("past the end"), "{}", text_of(&out));
    }
}
