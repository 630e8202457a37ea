//! Builds what the model is sent for a thread from SQLite: the messages in order, and after each
//! assistant turn with tool calls, the results of those calls (cut to the output limit, or summarised:
//! see `long_results`).
//!
//! A turn reads only what it sends: the chosen branch, then the calls its messages asked for, with
//! their summaries and the approvals that may have edited them. A branch without calls (a chat)
//! costs one read; the calls of other branches and their outputs are never loaded.

use std::collections::HashMap;
use warden_types::id::ThreadId;
use warden_types::id::{MessageId, ToolCallId};

use super::long_results;
use crate::approval::DecidedBy;
use crate::config::Config;
use crate::error::Result;
use crate::message::{Block, Message, Role};
use crate::outcome_text::NO_RESULT;
use crate::store::{Store, StoredSummary};
use warden_tools::ToolContent;
use warden_types::run::ToolCallRecord;
use warden_types::thread::StoredMessage;

pub const SYSTEM_PROMPT: &str = "You are Warden, a careful assistant that works with tools in the user's \
workspace. Read-only tools run at once. Tools that change something wait for the user's approval: the user may \
approve, edit the arguments, or deny with a reason. When a call is denied, respect the decision and do not try \
to get around it. Answer in Markdown.";

/// What one model turn is built from, read once before the turn.
pub struct Conversation {
    messages: Vec<StoredMessage>,
    /// The calls the branch's messages asked for, in the order they were asked.
    calls: Vec<ToolCallRecord>,
    /// Summaries of long results, by tool call id; `long_results::summarise_new` adds the ones it makes.
    summaries: HashMap<ToolCallId, StoredSummary>,
    /// The arguments a person changed before approving, by tool call id (the last edit of a call).
    edited: HashMap<ToolCallId, serde_json::Value>,
}

impl Conversation {
    pub async fn load(store: &Store, thread_id: &ThreadId) -> Result<Self> {
        let messages = store.messages(thread_id).await?;
        let with_calls: Vec<&MessageId> = messages
            .iter()
            .filter(|m| m.blocks.iter().any(|b| matches!(b, Block::ToolCall { .. })))
            .map(|m| &m.id)
            .collect();
        if with_calls.is_empty() {
            return Ok(Self { messages, calls: Vec::new(), summaries: HashMap::new(), edited: HashMap::new() });
        }
        let calls = store.tool_calls_of_messages(&with_calls).await?;
        let call_ids: Vec<&ToolCallId> = calls.iter().map(|c| &c.id).collect();
        let summaries = store.result_summaries_of_calls(&call_ids).await?;
        // Oldest first, so a later edit of the same call wins.
        let edited = store
            .approvals_of_calls(&call_ids)
            .await?
            .into_iter()
            .filter_map(|a| match a.decision?.by {
                DecidedBy::User { edited_arguments: Some(args), .. } => Some((a.tool_call_id, args)),
                _ => None,
            })
            .collect();
        Ok(Self { messages, calls, summaries, edited })
    }

    /// The calls the branch's messages asked for, in the order they were asked.
    pub fn calls(&self) -> &[ToolCallRecord] {
        &self.calls
    }

    pub fn has_summary(&self, call_id: &ToolCallId) -> bool {
        self.summaries.contains_key(call_id)
    }

    /// A summary just stored, so this turn's request shows it.
    pub fn add_summary(&mut self, call_id: &ToolCallId, summary: StoredSummary) {
        self.summaries.insert(call_id.clone(), summary);
    }

    /// The request's messages: the system prompt, then each message, each assistant turn with calls
    /// followed by their results.
    pub fn for_model(mut self, config: &Config) -> Vec<Message> {
        let messages = std::mem::take(&mut self.messages);
        let calls: HashMap<&str, &ToolCallRecord> = self.calls.iter().map(|c| (c.id.as_str(), c)).collect();
        let mut out = vec![Message::text(Role::System, SYSTEM_PROMPT)];
        for m in messages {
            let results: Vec<Block> = m
                .blocks
                .iter()
                .filter_map(|block| match block {
                    Block::ToolCall { id, call_id, .. } => {
                        let (content, is_error) = self.result_for_model(calls.get(id.as_str()).copied(), config);
                        Some(Block::ToolResult {
                            tool_call_id: id.clone(),
                            call_id: call_id.clone(),
                            content,
                            is_error,
                        })
                    }
                    _ => None,
                })
                .collect();
            out.push(Message { role: m.role, content: m.blocks });
            if !results.is_empty() {
                out.push(Message { role: Role::Tool, content: results });
            }
        }
        out
    }

    /// What the model sees of a call's result (and whether it is an error): the result as
    /// `long_results` shows it, after a note of the arguments a person edited; a call with no
    /// result yet is an error that says so.
    fn result_for_model(&self, call: Option<&ToolCallRecord>, config: &Config) -> (Vec<ToolContent>, bool) {
        let Some((call, output)) = call.and_then(|c| c.output.as_ref().map(|o| (c, o))) else {
            return (vec![ToolContent::Text { text: NO_RESULT.into() }], true);
        };
        let mut content = long_results::content_for_model(call, output, self.summaries.get(&call.id), config);
        if let (Some(args), Some(ToolContent::Text { text })) = (self.edited.get(&call.id), content.first_mut()) {
            *text = format!("(The user edited the arguments before approving; the call ran with {args}.)\n{text}");
        }
        (content, call.is_error)
    }
}
