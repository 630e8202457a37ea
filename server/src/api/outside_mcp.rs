//! `/mcp/approvals`: an MCP server (Streamable HTTP) for coding agents, with one tool,
//! `approval_prompt`, that Claude Code takes as its `--permission-prompt-tool`. Each call becomes
//! an outside request of the calling client (`warden_outside::PermissionPrompt` says how), waits
//! for its decision (a person, a policy or the request's timeout) while progress notifications keep
//! the call alive, and answers with exactly one text block of JSON: `{"behavior":"allow",
//! "updatedInput":{…}}` or `{"behavior":"deny","message":"…"}` (Claude Code refuses a result that
//! also has structured content). The gate has checked `Host` and `Origin`
//! (`outside::is_client_route`); the client's token is checked here on every HTTP request, so a
//! revoked token stops working at once. A session belongs to the client that opened it: another
//! client's token with its session id is answered 404, as an unknown session would be. A client
//! holds at most `Limits::max_mcp_sessions` sessions open; one more is answered 429.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::response::Response;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ProgressToken, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{schemars, tool, tool_router, ErrorData, RoleServer, ServerHandler};
use serde_json::{Map, Value};
use tower::ServiceExt;
use warden_outside::protocol::{DecisionFrame, FrameError};
use warden_outside::{Answer, Client, ClientFrame, OutsideHub, PermissionAnswer, PermissionPrompt};
use warden_types::policy::Source;

use super::error::{ApiError, ApiResult};
use super::outside::OutsideClient;

/// Where the endpoint is mounted.
pub const PATH: &str = "/mcp/approvals";
/// How often a waiting call reports progress (and checks that its client is still valid).
const PROGRESS_EVERY: Duration = Duration::from_secs(5);

/// The header that carries an MCP session's id (Streamable HTTP).
const SESSION_HEADER: &str = "mcp-session-id";

/// The endpoint's MCP service; its sessions live until closed, idle for `Limits::mcp_session_idle`
/// (no message either way), or shutdown.
#[derive(Clone)]
pub struct OutsideMcp {
    service: StreamableHttpService<ApprovalServer, LocalSessionManager>,
    /// rmcp's sessions, to tell which of `owners` are still open.
    sessions: Arc<LocalSessionManager>,
    /// Which client opened each session (session id → client id); sessions rmcp has closed (idle, or
    /// ended) are dropped as new ones open.
    owners: Arc<Mutex<HashMap<String, String>>>,
    /// How many sessions one client may hold open.
    max_sessions: usize,
}

impl OutsideMcp {
    /// Host and Origin are the access gate's to check (with Warden's allowed hosts), so rmcp's own
    /// loopback-only host check is off. Sessions end when the hub shuts down.
    pub fn new(hub: OutsideHub) -> Self {
        let config = StreamableHttpServerConfig::default()
            .disable_allowed_hosts()
            .with_cancellation_token(hub.shutdown_token().child_token());
        let limits = hub.limits();
        let mut manager = LocalSessionManager::default();
        manager.session_config.keep_alive = Some(limits.mcp_session_idle);
        let sessions = Arc::new(manager);
        let max_sessions = limits.max_mcp_sessions;
        let service =
            StreamableHttpService::new(move || Ok(ApprovalServer::new(hub.clone())), sessions.clone(), config);
        Self { service, sessions, owners: Arc::default(), max_sessions }
    }

    /// Drops the owners of sessions rmcp no longer has, and says how many the client holds open.
    async fn open_sessions_of(&self, client_id: &str) -> usize {
        let open: std::collections::HashSet<String> =
            self.sessions.sessions.read().await.keys().map(|id| id.to_string()).collect();
        let mut owners = self.owners.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        owners.retain(|session, _| open.contains(session));
        owners.values().filter(|owner| *owner == client_id).count()
    }

