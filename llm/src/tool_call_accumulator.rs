//! Collects the streamed pieces of a turn's tool calls, keyed by index, into whole calls. A plain
//! struct owned by the loop task; arguments stay raw (possibly invalid JSON) for the loop to validate.

use std::collections::BTreeMap;

use super::StreamEvent;

/// One tool call as the model finished sending it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssembledCall {
    pub call_id: String,
    pub name: String,
    /// Raw arguments text; may be invalid JSON.
    pub arguments: String,
}

/// A call the model never named or gave an id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the model sent tool call #{index} without {missing}")]
pub struct IncompleteToolCall {
    pub index: u32,
    pub missing: &'static str,
}

#[derive(Debug, Default)]
struct Partial {
    call_id: String,
    name: String,
    arguments: String,
}

#[derive(Debug, Default)]
pub struct ToolCallAccumulator {
    calls: BTreeMap<u32, Partial>,
}

impl ToolCallAccumulator {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a `ToolCallDelta`; other events are ignored.
    pub fn observe(&mut self, event: &StreamEvent) {
        if let StreamEvent::ToolCallDelta { index, call_id, name, arguments } = event {
            self.push(*index, call_id.as_deref(), name.as_deref(), arguments);
        }
    }

    pub fn push(&mut self, index: u32, call_id: Option<&str>, name: Option<&str>, arguments: &str) {
        let call = self.calls.entry(index).or_default();
        // Some servers repeat the id in every delta; the first one counts.
        if let Some(id) = call_id.filter(|id| !id.is_empty()) {
            if call.call_id.is_empty() {
                call.call_id = id.to_string();
            }
        }
        // Some servers repeat the whole name in every delta, a few split it; handle both.
        if let Some(name) = name.filter(|n| !n.is_empty()) {
            if call.name != name {
                call.name.push_str(name);
            }
        }
        call.arguments.push_str(arguments);
    }

    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// How many distinct calls (indexes) were seen so far.
    pub fn len(&self) -> usize {
        self.calls.len()
    }

    /// The calls in index order; an error for each call that lacks a name or an id.
    pub fn finish(self) -> Vec<Result<AssembledCall, IncompleteToolCall>> {
        self.calls
            .into_iter()
            .map(|(index, call)| {
                if call.name.is_empty() {
                    Err(IncompleteToolCall { index, missing: "a name" })
                } else if call.call_id.is_empty() {
                    Err(IncompleteToolCall { index, missing: "an id" })
                } else {
                    Ok(AssembledCall { call_id: call.call_id, name: call.name, arguments: call.arguments })
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delta(index: u32, id: Option<&str>, name: Option<&str>, args: &str) -> StreamEvent {
        StreamEvent::ToolCallDelta {
            index,
            call_id: id.map(str::to_string),
            name: name.map(str::to_string),
            arguments: args.to_string(),
        }
    }

    #[test]
    fn interleaved_deltas_assemble_into_calls_in_index_order() {
        let mut acc = ToolCallAccumulator::new();
        for event in [
            delta(1, Some("call_b"), Some("write_file"), ""),
            delta(0, Some("call_a"), Some("read_file"), ""),
            delta(1, None, None, "{\"path\":"),
            delta(0, None, None, "{\"path\":\"a\"}"),
            StreamEvent::TextDelta("ignored".into()),
            delta(1, None, None, "\"b\"}"),
        ] {
            acc.observe(&event);
        }
        let calls: Vec<AssembledCall> = acc.finish().into_iter().map(Result::unwrap).collect();
        assert_eq!(
            calls[0],
            AssembledCall { call_id: "call_a".into(), name: "read_file".into(), arguments: r#"{"path":"a"}"#.into() }
        );
        assert_eq!(calls[1].call_id, "call_b");
        assert_eq!(calls[1].arguments, r#"{"path":"b"}"#);
    }

    #[test]
    fn invalid_json_arguments_are_kept_raw() {
        let mut acc = ToolCallAccumulator::new();
        acc.push(0, Some("c"), Some("f"), "{oops");
        assert_eq!(acc.finish()[0].as_ref().map(|c| c.arguments.as_str()), Ok("{oops"));
    }

    #[test]
    fn repeated_ids_and_names_are_not_duplicated() {
        let mut acc = ToolCallAccumulator::new();
        acc.push(0, Some("c1"), Some("search"), "{\"q\":");
        acc.push(0, Some("c1"), Some("search"), "1}");
        let call = acc.finish().remove(0).unwrap();
        assert_eq!((call.call_id.as_str(), call.name.as_str(), call.arguments.as_str()), ("c1", "search", "{\"q\":1}"));
    }

    #[test]
    fn a_call_without_a_name_or_id_is_an_error_not_a_panic() {
        let mut acc = ToolCallAccumulator::new();
        acc.push(0, Some("c1"), None, "{}");
        acc.push(1, None, Some("f"), "{}");
        let results = acc.finish();
        assert_eq!(results[0], Err(IncompleteToolCall { index: 0, missing: "a name" }));
        assert_eq!(results[1], Err(IncompleteToolCall { index: 1, missing: "an id" }));
    }

    #[test]
    fn nothing_observed_means_no_calls() {
        let acc = ToolCallAccumulator::new();
        assert!(acc.is_empty());
        assert!(acc.finish().is_empty());
    }
}
