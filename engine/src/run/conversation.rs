//! Builds what the model is sent for a thread from SQLite: the messages in order, and after each
//! assistant turn with tool calls, the results of those calls (cut to the output limit, or summarised:
//! see `long_results`).

use std::collections::HashMap;

use super::long_results;
use crate::approval::DecidedBy;
use crate::config::Config;
use crate::error::Result;
use crate::message::{Block, Message, Role};
use crate::outcome_text::NO_RESULT;
use crate::store::Store;
use crate::tools::ToolContent;

pub const SYSTEM_PROMPT: &str = "You are Warden, a careful assistant that works with tools in the user's \
workspace. Read-only tools run at once. Tools that change something wait for the user's approval: the user may \
approve, edit the arguments, or deny with a reason. When a call is denied, respect the decision and do not try \
to get around it. Answer in Markdown.";

pub async fn build(store: &Store, thread_id: &str, config: &Config) -> Result<Vec<Message>> {
    let messages = store.messages(thread_id).await?;
    let calls = store.tool_calls_of_thread(thread_id).await?;
    let summaries = store.result_summaries_of_thread(thread_id).await?;
    let approvals = store.approvals_of_thread(thread_id).await?;
    let edited: HashMap<&str, &serde_json::Value> = approvals
        .iter()
        .filter_map(|a| match &a.decision.as_ref()?.by {
            DecidedBy::User { edited_arguments: Some(args), .. } => Some((a.tool_call_id.as_str(), args)),
            _ => None,
        })
        .collect();
    let calls: HashMap<&str, _> = calls.iter().map(|c| (c.id.as_str(), c)).collect();

    let mut out = vec![Message::text(Role::System, SYSTEM_PROMPT)];
    for m in messages {
        let mut results = Vec::new();
        for block in &m.blocks {
            if let Block::ToolCall { id, call_id, .. } = block {
                let (content, is_error) = match calls.get(id.as_str()).and_then(|c| c.output.as_ref().map(|o| (c, o))) {
                    Some((call, output)) => {
                        let mut content =
                            long_results::content_for_model(call, output, summaries.get(id.as_str()), config);
                        if let (Some(args), Some(ToolContent::Text { text })) =
                            (edited.get(id.as_str()), content.first_mut())
                        {
                            *text = format!(
                                "(The user edited the arguments before approving; the call ran with {args}.)\n{text}"
                            );
                        }
                        (content, call.is_error)
                    }
                    None => (vec![ToolContent::Text { text: NO_RESULT.into() }], true),
                };
                results.push(Block::ToolResult {
                    tool_call_id: id.clone(),
                    call_id: call_id.clone(),
                    content,
                    is_error,
                });
            }
        }
        out.push(Message { role: m.role, content: m.blocks });
        if !results.is_empty() {
            out.push(Message { role: Role::Tool, content: results });
        }
    }
    Ok(out)
}
