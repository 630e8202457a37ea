//! The engine's front door: what the HTTP API and the UI's server functions call. Each method is
//! a short walk to the store, the run machinery or the approval point.

use std::sync::Arc;
use warden_types::id::{
    ApprovalId, ConnectionCheckId, MessageId, PersonId, ProviderId, RuleId, RunId, ThreadId, ToolCallId,
};
use warden_types::person::Reader;

use futures::stream::BoxStream;
use futures::StreamExt;

use crate::approval::{Approval, ApprovalStatus, DecisionInput};
use crate::branches;
use crate::config::Config;
use crate::error::{Error, Result};
use crate::events::EventHub;
use crate::input;
use crate::message::Role;
use crate::providers::Providers;
use crate::run::runtime::approvals as decide;
use crate::run::runtime::Runtime;
use crate::run::{title, RunEvent, RunEventRecord, RunStatus, RunSummary, ToolCallRecord};
use crate::shown::shown;
use crate::store::{PendingInThread, Store};
use crate::thread::{
    page_window, SearchHit, StoredMessage, Thread, ThreadDetail, ThreadExport, ThreadOptions, ThreadPatch, ThreadQuery,
    ThreadSlice, MESSAGES_KEPT_ON_REREAD, MESSAGES_PER_PAGE,
};
use crate::toolbox::{ToolBox, ToolSource};
use warden_llm::Provider;
use warden_tools::registry::builtin_tools;
use warden_tools::ShellConfig;
use warden_tools::Workspace;
use warden_types::approval::{DecidedByKind, ThreadRule};
use warden_types::connection::{CheckDecision, CheckStatus, ConnectionCheck, ThreadCheck};
use warden_types::cursor::AuditCursor;
use warden_types::person::ActingPerson;
use warden_types::policy::VoteVia;

pub use warden_sandbox::SandboxStatus;

pub use warden_types::status::{ModelStatus, RunStarted};

/// What the UI says the built-in model can and cannot do (people are told; the model is not: its prompt
/// is kept short).
const LOCAL_MODEL_LIMITS: &str = "The built-in model is small (135M parameters, on the CPU): it chats and answers \
    short questions and is often wrong. It is shown the tools and a call it writes is held to a valid one, but \
    it seldom picks the right tool. Configure a provider for real work.";

/// Cheap to clone; all clones share one runtime.
///
/// The thread methods here answer for nobody in particular: every thread, no check (the engine's own
/// tests, and callers that act for Warden itself). What a person asks for goes through
/// [`Engine::as_reader`], which answers only what they may read and change (`crate::access`).
#[derive(Clone)]
pub struct Engine {
    pub(crate) rt: Arc<Runtime>,
}

impl Engine {
    /// Opens the database (applying migrations), sets up the model and the built-in tools, and
    /// resumes runs a previous process left in flight. Waiting runs stay in SQLite until decided.
    /// No built-in model: see [`Self::open_with_local`].
    pub async fn open(config: Config) -> Result<Engine> {
        Self::open_parts(config, None, None).await
    }

    /// [`Self::open`] with the built-in model (`warden-local`, which the server loads when
    /// [`Config::local_model_to_load`] names a file): the default when nothing else is configured.
    pub async fn open_with_local(config: Config, local: Option<Arc<dyn Provider>>) -> Result<Engine> {
        Self::open_parts(config, local, None).await
    }

    /// Opens with `provider` as the default model (tests, benchmarks); the environment's providers and
    /// those in Settings are there too.
    pub async fn open_with_provider(config: Config, provider: Option<Arc<dyn Provider>>) -> Result<Engine> {
        Self::open_parts(config, None, provider).await
    }

    async fn open_parts(
        config: Config,
        local: Option<Arc<dyn Provider>>,
        fixed: Option<Arc<dyn Provider>>,
    ) -> Result<Engine> {
        let store = Store::open(&config.database_url).await?;
        // After the store: opening it makes the data dir (as the database wants it), the workspace then.
        // The built-in file tools refuse what the sandbox hides from commands: one list for both.
        let private = config.private_paths();
        let workspace = Workspace::new(&config.workspace)?.hiding(private.clone());
        if let Some(private) = workspace.is_itself_private() {
            return Err(Error::Invalid(format!(
                "WARDEN_WORKSPACE (`{}`) is Warden's own `{}`: the tools would reach its token, database and \
                 logs. Give the workspace a folder of its own (the default is the data dir's `workspace`)",
                config.workspace.display(),
                private.display()
            )));
        }
        let providers = Arc::new(Providers::load(store.clone(), &config, local, fixed).await?);
        let events = EventHub::start(store.clone()).await?;
        let shell = ShellConfig {
            timeout: config.shell_timeout,
            hidden: private,
            network: config.shell_network,
            ..ShellConfig::default()
        };
        let tools = ToolBox::new(builtin_tools(workspace, shell));
        let policies = warden_policies::Policies::open(store.database()).await?;
        let rt = Runtime::new(store.clone(), events, providers, tools, config, policies)?;
        tokio::spawn(crate::store::search::index_now_and_then(store, rt.handles.shutdown.clone()));
        let engine = Engine { rt };
        engine.resume_after_restart().await?;
        Ok(engine)
    }

