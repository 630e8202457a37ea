//! What the model is sent for a result: the result itself when it is short; for a long one its
//! summary, the ids and such the summary left out and the handle to read the whole; for a result that
//! is only cut, the cut text and the handle to read on. Images always go as they are.

use super::wants_summary;
use crate::config::Config;
use crate::outcome_text::{cut, full_text, images};
use crate::store::StoredSummary;
use warden_tools::read_result::{self, DEFAULT_LENGTH};
use warden_tools::ToolContent;
use warden_types::run::ToolCallRecord;

pub fn content_for_model(
    call: &ToolCallRecord,
    output: &[ToolContent],
    summary: Option<&StoredSummary>,
    config: &Config,
) -> Vec<ToolContent> {
    let text = full_text(output);
    let limit = config.tool_output_limit;
    let shown = match summary {
        Some(StoredSummary { summary: Some(summary), kept }) if wants_summary(call, text.len(), config) => {
            summarised(call, &text, summary, kept)
        }
        _ => {
            let shown_chars = text[..text.floor_char_boundary(limit)].chars().count();
            let (mut shown, truncated) = cut(text, limit);
            if truncated && call.name != read_result::NAME {
                let total = full_text(output).chars().count();
                shown.push_str(&format!(
                    "\n[The full result ({total} chars) is kept: read on with read_result {{\"handle\": \"{}\", \
                     \"offset\": {shown_chars}}}.]",
                    call.id
                ));
            }
            shown
        }
    };
    let mut content = vec![ToolContent::Text { text: shown }];
    content.extend(images(output));
    content
}

fn summarised(call: &ToolCallRecord, text: &str, summary: &str, kept: &[String]) -> String {
    let mut shown = format!(
        "[This result of `{}` is long ({} chars), so you see a summary of it. Read the full text with read_result \
         {{\"handle\": \"{}\", \"offset\": 0}}; it returns up to {DEFAULT_LENGTH} characters at a time.]\n\nSummary:\n{summary}",
        call.name,
        text.chars().count(),
        call.id,
    );
    if !kept.is_empty() {
        shown.push_str("\n\nKept verbatim (from the full text; the summary does not show them):");
        for item in kept {
            shown.push('\n');
            shown.push_str(item);
        }
    }
    shown
}
