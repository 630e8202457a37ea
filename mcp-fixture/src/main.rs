//! A small MCP server for warden-mcp's tests, built on rmcp's `#[tool_router]`. It serves stdio by
//! default, or Streamable HTTP with `--http <port>` (0 picks one; the bound address is printed on
//! stdout) guarded by `--token <bearer>`. `--log <file>` records what the server saw (e.g. a
//! cancellation); `--down-while <file>` makes it refuse to start while that file exists;
//! `--many-tools <n>` offers n more tools (`get_forecast`, `create_invoice`, ... each answering
//! "<name> ran"), for tool search; `--page-size <n>` lists tools n a page (the cursor is the offset). `run_code` asks Warden's outside approvals before it "runs" its
//! code (see `ask_warden`), naming the Warden call it serves.

mod ask_warden;

use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{schemars, tool, tool_router, ErrorData, RoleServer, ServerHandler, ServiceExt};

/// A 1x1 PNG.
const PNG_BASE64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    /// The text to send back.
    text: String,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct RunCodeArgs {
    /// The code to run.
    code: String,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct DeleteArgs {
    /// The item to delete.
    id: String,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct EnvArgs {
    /// The environment variable to read.
    name: String,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct SlowArgs {
    /// How long to work.
    seconds: f64,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct BigArgs {
    /// Bytes of text to return (numbered lines of 16 bytes each).
    text_bytes: usize,
    /// Bytes of base64 image data to return (0 for none).
    #[serde(default)]
    image_bytes: usize,
}

/// `big` refuses to build more than this, so a typo cannot exhaust the test machine.
const BIG_MAX_BYTES: usize = 64 * 1024 * 1024;

#[derive(Clone)]
struct Fixture {
    tool_router: ToolRouter<Self>,
    /// Tools added at run time by `add_tool`.
    added: Arc<Mutex<Vec<Tool>>>,
    log: Option<Arc<PathBuf>>,
    /// Tools per `tools/list` page; `None` lists them all at once.
    page_size: Option<usize>,
}

impl Fixture {
    fn new(log: Option<PathBuf>, many_tools: usize, page_size: Option<usize>) -> Self {
        let added = many(many_tools);
        let added = Arc::new(Mutex::new(added));
        Self { tool_router: Self::tool_router(), added, log: log.map(Arc::new), page_size }
    }

    fn record(&self, event: &str) {
        let Some(path) = &self.log else { return };
        if let Ok(mut file) = std::fs::OpenOptions::new().create(true).append(true).open(path.as_ref()) {
            let _ = writeln!(file, "{event}");
        }
    }

    fn added(&self) -> std::sync::MutexGuard<'_, Vec<Tool>> {
        self.added.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// `n` tools named `<verb>_<thing>` ("Get a forecast"), verbs first: `list_invoice`, `get_invoice`, ...
fn many(n: usize) -> Vec<Tool> {
    const VERBS: [&str; 5] = ["list", "get", "create", "update", "delete"];
    const THINGS: [&str; 10] =
        ["invoice", "customer", "ticket", "forecast", "deployment", "page", "order", "report", "user", "webhook"];
    let schema = serde_json::json!({ "type": "object", "properties": {} });
    let schema = Arc::new(schema.as_object().cloned().unwrap_or_default());
    THINGS
        .iter()
        .flat_map(|thing| VERBS.iter().map(move |verb| (verb, thing)))
        .cycle()
        .enumerate()
        .take(n)
        .map(|(i, (verb, thing))| {
            let round = i / (VERBS.len() * THINGS.len());
            let name = if round == 0 { format!("{verb}_{thing}") } else { format!("{verb}_{thing}_{round}") };
            let mut description = format!("{verb} a {thing}");
            description[..1].make_ascii_uppercase();
            Tool::new(name, description, schema.clone())
        })
        .collect()
}

#[tool_router]
impl Fixture {
    #[tool(description = "Send the text back", annotations(read_only_hint = true))]
    async fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
    }

    #[tool(description = "Reads one of the server's environment variables", annotations(read_only_hint = true))]
    async fn env(&self, Parameters(EnvArgs { name }): Parameters<EnvArgs>) -> Result<CallToolResult, ErrorData> {
        match std::env::var(&name) {
            Ok(value) => Ok(CallToolResult::success(vec![ContentBlock::text(value)])),
            Err(_) => Ok(CallToolResult::error(vec![ContentBlock::text(format!("{name} is not set"))])),
        }
    }

    #[tool(description = "Delete an item for good", annotations(destructive_hint = true, read_only_hint = false))]
    async fn delete_item(
        &self,
        Parameters(DeleteArgs { id }): Parameters<DeleteArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        self.record(&format!("deleted {id}"));
        Ok(CallToolResult::success(vec![ContentBlock::text(format!("deleted {id}"))]))
    }

    #[tool(description = "Runs code once Warden approves it: asks Warden's outside approvals (WARDEN_URL, \
                       WARDEN_CLIENT_TOKEN), naming the Warden call from the request's _meta, and answers \
                       `ran: <code>` or `refused: <reason>`")]
    async fn run_code(
        &self,
        Parameters(RunCodeArgs { code }): Parameters<RunCodeArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let call_id = context.meta.get("warden/call_id").and_then(serde_json::Value::as_str).map(str::to_owned);
        self.record(&format!("run_code for call {}", call_id.as_deref().unwrap_or("<none>")));
        let asked = tokio::select! {
            asked = ask_warden::ask(&code, call_id.as_deref()) => asked,
            _ = context.ct.cancelled() => return Err(ErrorData::internal_error("cancelled", None)),
        };
        Ok(match asked {
            Ok(ask_warden::Verdict::Run(code)) => {
                CallToolResult::success(vec![ContentBlock::text(format!("ran: {code}"))])
            }
            Ok(ask_warden::Verdict::Refused(reason)) => {
                CallToolResult::success(vec![ContentBlock::text(format!("refused: {reason}"))])
            }
            Err(error) => CallToolResult::error(vec![ContentBlock::text(format!("could not ask Warden: {error}"))]),
        })
    }

    #[tool(description = "Always fails, as a tool result with isError")]
    async fn fail(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::error(vec![ContentBlock::text("the fixture failed on purpose")]))
    }

    #[tool(description = "Returns a 1x1 PNG image")]
    async fn image(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![
            ContentBlock::text("a tiny image"),
            ContentBlock::image(PNG_BASE64, "image/png"),
        ]))
    }

    #[tool(description = "Returns an embedded text resource")]
    async fn resource(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::embedded_text("fixture://notes/1", "remember the milk")]))
    }

    #[tool(description = "Works for a while, reporting progress; stops when cancelled")]
    async fn slow(
        &self,
        Parameters(SlowArgs { seconds }): Parameters<SlowArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let steps = (seconds.max(0.0) * 10.0).ceil() as u64;
        let token = context.meta.get_progress_token();
        for step in 0..steps {
            if let Some(token) = &token {
                let note = ProgressNotificationParam::new(token.clone(), step as f64)
                    .with_total(steps as f64)
                    .with_message(format!("step {step} of {steps}"));
                let _ = context.peer.notify_progress(note).await;
            }
            tokio::select! {
                _ = context.ct.cancelled() => {
                    self.record("slow cancelled");
                    return Err(ErrorData::internal_error("cancelled", None));
                }
                _ = tokio::time::sleep(Duration::from_millis(100)) => {}
            }
        }
        self.record("slow finished");
        Ok(CallToolResult::success(vec![ContentBlock::text(format!("worked {steps} steps"))]))
    }

    #[tool(description = "Exits the server process abruptly in the middle of the call")]
    async fn crash(&self) -> Result<CallToolResult, ErrorData> {
        eprintln!("fixture: crashing on purpose");
        std::process::exit(3);
    }

    #[tool(description = "Adds a tool named dynamic_<n> and announces tools/list_changed")]
    async fn add_tool(&self, context: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let name = {
            let mut added = self.added();
            let name = format!("dynamic_{}", added.len() + 1);
            let schema = serde_json::json!({ "type": "object", "properties": {} });
            let schema = schema.as_object().cloned().unwrap_or_default();
            added.push(Tool::new(name.clone(), "A tool added at run time", Arc::new(schema)));
            name
        };
        let _ = context.peer.notify_tool_list_changed().await;
        Ok(CallToolResult::success(vec![ContentBlock::text(format!("added {name}"))]))
    }

    #[tool(
        description = "Returns the server's own command-line arguments, one per line",
        annotations(read_only_hint = true)
    )]
    async fn argv(&self) -> Result<CallToolResult, ErrorData> {
        let args: Vec<String> = std::env::args().skip(1).collect();
        Ok(CallToolResult::success(vec![ContentBlock::text(args.join("\n"))]))
    }

    #[tool(description = "Returns a result as large as asked: numbered text lines and an image")]
    async fn big(
        &self,
        Parameters(BigArgs { text_bytes, image_bytes }): Parameters<BigArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        if text_bytes > BIG_MAX_BYTES || image_bytes > BIG_MAX_BYTES {
            return Err(ErrorData::invalid_params("too big for the fixture", None));
        }
        // "line 0000000001\n" is 16 bytes: where a cut lands is easy to read off.
        let mut text = String::with_capacity(text_bytes + 16);
        let mut line = 1u64;
        while text.len() < text_bytes {
            text.push_str(&format!("line {line:010}\n"));
            line += 1;
        }
        text.truncate(text_bytes);
        let mut content = vec![ContentBlock::text(text)];
        if image_bytes > 0 {
            content.push(ContentBlock::image("A".repeat(image_bytes), "image/png"));
        }
        Ok(CallToolResult::success(content))
    }

    #[tool(description = "Returns structured content with a text rendering")]
    async fn structured(&self) -> Result<CallToolResult, ErrorData> {
        let value = serde_json::json!({ "answer": 42, "unit": "things" });
        let mut result = CallToolResult::success(vec![ContentBlock::text(value.to_string())]);
        result.structured_content = Some(value);
        Ok(result)
    }
}

