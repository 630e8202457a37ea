//! What the model is told about a call that did not simply run: the texts stored as the call's
//! output when it is denied, times out, is interrupted or cancelled, and the cut of long outputs.

use warden_tools::ToolContent;

pub fn denied(reason: Option<&str>) -> String {
    match reason.map(str::trim).filter(|r| !r.is_empty()) {
        Some(r) => format!("The user denied this call; it did not run. Their reason: {r}"),
        None => "The user denied this call; it did not run.".to_string(),
    }
}

pub fn timed_out(secs: u64) -> String {
    format!(
        "No decision was made within the approval timeout ({secs} s), so the call did not run. \
         This is a timeout, not a refusal by the user."
    )
}

pub const INTERRUPTED: &str = "Interrupted: the server stopped while this call was running, so its outcome is \
     unknown. It was not run again; check the current state before retrying.";

pub const CANCELLED: &str = "The run was stopped by the user before this call ran; it did not run.";

pub const CANCELLED_WHILE_RUNNING: &str = "The run was stopped by the user while this call was running; it was \
     cancelled and may have done part of its work.";

/// A call to a tool of an MCP server that is down, in a thread the person chose to continue without it.
pub fn server_left_out(server: &str, down: warden_types::connection::ServerDown) -> String {
    format!(
        "The MCP server `{server}` is {}, and the user chose to continue without it, so this call did not run. \
         Carry on without that server's tools.",
        down.label()
    )
}

/// A call that ran past the per-call limit (`WARDEN_TOOL_TIMEOUT_SECS`).
pub fn tool_timed_out(limit: std::time::Duration) -> String {
    format!(
        "The tool did not finish within {}, so Warden stopped waiting for it; it may have done part of its work.",
        human(limit)
    )
}

/// A model turn that ran past a cap; it is not kept and its calls do not run.
pub fn turn_cut(what: &str) -> String {
    format!("The model's answer {what} and was cut; nothing it asked for was run. Retry, or ask for a shorter answer.")
}

fn human(d: std::time::Duration) -> String {
    if d.as_secs() >= 1 && d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} ms", d.as_millis())
    }
}

pub const NO_RESULT: &str = "No result was recorded for this call.";

/// The text of a result as the model sees it: text parts joined, at most `limit` bytes.
/// Returns the text and whether it was cut.
pub fn for_model(content: &[ToolContent], limit: usize) -> (String, bool) {
    cut(joined(content), limit)
}

/// The text parts of a result joined, images and resources named.
fn joined(content: &[ToolContent]) -> String {
    let mut text = String::new();
    for part in content {
        if !text.is_empty() {
            text.push('\n');
        }
        match part {
            ToolContent::Text { text: t } => text.push_str(t),
            ToolContent::Image { mime_type, .. } => text.push_str(&format!("[image: {mime_type}]")),
            ToolContent::Resource { uri, text: Some(t), .. } => text.push_str(&format!("[resource {uri}]\n{t}")),
            ToolContent::Resource { uri, .. } => text.push_str(&format!("[resource {uri}]")),
        }
    }
    text
}

/// `text` cut to at most `limit` bytes on a character boundary, with a note; and whether it was cut.
pub fn cut(mut text: String, limit: usize) -> (String, bool) {
    if text.len() <= limit {
        return (text, false);
    }
    let total = text.len();
    let mut cut = limit;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    text.truncate(cut);
    text.push_str(&format!(
        "\n[output truncated: showing the first {cut} of {total} bytes; the full output is stored and shown to the user]"
    ));
    (text, true)
}

/// The whole text of a result as the model reads it, without its images (they go to the model as
/// they are): what is cut or summarised for the model and `read_result` pages through.
pub fn full_text(content: &[ToolContent]) -> String {
    joined(&content.iter().filter(|c| !matches!(c, ToolContent::Image { .. })).cloned().collect::<Vec<_>>())
}

/// The images of a result, which go to the model as they are.
pub fn images(content: &[ToolContent]) -> impl Iterator<Item = ToolContent> + '_ {
    content.iter().filter(|c| matches!(c, ToolContent::Image { .. })).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_output_is_cut_on_a_char_boundary_with_a_note() {
        let content = vec![ToolContent::Text { text: "é".repeat(100) }];
        let (text, truncated) = for_model(&content, 51);
        assert!(truncated);
        assert!(text.starts_with(&"é".repeat(25)));
        assert!(text.contains("showing the first 50 of 200 bytes"));
    }

    #[test]
    fn short_output_is_kept_whole() {
        let (text, truncated) = for_model(&[ToolContent::Text { text: "ok".into() }], 10);
        assert_eq!((text.as_str(), truncated), ("ok", false));
    }
}