    async fn resume_after_restart(&self) -> Result<()> {
        let mut runs = self.rt.handles.store.runs_with_status(RunStatus::Running).await?;
        for run_id in &runs {
            // Whatever the dead process streamed of its current turn was not stored: clients drop it.
            self.rt.handles.events.emit(run_id, &RunEvent::TurnRestarted {});
        }
        runs.extend(self.rt.handles.store.runs_with_open_calls().await?);
        runs.sort();
        runs.dedup();
        for run_id in runs {
            self.rt.wake(&run_id);
        }
        decide::restore_timeouts(&self.rt).await
    }

    /// Adds a live source of tools (an MCP hub).
    pub fn add_tool_source(&self, source: Arc<dyn ToolSource>) {
        self.rt.handles.tools.add_source(source);
    }

    /// The database handle, for a crate that keeps its own tables in the same file (warden-mcp).
    pub fn database(&self) -> warden_db::Database {
        self.rt.handles.store.database().clone()
    }

    pub fn store(&self) -> &Store {
        &self.rt.handles.store
    }

    pub fn config(&self) -> &Config {
        &self.rt.handles.config
    }

    /// Stops background work; runs in flight stay as they are in SQLite and resume on restart.
    pub fn shutdown(&self) {
        self.rt.handles.shutdown.cancel();
        self.rt.handles.events.store_at_once();
    }

    /// Cancelled at shutdown: long streams end on it.
    pub fn shutdown_token(&self) -> tokio_util::sync::CancellationToken {
        self.rt.handles.shutdown.clone()
    }

    /// The default model: what a thread without a choice of its own uses.
    pub fn model_status(&self) -> ModelStatus {
        match self.rt.handles.providers.resolve(None) {
            Ok(p) => {
                // The built-in model is said to be small wherever it is named.
                let hint = (p.name() == "local").then(|| LOCAL_MODEL_LIMITS.to_string());
                ModelStatus { configured: true, provider: p.name().into(), model: p.model().into(), hint }
            }
            Err(_) => ModelStatus {
                configured: false,
                provider: String::new(),
                model: String::new(),
                hint: Some(
                    "No model is configured. Add a provider in Settings, or set OPENAI_BASE_URL (for example \
                     https://api.openai.com/v1 or http://localhost:11434/v1 for Ollama) with OPENAI_API_KEY, \
                     ANTHROPIC_API_KEY or GEMINI_API_KEY and restart Warden. Or get the built-in model: \
                     scripts/fetch-model.sh data/models (scripts/dev.sh does this), or point \
                     WARDEN_LOCAL_MODEL at a GGUF file."
                        .into(),
                ),
            },
        }
    }

