//! Making the summaries: before a model turn, each long result of the branch that has none yet is
//! summarised by the run's model (a `complete` call with its own prompt, not a chat turn) and the
//! summary stored with what it left out, once. A failure is stored too, so the result is shown cut
//! from then on rather than tried again every turn.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::{verbatim, wants_summary};
use crate::error::Result;
use crate::message::{Message, Role};
use crate::outcome_text::full_text;
use crate::run::conversation::Conversation;
use crate::run::handles::RunHandles;
use crate::run::{RunEvent, RunSummary};
use crate::store::StoredSummary;
use warden_llm::Provider;
use warden_types::run::ToolCallRecord;

/// The start of every summarisation request's user message (tests script the model on it).
pub const REQUEST_START: &str = "Summarise this output of the tool";

const PROMPT: &str = "You summarise the output of a tool for an AI agent that cannot read all of it. Write a \
compact summary (at most about 300 words) of what the output contains that the agent needs to go on: its \
structure, the main facts, results and errors. Copy every id, UUID, URL, endpoint, file path, name and number \
that matters exactly as written, character for character. Add nothing that is not in the output. Answer with the \
summary only.";

/// Bytes of a result the summariser reads (about 16k tokens); the rest stays readable by `read_result`.
const MAX_INPUT: usize = 64 * 1024;
/// Bytes of an answer kept as the summary: a longer one would defeat its purpose.
const MAX_SUMMARY: usize = 6 * 1024;
/// Characters of the call's arguments shown to the summariser.
const MAX_ARGUMENTS: usize = 300;

/// Summarises the long results of the conversation's branch that have no summary yet, one after the
/// other, and adds each summary to `conversation`. Returns early (storing nothing for the result at
/// hand) when the run is stopped.
pub async fn summarise_new(
    rt: &RunHandles,
    run: &RunSummary,
    provider: &dyn Provider,
    cancel: &CancellationToken,
    conversation: &mut Conversation,
) -> Result<()> {
    if rt.config.summarize_results_above == 0 {
        return Ok(());
    }
    // Measured in memory (the branch's calls are loaded for the request anyway): a short result
    // costs nothing and is never stored as "not summarised".
    let long: Vec<(ToolCallRecord, String)> = conversation
        .calls()
        .iter()
        .filter(|call| !conversation.has_summary(&call.id))
        .filter_map(|call| {
            let text = full_text(call.output.as_ref()?);
            wants_summary(call, text.len(), &rt.config).then(|| (call.clone(), text))
        })
        .collect();
    // The run's step as it is now, read once and only when there is something to summarise.
    let mut step = None;
    for (call, text) in long {
        if provider.name() == "local" {
            // Stored, so the result is not offered to the built-in model again on every turn.
            let why = "the built-in model's context is too small to summarise a long result";
            let stored = StoredSummary { summary: None, kept: Vec::new() };
            rt.store.insert_result_summary(&call.id, &run.thread_id, &stored, Some(why)).await?;
            conversation.add_summary(&call.id, stored);
            continue;
        }
        let step = match step {
            Some(n) => n,
            None => *step.insert(rt.store.run(&run.id).await?.step),
        };
        let action = format!("Summarising the long result of `{}`", call.name);
        rt.events.emit(&run.id, &RunEvent::Step { n: step, max: run.max_steps, action });
        let made = tokio::select! {
            made = summarise(provider, &call, &text, rt.config.model_idle_timeout) => made,
            _ = cancel.cancelled() => return Ok(()),
        };
        let (stored, failure) = match made {
            Ok(summary) => {
                let kept = kept_verbatim(text, summary.clone()).await;
                (StoredSummary { summary: Some(summary), kept }, None)
            }
            Err(why) => {
                tracing::warn!(run_id = %run.id, tool_call_id = %call.id, why, "a long result could not be summarised");
                (StoredSummary { summary: None, kept: Vec::new() }, Some(why))
            }
        };
        rt.store.insert_result_summary(&call.id, &run.thread_id, &stored, failure.as_deref()).await?;
        conversation.add_summary(&call.id, stored);
    }
    Ok(())
}

/// One summary from the model, or why there is none.
async fn summarise(
    provider: &dyn Provider,
    call: &ToolCallRecord,
    text: &str,
    timeout: Duration,
) -> std::result::Result<String, String> {
    let input = &text[..text.floor_char_boundary(MAX_INPUT)];
    let part = if input.len() < text.len() {
        format!(
            "\n\n(This is the first {} of {} bytes of the output; the agent can read the rest.)",
            input.len(),
            text.len()
        )
    } else {
        String::new()
    };
    let mut arguments = call.arguments.to_string();
    if arguments.len() > MAX_ARGUMENTS {
        arguments.truncate(arguments.floor_char_boundary(MAX_ARGUMENTS));
        arguments.push('…');
    }
    let request = format!("{REQUEST_START} `{}`, called with {arguments}:\n\n{input}{part}", call.name);
    let messages = vec![Message::text(Role::System, PROMPT), Message::text(Role::User, request)];
    let answer = match tokio::time::timeout(timeout, provider.complete(messages)).await {
        Ok(Ok(answer)) => answer,
        Ok(Err(e)) => return Err(e.to_string()),
        Err(_) => return Err(format!("the model did not answer within {} s", timeout.as_secs())),
    };
    let mut summary = answer.trim().to_string();
    if summary.is_empty() {
        return Err("the model answered with an empty summary".into());
    }
    if summary.len() > MAX_SUMMARY {
        summary.truncate(summary.floor_char_boundary(MAX_SUMMARY));
        summary.push('…');
    }
    Ok(summary)
}

/// What the summary left out, found off the async runtime (the result may be a quarter of a megabyte).
async fn kept_verbatim(text: String, summary: String) -> Vec<String> {
    tokio::task::spawn_blocking(move || verbatim::missing_from(&text, &summary)).await.unwrap_or_default()
}
