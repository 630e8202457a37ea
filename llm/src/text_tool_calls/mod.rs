//! Tool calling for models that have none: the tools are described in the system message, the model
//! writes each call as a JSON block in its answer, and those blocks are read back out of the streamed
//! text as tool calls (`scanner`). The rest of the engine sees an ordinary provider with native calls.

mod instructions;
mod scanner;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use async_trait::async_trait;
use futures::stream::{self, StreamExt};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use self::instructions::{tool_instructions, Detail};
use self::scanner::{CallScanner, Piece};
use super::openai_wire::tool_text;
use super::{FinishReason, Provider, ProviderError, StreamEvent, TurnRequest, TurnStream};
use warden_types::message::{Block, Message, Role};
use warden_types::tool::{ToolContent, ToolSpec};

/// Most text held back while deciding whether it is a call; past it, it goes out as text, so a
/// runaway answer cannot grow memory.
const MAX_HELD_BYTES: usize = 256 * 1024;

/// Wraps a provider whose model cannot call tools natively (see the module doc). The wrapped
/// provider is never given tools; the conversation it gets carries earlier calls and results as text.
pub struct TextToolCalls<P: ?Sized> {
    inner: Arc<P>,
}

impl<P: Provider + ?Sized> TextToolCalls<P> {
    pub fn new(inner: Arc<P>) -> Self {
        Self { inner }
    }
}

/// Wraps a shared provider in [`TextToolCalls`].
pub fn with_text_tool_calls(provider: Arc<dyn Provider>) -> Arc<dyn Provider> {
    Arc::new(TextToolCalls::new(provider))
}

#[async_trait]
impl<P: Provider + ?Sized> Provider for TextToolCalls<P> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn model(&self) -> &str {
        self.inner.model()
    }

    async fn stream_turn(&self, req: TurnRequest, cancel: CancellationToken) -> Result<TurnStream, ProviderError> {
        let tools: HashSet<String> = req.tools.iter().map(|t| t.name.clone()).collect();
        // Only a provider that constrains its decoding gets the tools (for its grammar, never as native ones);
        // its grammar keeps calls valid, so its model is shown the tools in brief.
        let constrains = self.inner.constrains_text_calls();
        let detail = if constrains { Detail::Brief } else { Detail::Schema };
        let messages = as_text_conversation(&req.messages, &req.tools, detail);
        let passed_on = if constrains { req.tools.clone() } else { Vec::new() };
        let request = TurnRequest { messages, tools: passed_on };
        let events = self.inner.stream_turn(request, cancel).await?;
        if tools.is_empty() {
            return Ok(events);
        }
        let mut reader = CallReader::new(tools);
        Ok(events.flat_map(move |item| stream::iter(reader.on_event(item))).boxed())
    }

    async fn complete(&self, messages: Vec<Message>) -> Result<String, ProviderError> {
        self.inner.complete(history_as_text(&messages)).await
    }

    async fn list_models(&self) -> Result<Vec<String>, ProviderError> {
        self.inner.list_models().await
    }

    fn constrains_text_calls(&self) -> bool {
        self.inner.constrains_text_calls()
    }
}

// ---------------------------------------------------------------------------------------------
// Outgoing: the conversation as plain text.

/// The conversation with earlier calls and results written as text, and no tools offered.
pub(super) fn history_as_text(messages: &[Message]) -> Vec<Message> {
    as_text_conversation(messages, &[], Detail::Schema)
}