    /// Whether commands (the shell, sandboxed MCP servers) run confined on this machine, and if not,
    /// what is missing. Without it, no rule may approve a shell call on its own.
    pub fn sandbox_status(&self) -> &'static SandboxStatus {
        warden_sandbox::status()
    }

    /// What the chat shows about the sandbox: whether commands run confined, and if not, why.
    pub fn sandbox_info(&self) -> warden_types::SandboxInfo {
        let status = self.sandbox_status();
        warden_types::SandboxInfo { available: status.available, detail: status.detail.clone() }
    }

    // --- threads ---

    pub async fn list_threads(&self, query: ThreadQuery) -> Result<Vec<Thread>> {
        self.rt.handles.store.list_threads(&query, None).await
    }

    /// Threads whose title or messages hold every word of `text`, best match first (at most 50).
    pub async fn search(&self, text: &str) -> Result<Vec<SearchHit>> {
        self.search_as(text, None).await
    }

    pub(crate) async fn search_as(&self, text: &str, reader: Option<&Reader>) -> Result<Vec<SearchHit>> {
        if text.chars().count() > input::MAX_SEARCH_CHARS {
            return Err(Error::Invalid(format!("a search is at most {} characters", input::MAX_SEARCH_CHARS)));
        }
        self.rt.handles.store.search(text, 50, reader).await
    }

    /// The thread as a JSON record (`transfer::markdown` makes the readable version of it).
    pub async fn export_thread(&self, id: &ThreadId) -> Result<ThreadExport> {
        let store = &self.rt.handles.store;
        let thread = store.thread(id).await?;
        let messages = store.messages_on_every_branch(id).await?;
        let (tool_calls, approvals) = (store.tool_calls_of_thread(id).await?, store.approvals_of_thread(id).await?);
        let head = store.head(id).await?;
        Ok(crate::transfer::export(thread, messages, tool_calls, approvals, head, warden_db::timestamp::now()))
    }

    /// A new thread from a JSON export, under new ids, with nothing in it left to decide or to run.
    pub async fn import_thread(&self, export: ThreadExport) -> Result<Thread> {
        self.import_thread_for(export, None).await
    }

    pub(crate) async fn import_thread_for(&self, export: ThreadExport, owner: Option<&PersonId>) -> Result<Thread> {
        let title = crate::transfer::check_import(&export)?;
        self.rt.handles.store.import_thread(&export, &title, owner).await
    }

    /// Creates the thread with the id a client chose (8 to 64 letters, digits, `-` or `_`, such as a
    /// UUID), or answers the one that already has it; `true` when it was created.
    pub async fn create_thread_with_id(&self, id: &ThreadId, title: Option<String>) -> Result<(Thread, bool)> {
        self.create_thread_for(id, title, None).await
    }

    /// Creates thread `id` for `owner` (nobody's: `None`), or answers the one that has the id.
    pub(crate) async fn create_thread_for(
        &self,
        id: &ThreadId,
        title: Option<String>,
        owner: Option<&PersonId>,
    ) -> Result<(Thread, bool)> {
        input::thread_id(id.as_str())?;
        let title = title.as_deref().map(str::trim).filter(|t| !t.is_empty()).map(input::title).transpose()?;
        self.rt.handles.store.create_thread_with_id(id, title.as_deref(), owner).await
    }

    /// Gives every thread from before Warden knew people to `owner` (the founding owner, at start), as
    /// their sessions are; how many.
    pub async fn adopt_unowned_threads(&self, owner: &PersonId) -> Result<u64> {
        self.rt.handles.store.adopt_unowned_threads(owner).await
    }

    /// A thread's runs, oldest first (the newest 500).
    pub async fn thread_runs(&self, id: &ThreadId) -> Result<Vec<RunSummary>> {
        self.rt.handles.store.thread(id).await?;
        self.rt.handles.store.runs_of_thread(id, 500).await
    }

    /// Asks the thread's model for a title again and keeps it (a person asked: their title is replaced).
    pub async fn regenerate_title(&self, id: &ThreadId) -> Result<Thread> {
        crate::run::title::regenerate(&self.rt.handles, id).await?;
        self.rt.handles.store.thread(id).await
    }

    pub async fn create_thread(&self, title: Option<String>) -> Result<Thread> {
        self.create_owned_thread(title, None).await
    }

    pub(crate) async fn create_owned_thread(&self, title: Option<String>, owner: Option<&PersonId>) -> Result<Thread> {
        // No title (or a blank one) makes an untitled thread; a given one is checked.
        let title = title.as_deref().map(str::trim).filter(|t| !t.is_empty()).map(input::title).transpose()?;
        Ok(self.rt.handles.store.create_thread_with_id(&ThreadId::new(), title.as_deref(), owner).await?.0)
    }

    /// The whole thread: every message of its chosen branch (the API's answer).
    pub async fn thread(&self, id: &ThreadId) -> Result<ThreadDetail> {
        let store = &self.rt.handles.store;
        let thread = store.thread(id).await?;
        let messages = store.messages(id).await?.into_iter().map(shown).collect();
        self.thread_detail(thread, messages, false).await
    }

    /// The thread as its chat page opens: its newest messages, at least `at_least` of them (a page
    /// read again keeps what the person had loaded) and back to `through` (a message a search
    /// result links to) when it is on the branch shown, up to `MESSAGES_KEPT_ON_REREAD`; and
    /// whether earlier ones exist ([`Self::earlier_messages`]).
    pub async fn thread_page(
        &self,
        id: &ThreadId,
        at_least: usize,
        through: Option<&MessageId>,
    ) -> Result<ThreadDetail> {
        let store = &self.rt.handles.store;
        let thread = store.thread(id).await?;
        let through = match through {
            Some(message) => store.depth_on_branch(id, message, MESSAGES_KEPT_ON_REREAD).await?,
            None => None,
        };
        let limit =
            at_least.max(through.map_or(0, |depth| depth + 1)).clamp(MESSAGES_PER_PAGE, MESSAGES_KEPT_ON_REREAD);
        let read = store.branch_before(id, None, limit + 1).await?;
        let (messages, earlier) = page_window(read, limit, through.is_none());
        self.thread_detail(thread, messages.into_iter().map(shown).collect(), earlier).await
    }

    /// The messages of the thread's chosen branch just before `before` (a page's first message),
    /// as many as a page adds at a time, with their calls, approvals and other versions.
    pub async fn earlier_messages(&self, thread_id: &ThreadId, before: &MessageId) -> Result<ThreadSlice> {
        let store = &self.rt.handles.store;
        store.thread(thread_id).await?;
        if !store.has_message(thread_id, before).await? {
            return Err(Error::not_found("message", before));
        }
        let read = store.branch_before(thread_id, Some(before), MESSAGES_PER_PAGE + 1).await?;
        let (messages, earlier) = page_window(read, MESSAGES_PER_PAGE, true);
        let (tool_calls, approvals, branches) = self.calls_and_versions(thread_id, &messages).await?;
        Ok(ThreadSlice {
            thread_id: thread_id.clone(),
            before: before.clone(),
            messages: messages.into_iter().map(shown).collect(),
            tool_calls,
            approvals,
            branches,
            earlier,
        })
    }

    /// `messages` (of the chosen branch) with everything else a page shows of the thread.
    async fn thread_detail(&self, thread: Thread, messages: Vec<StoredMessage>, earlier: bool) -> Result<ThreadDetail> {
        let store = &self.rt.handles.store;
        let id = &thread.id;
        let last_run = store.last_run(id).await?;
        let (tool_calls, approvals, branches) = self.calls_and_versions(id, &messages).await?;
        Ok(ThreadDetail {
            messages,
            tool_calls,
            approvals,
            branches,
            active_run: last_run.clone().filter(|r| !r.status.is_terminal()),
            last_error: last_run.filter(|r| r.status == RunStatus::Failed).and_then(|r| r.error),
            rules: store.rules_of_thread(id).await?,
            sandbox: self.sandbox_info(),
            model: store.thread_model(id).await?,
            options: store.thread_options(id).await?,
            default_max_steps: self.rt.handles.config.max_steps,
            connection_checks: store.connection_checks_of_thread(id).await?,
            earlier,
            stopped_answers: store.stopped_answers(id).await?,
            // For nobody in particular; `as_reader` says whether the person reading may write.
            writable: true,
            thread,
        })
    }

    /// The calls of `messages`, those calls' approvals, and which of the messages have other versions.
    async fn calls_and_versions(
        &self,
        thread_id: &ThreadId,
        messages: &[StoredMessage],
    ) -> Result<(Vec<ToolCallRecord>, Vec<Approval>, Vec<warden_types::thread::BranchPoint>)> {
        let store = &self.rt.handles.store;
        let ids: Vec<&MessageId> = messages.iter().map(|m| &m.id).collect();
        let tool_calls = store.tool_calls_of_messages(&ids).await?;
        let call_ids: Vec<&ToolCallId> = tool_calls.iter().map(|c| &c.id).collect();
        let approvals = store.approvals_of_calls(&call_ids).await?;
        let branches = branches::branch_points(&store.versions_of(thread_id, &ids).await?, &ids);
        Ok((tool_calls, approvals, branches))
    }

    pub async fn update_thread(&self, id: &ThreadId, mut patch: ThreadPatch) -> Result<Thread> {
        patch.title = patch.title.as_deref().map(input::title).transpose()?;
        self.rt.handles.store.update_thread(id, &patch).await
    }

    /// Sets a thread's switches: tools offered at all, MCP tools among them (both from the next model
    /// turn on), and the step limit of its next runs (1 to 100; `None`: the server's default).
    pub async fn set_thread_options(&self, id: &ThreadId, options: ThreadOptions) -> Result<ThreadOptions> {
        if let Some(n) = options.max_steps {
            let limits = ThreadOptions::STEP_LIMITS;
            if !limits.contains(&n) {
                return Err(Error::Invalid(format!(
                    "the step limit must be from {} to {}, not {n}",
                    limits.start(),
                    limits.end()
                )));
            }
        }
        self.rt.handles.store.set_thread_options(id, &options).await?;
        Ok(options)
    }

    pub async fn delete_thread(&self, id: &ThreadId) -> Result<()> {
        if let Some(run) = self.rt.handles.store.last_run(id).await? {
            if !run.status.is_terminal() {
                self.rt.stop(&run.id);
            }
        }
        self.rt.handles.store.delete_thread(id).await
    }

    // --- runs ---

    /// Stores the user's message and starts the run that answers it.
    pub async fn send_message(
        &self,
        thread_id: &ThreadId,
        content: String,
        requester: &ActingPerson,
    ) -> Result<RunStarted> {
        let content = input::message(&content)?;
        let (model, max_steps, untitled) = self.new_run_settings(thread_id).await?;
        // Only an untitled thread takes its first words (the store checks again as it writes).
        let prompt_title = untitled.then(|| title::from_prompt(&content));
        let started = self
            .rt
            .handles
            .store
            .start_run(
                thread_id,
                max_steps,
                Some(&content),
                prompt_title.as_deref(),
                Some(&model),
                None,
                Some(requester),
            )
            .await?;
        let message_id = started.message.as_ref().map(|m| m.id.clone());
        let run_id = self.announce(thread_id, started, model);
        Ok(RunStarted { run_id, message_id })
    }

    /// The model and step limit a new run of this thread records: the thread's own if it has them
    /// (a model only while it still exists), else the server's; and whether the thread has no title yet.
    async fn new_run_settings(&self, thread_id: &ThreadId) -> Result<(warden_types::provider::ModelChoice, u32, bool)> {
        let handles = &self.rt.handles;
        let settings = handles.store.new_run_settings(thread_id).await?;
        let model = match settings.model {
            Some(choice) => {
                handles.providers.check_choice(&choice)?;
                choice
            }
            None => handles.providers.default_choice().ok_or(Error::NoModel)?,
        };
        Ok((model, settings.max_steps.unwrap_or(handles.config.max_steps), settings.untitled))
    }

    /// Tells a new run's stream what starting it stored, and starts driving it.
    fn announce(
        &self,
        thread_id: &ThreadId,
        started: crate::store::StartedRun,
        model: warden_types::provider::ModelChoice,
    ) -> RunId {
        let run_id = started.run.id.clone();
        let event = RunEvent::RunStarted { run_id: run_id.clone(), thread_id: thread_id.into(), model: Some(model) };
        self.rt.handles.events.emit(&run_id, &event);
        if let Some(message) = started.message {
            self.rt.handles.events.emit(&run_id, &RunEvent::MessageStored { message });
        }
        if let Some(title) = started.title {
            self.rt.handles.events.emit(&run_id, &RunEvent::ThreadUpdated { thread_id: thread_id.into(), title });
        }
        self.rt.start(started.run);
        run_id
    }

    /// Runs the model again on the thread as it stands (after an error or a stop).
    pub async fn retry(&self, thread_id: &ThreadId, requester: &ActingPerson) -> Result<RunStarted> {
        let (model, max_steps, _) = self.new_run_settings(thread_id).await?;
        let started = self
            .rt
            .handles
            .store
            .start_run(thread_id, max_steps, None, None, Some(&model), None, Some(requester))
            .await?;
        Ok(RunStarted { run_id: self.announce(thread_id, started, model), message_id: None })
    }

    // --- branches ---

    /// Sends `content` in place of the person's message `message_id`: a sibling of it, on a new
    /// branch that becomes the chosen one, and a run answers it. A run going on in the thread is
    /// stopped first (its waiting approvals are cancelled, never denied).
    pub async fn edit_message(
        &self,
        thread_id: &ThreadId,
        message_id: &MessageId,
        content: String,
        requester: &ActingPerson,
    ) -> Result<RunStarted> {
        let content = input::message(&content)?;
        let tree = self.rt.handles.store.message_tree(thread_id).await?;
        let (_, parent, role) =
            branches::find(&tree, message_id).ok_or_else(|| Error::not_found("message", message_id))?;
        if *role != Role::User {
            return Err(Error::Invalid("only a person's message can be edited; ask for another answer instead".into()));
        }
        let parent = parent.clone();
        self.end_active_run(thread_id).await?;
        let (model, max_steps, _) = self.new_run_settings(thread_id).await?;
        let started = self
            .rt
            .handles
            .store
            .start_run(thread_id, max_steps, Some(&content), None, Some(&model), Some(parent.as_ref()), Some(requester))
            .await?;
        let message_id = started.message.as_ref().map(|m| m.id.clone());
        Ok(RunStarted { run_id: self.announce(thread_id, started, model), message_id })
    }

    /// Another answer to the turn the model's message `message_id` is part of: a sibling of that
    /// turn's first answer, on a branch that becomes the chosen one. A run going on is stopped first.
    pub async fn regenerate(
        &self,
        thread_id: &ThreadId,
        message_id: &MessageId,
        requester: &ActingPerson,
    ) -> Result<RunStarted> {
        let shown = self.rt.handles.store.messages(thread_id).await?;
        let at = shown
            .iter()
            .position(|m| m.id == message_id)
            .ok_or_else(|| Error::Invalid("only an answer on the branch shown can be answered again".into()))?;
        if shown[at].role != Role::Assistant {
            return Err(Error::Invalid(
                "only the model's answer can be regenerated; edit a message of yours instead".into(),
            ));
        }
        let Some(person) = shown[..at].iter().rposition(|m| m.role == Role::User) else {
            return Err(Error::Invalid("this answer follows no message of yours".into()));
        };
        let from = shown[person].id.clone();
        self.end_active_run(thread_id).await?;
        let (model, max_steps, _) = self.new_run_settings(thread_id).await?;
        let from = Some(Some(&from));
        let store = &self.rt.handles.store;
        let started = store.start_run(thread_id, max_steps, None, None, Some(&model), from, Some(requester)).await?;
        Ok(RunStarted { run_id: self.announce(thread_id, started, model), message_id: None })
    }

    /// Shows the branch through `message_id` (to its newest end). A run going on is stopped first:
    /// what waits on the branch left is cancelled, never denied.
    pub async fn switch_branch(&self, thread_id: &ThreadId, message_id: &MessageId) -> Result<ThreadDetail> {
        self.choose_branch(thread_id, message_id).await?;
        self.thread(thread_id).await
    }

    /// Shows the branch through `message_id` from now on (ending the thread's run first, if one is
    /// going on). `switch_branch` answers the whole thread; a page reads its window after this.
    pub async fn choose_branch(&self, thread_id: &ThreadId, message_id: &MessageId) -> Result<()> {
        let store = &self.rt.handles.store;
        let tree = store.message_tree(thread_id).await?;
        branches::find(&tree, message_id).ok_or_else(|| Error::not_found("message", message_id))?;
        self.end_active_run(thread_id).await?;
        store.set_head(thread_id, Some(&branches::newest_leaf(&tree, message_id))).await
    }

    /// Stops the thread's run if one is going on and waits (up to 10 s) until it has ended.
    async fn end_active_run(&self, thread_id: &ThreadId) -> Result<()> {
        let Some(run) = self.rt.handles.store.last_run(thread_id).await?.filter(|r| !r.status.is_terminal()) else {
            return Ok(());
        };
        // Its events from the start: the last one says it has ended, however soon that is.
        let mut events = self.subscribe(&run.id, 0).await?;
        self.rt.stop(&run.id);
        let ended = async {
            while let Some(event) = events.next().await {
                if event.is_terminal() {
                    return;
                }
            }
        };
        tokio::time::timeout(std::time::Duration::from_secs(10), ended).await.map_err(|_| Error::RunInProgress)
    }

    pub async fn run(&self, run_id: &RunId) -> Result<RunSummary> {
        self.rt.handles.store.run(run_id).await
    }

    pub async fn stop_run(&self, run_id: &RunId) -> Result<()> {
        let run = self.rt.handles.store.run(run_id).await?;
        if !run.status.is_terminal() {
            self.rt.stop(run_id);
        }
        Ok(())
    }

    /// The run's events after `after` (0: from the start), then live ones until the run ends.
    pub async fn subscribe(&self, run_id: &RunId, after: u64) -> Result<BoxStream<'static, RunEventRecord>> {
        let run = self.rt.handles.store.run(run_id).await?;
        self.rt.handles.events.subscribe(run_id, after, run.status.is_terminal() && !self.rt.is_driving(run_id)).await
    }

    /// The events of a run this engine just started (`RunStarted`), from its first: the run is known
    /// to exist and to have been running, so its row is not read again. Had it ended already, its
    /// log holds its last event and the stream ends there.
    pub async fn subscribe_started(&self, run_id: &RunId) -> Result<BoxStream<'static, RunEventRecord>> {
        self.rt.handles.events.subscribe(run_id, 0, false).await
    }

    // --- approvals ---

    /// `person`'s decision or vote on an approval routed to them (`Error::Refused` when it is not theirs
    /// to decide). With a quorum the approval may stay pending, with their vote on it.
    pub async fn decide(
        &self,
        approval_id: &ApprovalId,
        input: DecisionInput,
        person: &ActingPerson,
    ) -> Result<Approval> {
        decide::decide(&self.rt, approval_id, person, input, None).await
    }

    /// `decide`, cast outside the app (`via`): a decision link's confirm page. Recorded on the vote, so
    /// the audit log says how the person decided.
    pub async fn decide_via(
        &self,
        approval_id: &ApprovalId,
        input: DecisionInput,
        person: &ActingPerson,
        via: VoteVia,
    ) -> Result<Approval> {
        decide::decide(&self.rt, approval_id, person, input, Some(via)).await
    }

    /// What the card of a pending approval would show with `arguments` (a person's edit in progress):
    /// its summary and preview. Changes nothing.
    pub async fn preview_edit(
        &self,
        approval_id: &ApprovalId,
        arguments: &serde_json::Value,
        person: &ActingPerson,
    ) -> Result<warden_types::approval::EditPreview> {
        decide::preview_edit(&self.rt, approval_id, person, arguments).await
    }

    /// The approval policies chats' approvals are routed by (Settings → Approval policies).
    pub fn policies(&self) -> &warden_policies::Policies {
        &self.rt.handles.policies
    }

    pub async fn approval(&self, approval_id: &ApprovalId) -> Result<Approval> {
        self.rt.handles.store.approval(approval_id).await
    }

    pub async fn list_approvals(&self, status: Option<ApprovalStatus>) -> Result<Vec<Approval>> {
        self.rt.handles.store.approvals(status, 500).await
    }

    /// How many approvals have `status`: a count, with no rows read.
    pub async fn count_approvals(&self, status: ApprovalStatus) -> Result<u64> {
        self.rt.handles.store.count_approvals(status).await
    }

    /// Every approval of any run as it is requested (pending) and as it is settled (by a person,
    /// a rule, a timeout or a stop), from now on: the inbox's live feed. Lossy for a listener that
    /// lags; it should list again then.
    pub fn watch_approvals(&self) -> tokio::sync::broadcast::Receiver<Approval> {
        self.rt.handles.events.watch_approvals()
    }

    /// Decided approvals for the audit log, newest decision first, at most `limit` (up to 1,000):
    /// those decided before `before` (`decided_at`, `id`), with `status` and decided by `by` if given.
    pub async fn decided_approvals(
        &self,
        status: Option<ApprovalStatus>,
        by: Option<DecidedByKind>,
        before: Option<&AuditCursor>,
        limit: u32,
    ) -> Result<Vec<Approval>> {
        self.rt.handles.store.decided_approvals(status, by, before, limit.clamp(1, 1000)).await
    }

    /// The thread rule `rule_id`, unless it was revoked since.
    pub async fn rule(&self, rule_id: &RuleId) -> Result<Option<ThreadRule>> {
        self.rt.handles.store.rule(rule_id).await
    }

    pub async fn revoke_rule(&self, rule_id: &RuleId) -> Result<()> {
        self.rt.handles.store.delete_rule(rule_id).await
    }

    // --- connection checks ---

    /// A person's answer to a connection check (an MCP server a run needs is offline or disabled):
    /// Connect it, or Continue anyway (remembered for the thread for an hour). Applies only while
    /// the check is pending (`Error::CheckDecided` otherwise); a Connect that does not connect leaves
    /// it pending with the error.
    pub async fn decide_connection_check(
        &self,
        id: &ConnectionCheckId,
        decision: CheckDecision,
    ) -> Result<ConnectionCheck> {
        crate::run::runtime::connection_checks::decide(&self.rt, id, decision).await
    }

    pub async fn connection_check(&self, id: &ConnectionCheckId) -> Result<ConnectionCheck> {
        self.rt.handles.store.connection_check(id).await
    }

    /// The connection checks with `status` (any if `None`), newest first, at most 500, each with
    /// its thread's title: the inbox's list.
    pub async fn list_connection_checks(&self, status: Option<CheckStatus>) -> Result<Vec<ThreadCheck>> {
        self.rt.handles.store.listed_connection_checks(status, 500).await
    }

    /// Every connection check of any run as it is asked, as a Connect fails and as it is settled
    /// (by a person or a stop), from now on: the inbox's live feed. Lossy for a listener that lags;
    /// it should count again then.
    pub fn watch_connection_checks(&self) -> tokio::sync::broadcast::Receiver<ConnectionCheck> {
        self.rt.handles.events.watch_connection_checks()
    }

    /// Every thread the model names from now on, after the run it was named by ended (the pages' live
    /// feed tells the sidebar and the open thread's heading). Lossy for a listener that lags.
    pub fn watch_titles(&self) -> tokio::sync::broadcast::Receiver<warden_types::inbox::Titled> {
        self.rt.handles.events.watch_titles()
    }

    /// Every run of any thread as it starts, from now on (the pages' live feed tells a page open on its
    /// thread, which then follows it). Lossy for a listener that lags.
    pub fn watch_runs(&self) -> tokio::sync::broadcast::Receiver<warden_types::inbox::RunBegan> {
        self.rt.handles.events.watch_runs()
    }

    /// The id of every tool call of any run as its result is settled (done, failed, cancelled by a
    /// stop, interrupted by a restart), from now on. Lossy for a listener that lags.
    pub fn watch_ended_calls(&self) -> tokio::sync::broadcast::Receiver<ToolCallId> {
        self.rt.handles.events.watch_ended_calls()
    }

    /// What waits for a person, per thread that has anything waiting: its pending approvals and
    /// connection checks, counted in one read.
    pub async fn pending_by_thread(&self) -> Result<Vec<PendingInThread>> {
        self.rt.handles.store.pending_by_thread().await
    }

    /// [`Self::pending_by_thread`] as `person`'s inbox counts it: only the approvals they may decide.
    pub async fn pending_by_thread_for(&self, person: &ActingPerson) -> Result<Vec<PendingInThread>> {
        let store = &self.rt.handles.store;
        let mut threads = store.pending_by_thread().await?;
        let theirs = store.approvals(Some(ApprovalStatus::Pending), 500).await?;
        let theirs: Vec<Approval> = theirs
            .into_iter()
            .filter(|a| warden_policies::may_decide(&warden_policies::route_of(a), person).is_ok())
            .collect();
        for t in &mut threads {
            t.approvals = u32::try_from(theirs.iter().filter(|a| a.thread_id == t.thread_id).count()).unwrap_or(0);
        }
        threads.retain(|t| t.approvals + t.checks > 0);
        Ok(threads)
    }

    pub async fn tool_call(&self, id: &ToolCallId) -> Result<ToolCallRecord> {
        self.rt.handles.store.tool_call(id).await
    }
}

