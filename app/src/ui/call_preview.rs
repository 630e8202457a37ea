//! What a gated tool call will do, as a person sees it before deciding: the diff of a file change,
//! the command as it will run, or else the call's arguments. One rendering for the chat's approval
//! card and the inbox, so both show the same thing. A model wrote all of it: text only.

use leptos::prelude::*;
use serde_json::Value;

use crate::model::{Approval, Preview};
use crate::ui::visible_text::{hidden_chars_note, visible};
use warden_types::hidden_chars::made_visible;

/// The call's arguments as the person reads (and edits) them: pretty JSON.
pub fn arguments_text(arguments: &Value) -> String {
    serde_json::to_string_pretty(arguments).unwrap_or_default()
}

/// One line naming what the call acts on, for a folded preview: the file or the command.
pub fn preview_label(approval: &Approval) -> String {
    match &approval.preview {
        Some(Preview::Diff { path, .. }) => format!("Changes to {}", made_visible(path)),
        // The item's title names the command already, and the block under this label shows it whole.
        Some(Preview::Command { .. }) => "Command".to_string(),
        None => "Arguments".to_string(),
    }
}

/// The diff, the command or the arguments of the call; hidden characters made visible and named.
pub fn call_preview(approval: &Approval) -> impl IntoView {
    match approval.preview.clone() {
        Some(Preview::Diff { path, diff }) => view! {
            {hidden_chars_note("change", [path.as_str(), diff.as_str()])}
            <p>"Changes to " <code>{visible(path)}</code></p>
            <pre class="diff">{visible(diff)}</pre>
        }
        .into_any(),
        Some(Preview::Command { command }) => view! {
            {hidden_chars_note("command", [command.as_str()])}
            <p>"Command:"</p>
            <pre class="command">{visible(command)}</pre>
        }
        .into_any(),
        None => {
            let text = arguments_text(&approval.arguments);
            view! {
                {hidden_chars_note("call", [text.as_str()])}
                <pre class="arguments">{visible(text)}</pre>
            }
            .into_any()
        }
    }
}