impl ServerHandler for Fixture {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_tool_list_changed().build())
            .with_server_info(Implementation::new("warden-mcp-fixture", env!("CARGO_PKG_VERSION")))
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut tools = self.tool_router.list_all();
        tools.extend(self.added().iter().cloned());
        let Some(size) = self.page_size else { return Ok(ListToolsResult::with_all_items(tools)) };
        let from: usize = match request.and_then(|r| r.cursor) {
            Some(cursor) => cursor.parse().map_err(|_| ErrorData::invalid_params("bad cursor", None))?,
            None => 0,
        };
        let page: Vec<Tool> = tools.iter().skip(from).take(size.max(1)).cloned().collect();
        let next = from + page.len();
        let mut result = ListToolsResult::with_all_items(page);
        result.next_cursor = (next < tools.len()).then(|| next.to_string());
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let is_added = self.added().iter().any(|tool| tool.name == request.name);
        if is_added {
            let text = format!("{} ran", request.name);
            return Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into());
        }
        self.tool_router.call(ToolCallContext::new(self, request, context)).await
    }
}

struct Options {
    http_port: Option<u16>,
    token: Option<String>,
    log: Option<PathBuf>,
    down_while: Option<PathBuf>,
    many_tools: usize,
    page_size: Option<usize>,
}

