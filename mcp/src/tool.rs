//! One MCP tool as the agent sees it: named `server__tool`, gated by `policy`, and called on the
//! server's current session with a timeout, progress forwarding and cancellation.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use futures::StreamExt;
use rmcp::model::{
    CallToolRequestParams, CancelledNotificationParam, ClientRequest, Request, RequestMetaObject, ServerResult,
};
use rmcp::service::{PeerRequestOptions, ServiceError};
use serde_json::Value;
use warden_tools::{Progress, Risk, Tool, ToolContext, ToolError, ToolOrigin, ToolOutput, ToolSpec};

use crate::config::McpServerConfig;
use crate::model::RemoteTool;
use crate::policy;
use crate::registry::{Inner, Live};
use crate::result::{deliver, ResultKeeper};

/// Longest rendering of the arguments in an approval summary.
const SUMMARY_ARGS_LEN: usize = 300;
/// The `_meta` key of a `tools/call` that carries Warden's id of the call, for an executor that asks
/// for approval over the outside channel to name it (docs/OUTSIDE_PROTOCOL.md, "Warden's own calls").
pub const CALL_ID_META_KEY: &str = "warden/call_id";

pub(crate) struct McpTool {
    pub inner: Arc<Inner>,
    /// Result limits and where cut results are kept.
    pub results: Arc<ResultKeeper>,
    /// The server's config when the snapshot was taken (trust, policies, timeout).
    pub config: McpServerConfig,
    pub tool: RemoteTool,
}

impl McpTool {
    fn live(&self) -> Option<Live> {
        self.inner.servers().get(&self.config.name).and_then(|slot| slot.live.clone())
    }

    fn offline(&self) -> ToolError {
        ToolError::Offline(self.config.name.clone())
    }
}

#[async_trait]
impl Tool for McpTool {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: policy::qualified_name(&self.config.name, &self.tool.name),
            description: self.tool.description.clone().or_else(|| self.tool.title.clone()).unwrap_or_default(),
            parameters: self.tool.input_schema.clone(),
        }
    }

    fn origin(&self) -> ToolOrigin {
        ToolOrigin::Mcp { server: self.config.name.clone() }
    }

    fn needs_approval(&self, _args: &Value) -> bool {
        policy::needs_approval(&self.config, &self.tool)
    }

    fn risk(&self, _args: &Value) -> Risk {
        policy::risk(&self.tool)
    }

    fn summary(&self, args: &Value) -> String {
        let mut rendered = args.to_string();
        if rendered.chars().count() > SUMMARY_ARGS_LEN {
            rendered = rendered.chars().take(SUMMARY_ARGS_LEN).collect::<String>() + "…";
        }
        format!("Call `{}` on MCP server `{}` with {rendered}", self.tool.name, self.config.name)
    }

    async fn call(&self, args: Value, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        let arguments = match args {
            Value::Object(map) => map,
            Value::Null => serde_json::Map::new(),
            other => return Err(ToolError::InvalidArguments(format!("expected an object, got {other}"))),
        };
        let Live { peer, client } = self.live().ok_or_else(|| self.offline())?;
        let request = ClientRequest::CallToolRequest(Request::new(
            CallToolRequestParams::new(self.tool.name.clone()).with_arguments(arguments),
        ));
        let handle = peer
            .send_request_with_option(request, request_options(ctx.call_id.as_deref()))
            .await
            .map_err(|_| self.offline())?;
        let request_id = handle.id.clone();
        let mut progress = client.progress.subscribe(handle.progress_token.clone()).await;
        let timeout_secs = self.config.call_timeout_secs;
        let deadline = tokio::time::sleep(Duration::from_secs(timeout_secs));
        tokio::pin!(deadline);
        let response = handle.await_response();
        tokio::pin!(response);

        let cancel = |reason: &'static str| {
            let peer = peer.clone();
            let request_id = request_id.clone();
            async move {
                // Tell the server to stop; if the session is gone there is no one to tell.
                let notice = CancelledNotificationParam::new(Some(request_id), Some(reason.to_owned()));
                let _ = tokio::time::timeout(Duration::from_secs(5), peer.notify_cancelled(notice)).await;
            }
        };
        loop {
            tokio::select! {
                result = &mut response => return self.finish(result).await,
                Some(update) = progress.next() => {
                    if let Some(sink) = &ctx.progress {
                        let _ = sink.send(Progress { progress: update.progress, total: update.total, message: update.message });
                    }
                }
                _ = ctx.cancel.cancelled() => {
                    cancel("the run was stopped").await;
                    return Err(ToolError::Cancelled);
                }
                _ = &mut deadline => {
                    cancel("timed out").await;
                    return Err(ToolError::Timeout(timeout_secs));
                }
            }
        }
    }
}

/// The request's options: Warden's call id in `_meta`, when the call has one.
fn request_options(call_id: Option<&str>) -> PeerRequestOptions {
    let options = PeerRequestOptions::no_options();
    let Some(call_id) = call_id else { return options };
    let mut meta = RequestMetaObject::new();
    meta.insert(CALL_ID_META_KEY.to_owned(), Value::String(call_id.to_owned()));
    options.with_meta(meta)
}

impl McpTool {
    async fn finish(&self, result: Result<ServerResult, ServiceError>) -> Result<ToolOutput, ToolError> {
        match result {
            Ok(ServerResult::CallToolResult(result)) => {
                Ok(deliver(&self.results, &self.config.name, &self.tool.name, result).await)
            }
            Ok(ServerResult::InputRequiredResult(_)) => Err(ToolError::Failed(format!(
                "MCP server `{}` asked for more input, which Warden does not support yet",
                self.config.name
            ))),
            Ok(_) => Err(ToolError::Failed(format!("MCP server `{}` sent an unexpected answer", self.config.name))),
            Err(ServiceError::TransportClosed | ServiceError::TransportSend(_)) => Err(self.offline()),
            Err(ServiceError::McpError(error)) => {
                Err(ToolError::Failed(format!("MCP server `{}` refused the call: {}", self.config.name, error.message)))
            }
            Err(other) => Err(ToolError::Failed(format!("MCP server `{}`: {other}", self.config.name))),
        }
    }
}