    fn owner(&self, session: &str) -> Option<String> {
        self.owners.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).get(session).cloned()
    }

    fn set_owner(&self, session: String, client_id: Option<String>) {
        let mut owners = self.owners.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        match client_id {
            Some(client_id) => owners.insert(session, client_id),
            None => owners.remove(&session),
        };
    }
}

/// `GET`, `POST` and `DELETE /mcp/approvals`: the client's token first (401 without a valid one),
/// then its session (404 if another client opened it), then rmcp's Streamable HTTP, with the client
/// in the request for the tool to find. The answer is rmcp's as it built it (an event stream, JSON,
/// a 202 or its own error), hence a plain [`Response`].
pub async fn serve(
    OutsideClient(client): OutsideClient,
    State(mcp): State<OutsideMcp>,
    mut request: Request,
) -> ApiResult<Response> {
    let session = request.headers().get(SESSION_HEADER).and_then(|v| v.to_str().ok()).map(str::to_string);
    if let Some(session) = &session {
        if mcp.owner(session).is_some_and(|owner| owner != client.id) {
            return Err(ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such MCP session"));
        }
    }
    // A request without a session opens one (`initialize`): within the client's bound.
    if session.is_none()
        && *request.method() == Method::POST
        && mcp.open_sessions_of(client.id.as_str()).await >= mcp.max_sessions
    {
        return Err(warden_outside::Error::TooManyOpen { what: "MCP sessions", max: mcp.max_sessions }.into());
    }
    let ending = *request.method() == Method::DELETE;
    let client_id = client.id.clone();
    request.extensions_mut().insert(client);
    let response = match mcp.service.clone().oneshot(request).await {
        Ok(response) => response.map(axum::body::Body::new),
        Err(never) => match never {},
    };
    match session {
        // A session just opened (an `initialize` answered with its id): it is this client's.
        None => {
            if let Some(opened) = response.headers().get(SESSION_HEADER).and_then(session_id) {
                mcp.set_owner(opened, Some(client_id.to_string()));
            }
        }
        Some(session) if ending || response.status() == StatusCode::NOT_FOUND => mcp.set_owner(session, None),
        Some(_) => {}
    }
    Ok(response)
}

fn session_id(value: &HeaderValue) -> Option<String> {
    value.to_str().ok().map(str::to_string)
}

/// The tool's input, as Claude Code sends it to its permission prompt tool.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct ApprovalPromptArgs {
    /// The name of the tool Claude Code wants to use, e.g. `Bash`.
    tool_name: String,
    /// The input it wants to call the tool with.
    input: Map<String, Value>,
    /// Claude Code's id of the tool call.
    #[serde(default)]
    tool_use_id: Option<String>,
}

/// One MCP session's server: the outside hub and the tool.
#[derive(Clone)]
pub struct ApprovalServer {
    hub: OutsideHub,
    tool_router: ToolRouter<Self>,
}

impl ApprovalServer {
    fn new(hub: OutsideHub) -> Self {
        Self { hub, tool_router: Self::tool_router() }
    }
}

#[tool_router]
impl ApprovalServer {
    #[tool(description = "Asks the person in Warden whether a tool call may run, and waits for the decision. \
                       Answers {\"behavior\":\"allow\",\"updatedInput\":{...}} or {\"behavior\":\"deny\",\"message\":\"...\"}.")]
    async fn approval_prompt(
        &self,
        Parameters(args): Parameters<ApprovalPromptArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let client = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<Client>())
            .cloned()
            .ok_or_else(|| ErrorData::internal_error("the request carries no authenticated client", None))?;
        let prompt = PermissionPrompt { tool_name: args.tool_name, input: args.input, tool_use_id: args.tool_use_id };
        let answer = match self.ask(&client, &prompt, &context).await? {
            Ok(decision) => prompt.answer(&decision),
            Err(refused) => {
                PermissionAnswer::Deny { message: format!("Warden refused the request: {}", refused.message) }
            }
        };
        // Exactly one text block and no structured content: Claude Code rejects anything else.
        Ok(CallToolResult::success(vec![ContentBlock::text(answer.to_json())]))
    }
}