fn parse_options() -> Result<Options, String> {
    let mut options =
        Options { http_port: None, token: None, log: None, down_while: None, many_tools: 0, page_size: None };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--http" => options.http_port = Some(value()?.parse().map_err(|e| format!("--http: {e}"))?),
            "--token" => options.token = Some(value()?),
            "--log" => options.log = Some(PathBuf::from(value()?)),
            "--down-while" => options.down_while = Some(PathBuf::from(value()?)),
            "--many-tools" => options.many_tools = value()?.parse().map_err(|e| format!("--many-tools: {e}"))?,
            "--page-size" => options.page_size = Some(value()?.parse().map_err(|e| format!("--page-size: {e}"))?),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(options)
}

#[tokio::main]
async fn main() {
    let options = match parse_options() {
        Ok(options) => options,
        Err(error) => {
            eprintln!("warden-mcp-fixture: {error}");
            std::process::exit(64);
        }
    };
    if let Some(path) = &options.down_while {
        if path.exists() {
            eprintln!("warden-mcp-fixture: refusing to start while {} exists", path.display());
            std::process::exit(2);
        }
    }
    let fixture = Fixture::new(options.log.clone(), options.many_tools, options.page_size);
    fixture.record("started");
    let result = match options.http_port {
        None => serve_stdio(fixture).await,
        Some(port) => match options.token {
            Some(token) => http::serve(fixture, port, token).await,
            None => Err("--http needs --token".to_owned()),
        },
    };
    if let Err(error) = result {
        eprintln!("warden-mcp-fixture: {error}");
        std::process::exit(1);
    }
}

async fn serve_stdio(fixture: Fixture) -> Result<(), String> {
    let service = fixture.serve(rmcp::transport::stdio()).await.map_err(|e| e.to_string())?;
    service.waiting().await.map_err(|e| e.to_string())?;
    Ok(())
}

mod http {
    //! Streamable HTTP on 127.0.0.1, behind a bearer token.

    use std::sync::Arc;

    use axum::extract::{Request, State};
    use axum::http::{header, StatusCode};
    use axum::middleware::{self, Next};
    use axum::response::{IntoResponse, Response};
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

    use super::Fixture;

    pub async fn serve(fixture: Fixture, port: u16, token: String) -> Result<(), String> {
        let service = StreamableHttpService::new(
            move || Ok(fixture.clone()),
            LocalSessionManager::default().into(),
            StreamableHttpServerConfig::default(),
        );
        let router = axum::Router::new()
            .nest_service("/mcp", service)
            .layer(middleware::from_fn_with_state(Arc::new(token), require_token));
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await.map_err(|e| e.to_string())?;
        let address = listener.local_addr().map_err(|e| e.to_string())?;
        println!("listening on http://{address}/mcp");
        axum::serve(listener, router).await.map_err(|e| e.to_string())
    }

    async fn require_token(State(token): State<Arc<String>>, request: Request, next: Next) -> Response {
        let expected = format!("Bearer {token}");
        let given = request.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok());
        if given == Some(expected.as_str()) {
            next.run(request).await
        } else {
            (StatusCode::UNAUTHORIZED, [(header::WWW_AUTHENTICATE, "Bearer")], "missing or wrong bearer token")
                .into_response()
        }
    }
}
