//! What a gated tool call will do, as a person sees it before deciding: the diff of a file change,
//! the command as it will run, or else the call's arguments. One rendering for the chat's approval
//! card and the inbox, so both show the same thing. A model wrote all of it: text only.

use leptos::prelude::*;
use serde_json::Value;

use crate::model::{Approval, Preview};

/// The call's arguments as the person reads (and edits) them: pretty JSON.
pub fn arguments_text(arguments: &Value) -> String {
    serde_json::to_string_pretty(arguments).unwrap_or_default()
}

/// One line naming what the call acts on, for a folded preview: the file or the command.
pub fn preview_label(approval: &Approval) -> String {
    match &approval.preview {
        Some(Preview::Diff { path, .. }) => format!("Changes to {path}"),
        Some(Preview::Command { command }) => {
            let first = command.lines().next().unwrap_or_default();
            let mut label: String = first.chars().take(80).collect();
            if label.len() < command.len() {
                label.push('…');
            }
            format!("Command: {label}")
        }
        None => "Arguments".to_string(),
    }
}

/// The diff, the command or the arguments of the call.
pub fn call_preview(approval: &Approval) -> impl IntoView {
    match approval.preview.clone() {
        Some(Preview::Diff { path, diff }) => view! {
            <p>"Changes to " <code>{path}</code></p>
            <pre class="diff">{diff}</pre>
        }
        .into_any(),
        Some(Preview::Command { command }) => view! {
            <p>"Command:"</p>
            <pre class="command">{command}</pre>
        }
        .into_any(),
        None => view! { <pre class="arguments">{arguments_text(&approval.arguments)}</pre> }.into_any(),
    }
}