/// Model providers: Settings' list, changes and connection tests, and the model a thread uses.
impl Engine {
    pub fn providers(&self) -> warden_types::provider::ProviderList {
        self.rt.handles.providers.list()
    }

    pub async fn save_provider(
        &self,
        input: warden_types::provider::ProviderInput,
    ) -> Result<warden_types::provider::ProviderEntry> {
        self.rt.handles.providers.save(input).await
    }

    pub async fn remove_provider(&self, id: &ProviderId) -> Result<()> {
        self.rt.handles.providers.remove(id).await
    }

    /// Tries a provider as entered, without saving it.
    pub async fn test_provider(
        &self,
        input: warden_types::provider::ProviderInput,
    ) -> Result<warden_types::provider::ProviderProbe> {
        self.rt.handles.providers.probe(input).await
    }

    /// Tries a configured provider as it is.
    pub async fn test_provider_entry(&self, id: &ProviderId) -> Result<warden_types::provider::ProviderProbe> {
        self.rt.handles.providers.probe_entry(id).await
    }

    /// Whether a thread may choose this: a configured provider and a plausible model name.
    pub fn check_model_choice(&self, choice: &warden_types::provider::ModelChoice) -> Result<()> {
        self.rt.handles.providers.check_choice(choice)
    }

    /// Chooses the model of a thread's next runs (`None`: the default).
    pub async fn set_thread_model(
        &self,
        thread_id: &ThreadId,
        model: Option<warden_types::provider::ModelChoice>,
    ) -> Result<()> {
        if let Some(choice) = &model {
            self.rt.handles.providers.check_choice(choice)?;
        }
        self.rt.handles.store.set_thread_model(thread_id, model.as_ref()).await
    }
}