/// The conversation with calls written as the model is asked to write them, results as user
/// messages, and (with tools) their description in the system message.
fn as_text_conversation(messages: &[Message], tools: &[ToolSpec], detail: Detail) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::with_capacity(messages.len() + 1);
    // Tool names by call id, for naming results; a later call with the same id wins, as its result follows it.
    let mut names: HashMap<&str, &str> = HashMap::new();
    // Whether the last message out is made of tool results, so that the next results join it.
    let mut results_open = false;
    for message in messages {
        let has_tool_blocks = message.content.iter().any(|b| !matches!(b, Block::Text { .. }));
        if message.role != Role::Tool && !has_tool_blocks {
            out.push(message.clone());
            results_open = false;
            continue;
        }
        let mut text = String::new();
        let mut results = Vec::new();
        for block in &message.content {
            match block {
                Block::Text { text: t } => text.push_str(t),
                Block::ToolCall { call_id, name, arguments, .. } => {
                    names.insert(call_id, name);
                    separate(&mut text);
                    text.push_str(&call_block(name, arguments));
                }
                Block::ToolResult { call_id, content, is_error, .. } => {
                    results.push(result_text(names.get(call_id.as_str()).copied(), call_id, content, *is_error))
                }
            }
        }
        if message.role == Role::Tool {
            if !text.is_empty() {
                results.insert(0, text);
            }
        } else {
            out.push(Message::text(message.role, text));
            results_open = false;
        }
        if results.is_empty() {
            continue;
        }
        let results = results.join("\n\n");
        match out.last_mut() {
            Some(last) if results_open => last.content.push(Block::Text { text: format!("\n\n{results}") }),
            _ => out.push(Message::text(Role::User, results)),
        }
        results_open = true;
    }
    if !tools.is_empty() {
        let instructions = tool_instructions(tools, detail);
        match out.first_mut() {
            Some(first) if first.role == Role::System => {
                first.content.push(Block::Text { text: format!("\n\n{instructions}") })
            }
            _ => out.insert(0, Message::text(Role::System, instructions)),
        }
    }
    out
}

/// A blank line before what follows, unless there is nothing before it.
fn separate(text: &mut String) {
    if !text.is_empty() {
        let newlines = text.bytes().rev().take_while(|b| *b == b'\n').count();
        for _ in newlines.min(2)..2 {
            text.push('\n');
        }
    }
}

/// A call as the model is asked to write it, the tool first (a `json!` object would put `arguments`
/// first: its keys are sorted). Arguments the model sent as invalid JSON are kept as a JSON string, so
/// they go back as they were.
fn call_block(name: &str, arguments: &Value) -> String {
    let name = Value::from(name);
    format!("```json\n{{\"tool\":{name},\"arguments\":{arguments}}}\n```")
}

fn result_text(name: Option<&str>, call_id: &str, content: &[ToolContent], is_error: bool) -> String {
    let which = match name {
        Some(name) => format!("{name} (call {call_id})"),
        None => format!("call {call_id}"),
    };
    let outcome = if is_error { ", which failed" } else { "" };
    format!("Result of {which}{outcome}:\n{}", tool_text(content, false))
}

// ---------------------------------------------------------------------------------------------
// Incoming: calls read out of the streamed text.

/// Turns the wrapped provider's events into ours: text through the scanner, calls numbered.
struct CallReader {
    scanner: CallScanner,
    /// Calls read from the text so far.
    calls: u32,
    /// The next free call index; native calls (a model that sends them anyway) get their own.
    next_index: u32,
    native: HashMap<u32, u32>,
}

impl CallReader {
    fn new(tools: HashSet<String>) -> Self {
        Self { scanner: CallScanner::new(tools, MAX_HELD_BYTES), calls: 0, next_index: 0, native: HashMap::new() }
    }

    fn on_event(&mut self, item: Result<StreamEvent, ProviderError>) -> Vec<Result<StreamEvent, ProviderError>> {
        match item {
            Ok(StreamEvent::TextDelta(text)) => {
                let pieces = self.scanner.push(&text);
                self.events(pieces)
            }
            Ok(StreamEvent::ToolCallDelta { index, call_id, name, arguments }) => {
                let index = match self.native.get(&index) {
                    Some(mapped) => *mapped,
                    None => {
                        let mapped = self.take_index();
                        self.native.insert(index, mapped);
                        mapped
                    }
                };
                vec![Ok(StreamEvent::ToolCallDelta { index, call_id, name, arguments })]
            }
            Ok(StreamEvent::Finished { reason }) => {
                let pieces = self.scanner.finish();
                let mut events = self.events(pieces);
                let reason = if self.calls > 0 { FinishReason::ToolCalls } else { reason };
                events.push(Ok(StreamEvent::Finished { reason }));
                events
            }
            // What was held back was never shown; the turn failed, so it stays unsaid.
            Err(e) => vec![Err(e)],
        }
    }