impl ApprovalServer {
    /// Submits the prompt as the client's request and waits for its decision. The inner error is a
    /// request Warden would not take (too large, say); the outer one ends the call.
    async fn ask(
        &self,
        client: &Client,
        prompt: &PermissionPrompt,
        context: &RequestContext<RoleServer>,
    ) -> Result<Result<DecisionFrame, FrameError>, ErrorData> {
        let mut id = prompt.request_id(warden_db::new_id);
        let answer = loop {
            let frame = ClientFrame::SecurityEvaluation(prompt.to_request(id.clone()));
            // Asked through Warden's own endpoint for coding agents: routed as a coding agent's request.
            match self.hub.submit_from(&client.id, frame, Source::CodingAgent).await {
                Ok(answer) => break answer,
                // Claude Code's tool_use_id seen before with another call: ask anew under a fresh id.
                Err(warden_outside::Error::IdReused(_)) => id = format!("{id}/{}", warden_db::new_id()),
                Err(error) => return Ok(Err(refusal(error, &id)?)),
            }
        };
        let ack = match answer {
            Answer::Decided(decision) => {
                self.hub.mark_delivered(&decision.request_id).await.map_err(internal)?;
                return Ok(Ok(decision));
            }
            Answer::Ack(ack) => ack,
        };
        let progress = context.meta.get_progress_token();
        let shutdown = self.hub.shutdown_token();
        let mut waited = 0u64;
        loop {
            tokio::select! {
                answer = self.hub.wait_decision(&client.id, &ack.request_id, PROGRESS_EVERY) => {
                    if let Answer::Decided(decision) = answer.map_err(internal)? {
                        return Ok(Ok(decision));
                    }
                }
                () = context.ct.cancelled() => {
                    tracing::debug!(request_id = %ack.request_id, "the agent cancelled its permission prompt");
                    return Err(ErrorData::internal_error("the call was cancelled", None));
                }
            }
            if shutdown.is_cancelled() {
                return Err(ErrorData::internal_error("Warden is shutting down", None));
            }
            if self.hub.client(&client.id).await.map_err(internal)?.revoked_at.is_some() {
                return Ok(Err(refusal(warden_outside::Error::Unauthorized, &id)?));
            }
            waited += PROGRESS_EVERY.as_secs();
            if let Some(token) = &progress {
                notify(context, token.clone(), waited, ack.request_id.as_str()).await;
            }
        }
    }
}

/// A request the hub would not take, as a refusal to tell the agent; an internal failure ends the call.
fn refusal(error: warden_outside::Error, id: &str) -> Result<FrameError, ErrorData> {
    use warden_types::ErrorKind;
    match error.kind() {
        ErrorKind::Internal => Err(internal(error)),
        _ => Ok(error.into_frame_error(Some(id.to_string()))),
    }
}

/// Logs an internal failure under an id and tells the caller only the id.
fn internal(error: warden_outside::Error) -> ErrorData {
    let error_id = warden_db::new_id();
    tracing::error!(error_id = %error_id, %error, "the approval prompt failed");
    ErrorData::internal_error(format!("internal error (id {error_id}); the details are in Warden's log"), None)
}

async fn notify(context: &RequestContext<RoleServer>, token: ProgressToken, waited: u64, request_id: &str) {
    let note = ProgressNotificationParam::new(token, waited as f64)
        .with_message(format!("waiting {waited} s for a decision in Warden (request {request_id})"));
    if let Err(error) = context.peer.notify_progress(note).await {
        tracing::debug!(%error, "could not send a progress notification");
    }
}

impl ServerHandler for ApprovalServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("warden-approvals", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Warden's approval inbox. Use approval_prompt as Claude Code's --permission-prompt-tool: every tool \
                 call waits for a person's decision in Warden (or an auto-approve policy, or the timeout).",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tool_router.list_all()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.tool_router.call(ToolCallContext::new(self, request, context)).await
    }
}
