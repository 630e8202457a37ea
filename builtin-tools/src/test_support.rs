//! Small helpers shared by the tools' unit tests.

use tokio_util::sync::CancellationToken;

use super::{ToolContent, ToolContext, ToolOutput};

pub(crate) fn ctx() -> ToolContext {
    ToolContext { cancel: CancellationToken::new(), progress: None, network: false, call_id: None }
}

#[track_caller]
pub(crate) fn text_of(out: &ToolOutput) -> String {
    match out.content.as_slice() {
        [ToolContent::Text { text }] => text.clone(),
        other => panic!("expected one text block, got {other:?}"),
    }
}