    fn take_index(&mut self) -> u32 {
        let index = self.next_index;
        self.next_index += 1;
        index
    }

    fn events(&mut self, pieces: Vec<Piece>) -> Vec<Result<StreamEvent, ProviderError>> {
        pieces
            .into_iter()
            .map(|piece| match piece {
                Piece::Text(text) => StreamEvent::TextDelta(text),
                Piece::Call { name, arguments } => {
                    self.calls += 1;
                    StreamEvent::ToolCallDelta {
                        index: self.take_index(),
                        call_id: Some(format!("text-call-{}", self.calls)),
                        name: Some(name),
                        arguments,
                    }
                }
            })
            .map(Ok)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tools() -> HashSet<String> {
        ["read_file", "run_shell"].into_iter().map(String::from).collect()
    }

    fn call(name: &str, arguments: Value) -> Piece {
        Piece::Call { name: name.to_string(), arguments: arguments.to_string() }
    }

    #[test]
    fn a_call_written_back_into_the_history_reads_as_the_same_call() {
        for arguments in [json!({"path": "a.txt", "n": [1, {"x": "}"}]}), json!({})] {
            let block = call_block("read_file", &arguments);
            let mut scanner = CallScanner::new(tools(), MAX_HELD_BYTES);
            let mut pieces = scanner.push(&block);
            pieces.extend(scanner.finish());
            assert_eq!(pieces, vec![call("read_file", arguments)]);
        }
    }

    #[test]
    fn the_reader_numbers_calls_and_finishes_with_tool_calls() {
        let mut reader = CallReader::new(tools());
        let mut events = Vec::new();
        for delta in
            ["Two: {\"tool\": \"read_file\"} {\"tool\": \"run", "_shell\", \"arguments\": {\"command\": \"ls\"}}"]
        {
            events.extend(reader.on_event(Ok(StreamEvent::TextDelta(delta.into()))));
        }
        events.extend(reader.on_event(Ok(StreamEvent::Finished { reason: FinishReason::Stop })));
        let events: Vec<StreamEvent> = events.into_iter().map(Result::unwrap).collect();
        assert_eq!(
            events,
            vec![
                StreamEvent::TextDelta("Two: ".into()),
                StreamEvent::ToolCallDelta {
                    index: 0,
                    call_id: Some("text-call-1".into()),
                    name: Some("read_file".into()),
                    arguments: "{}".into()
                },
                StreamEvent::TextDelta(" ".into()),
                StreamEvent::ToolCallDelta {
                    index: 1,
                    call_id: Some("text-call-2".into()),
                    name: Some("run_shell".into()),
                    arguments: json!({"command": "ls"}).to_string()
                },
                StreamEvent::Finished { reason: FinishReason::ToolCalls },
            ]
        );
    }

    #[test]
    fn native_calls_a_model_sends_anyway_get_indexes_of_their_own() {
        let mut reader = CallReader::new(tools());
        let mut events = reader.on_event(Ok(StreamEvent::TextDelta("{\"tool\": \"read_file\"}".into())));
        for arguments in ["{\"command\":", "\"ls\"}"] {
            events.extend(reader.on_event(Ok(StreamEvent::ToolCallDelta {
                index: 0,
                call_id: None,
                name: None,
                arguments: arguments.into(),
            })));
        }
        let indexes: Vec<u32> = events
            .into_iter()
            .filter_map(|e| match e {
                Ok(StreamEvent::ToolCallDelta { index, .. }) => Some(index),
                _ => None,
            })
            .collect();
        assert_eq!(indexes, [0, 1, 1]);
    }

    #[test]
    fn without_calls_the_finish_reason_is_the_models() {
        let mut reader = CallReader::new(tools());
        let mut events = reader.on_event(Ok(StreamEvent::TextDelta("Just {text".into())));
        events.extend(reader.on_event(Ok(StreamEvent::Finished { reason: FinishReason::Length })));
        assert_eq!(
            events,
            vec![
                Ok(StreamEvent::TextDelta("Just {text".into())),
                Ok(StreamEvent::Finished { reason: FinishReason::Length })
            ]
        );
    }

    fn spec(name: &str) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: format!("Does {name}."),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        }
    }

    #[test]
    fn calls_and_results_in_the_history_become_text_and_nothing_is_lost() {
        let messages = vec![
            Message::text(Role::System, "Be careful."),
            Message::text(Role::User, "read both"),
            Message {
                role: Role::Assistant,
                content: vec![
                    Block::Text { text: "Reading.".into() },
                    Block::ToolCall {
                        id: "t1".into(),
                        call_id: "text-call-1".into(),
                        name: "read_file".into(),
                        arguments: json!({"path": "a"}),
                    },
                    Block::ToolCall {
                        id: "t2".into(),
                        call_id: "text-call-2".into(),
                        name: "read_file".into(),
                        arguments: Value::String("{oops".into()),
                    },
                ],
            },
            Message {
                role: Role::Tool,
                content: vec![Block::ToolResult {
                    tool_call_id: "t1".into(),
                    call_id: "text-call-1".into(),
                    content: vec![ToolContent::Text { text: "alpha".into() }],
                    is_error: false,
                }],
            },
            Message {
                role: Role::Tool,
                content: vec![Block::ToolResult {
                    tool_call_id: "t2".into(),
                    call_id: "text-call-2".into(),
                    content: vec![ToolContent::Text { text: "Invalid arguments".into() }],
                    is_error: true,
                }],
            },
            Message::text(Role::Assistant, "Done."),
        ];
        let out = as_text_conversation(&messages, &[spec("read_file")], Detail::Schema);
        assert_eq!(out.len(), 5, "{out:#?}");
        assert_eq!(out[0].role, Role::System);
        let system = out[0].joined_text();
        assert!(system.starts_with("Be careful.\n\n# Tools\n"), "{system}");
        assert!(system.contains("## read_file\nDoes read_file.\nParameters (JSON Schema): {"), "{system}");
        assert!(system.contains("```json\n{\"tool\": \"<tool name>\", \"arguments\": {"), "{system}");
        assert_eq!(out[1], messages[1]);
        assert_eq!(
            out[2],
            Message::text(
                Role::Assistant,
                format!(
                    "Reading.\n\n{}\n\n{}",
                    call_block("read_file", &json!({"path": "a"})),
                    call_block("read_file", &Value::String("{oops".into()))
                )
            )
        );
        assert_eq!(out[3].role, Role::User);
        assert_eq!(
            out[3].joined_text(),
            "Result of read_file (call text-call-1):\nalpha\n\n\
             Result of read_file (call text-call-2), which failed:\nInvalid arguments"
        );
        assert_eq!(out[4], messages[5]);
        assert!(out.iter().all(|m| m.content.iter().all(|b| matches!(b, Block::Text { .. }))));
    }

    #[test]
    fn tools_get_a_system_message_of_their_own_and_no_tools_get_none() {
        let messages = vec![Message::text(Role::User, "hi")];
        let out = as_text_conversation(&messages, &[spec("read_file"), spec("run_shell")], Detail::Brief);
        assert_eq!(out[0].role, Role::System);
        assert!(out[0].joined_text().contains("## run_shell"));
        assert_eq!(out[1..], messages[..]);
        assert_eq!(as_text_conversation(&messages, &[], Detail::Schema), messages);
    }
}
