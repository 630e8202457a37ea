//! Turns an MCP `tools/call` result into the engine's `ToolOutput`, keeping text, images, embedded
//! resources, structured content and the `isError` flag as the server sent them, within the
//! limits of [`ResultLimits`]: a larger result is cut (`cap`) and kept whole on disk (`keep`).

mod cap;
mod keep;

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use warden_tools::{ToolContent, ToolOutput};

pub use cap::ResultLimits;
pub(crate) use keep::ResultKeeper;

/// The output for the model: the result as sent if it fits the limits, otherwise cut, with a note
/// saying how much was cut and where the full result is.
pub(crate) async fn deliver(keeper: &ResultKeeper, server: &str, tool: &str, result: CallToolResult) -> ToolOutput {
    let limits = keeper.limits();
    // The raw result is what gets kept: conversion drops binary resources and audio.
    let output = to_output(result.clone());
    let size = cap::Size::of(&output);
    if size.fits(&limits) {
        return output;
    }
    let kept = keeper.keep(server, tool, &result).await;
    cap::cut(output, &limits, size, &kept)
}

pub fn to_output(result: CallToolResult) -> ToolOutput {
    ToolOutput {
        content: result.content.into_iter().map(to_content).collect(),
        is_error: result.is_error.unwrap_or(false),
        structured: result.structured_content,
    }
}

fn to_content(block: ContentBlock) -> ToolContent {
    match block {
        ContentBlock::Text(text) => ToolContent::Text { text: text.text },
        ContentBlock::Image(image) => ToolContent::Image { mime_type: image.mime_type, data: image.data },
        ContentBlock::Resource(embedded) => match embedded.resource {
            ResourceContents::TextResourceContents { uri, mime_type, text, .. } => {
                ToolContent::Resource { uri, mime_type, text: Some(text) }
            }
            // Binary contents have no place in the model's context; say what it was.
            ResourceContents::BlobResourceContents { uri, mime_type, blob, .. } => ToolContent::Resource {
                uri,
                mime_type,
                text: Some(format!("[binary resource, {} bytes base64]", blob.len())),
            },
            #[allow(unreachable_patterns)]
            _ => ToolContent::Text { text: "[a resource of a kind Warden does not know]".into() },
        },
        ContentBlock::ResourceLink(link) => ToolContent::Resource {
            uri: link.uri.clone(),
            mime_type: link.mime_type.clone(),
            text: link.description.clone().or_else(|| Some(link.name.clone())),
        },
        ContentBlock::Audio(audio) => ToolContent::Text {
            text: format!("[audio ({}), {} bytes base64, not shown]", audio.mime_type, audio.data.len()),
        },
        #[allow(unreachable_patterns)]
        _ => ToolContent::Text { text: "[content of a kind Warden does not know]".into() },
    }
}
