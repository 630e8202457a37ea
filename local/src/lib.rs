//! The built-in model, and the one crate that links llama.cpp (the server wires it into the engine as
//! a `warden_llm::Provider`). A small GGUF model (SmolLM2-135M-Instruct by default) run in-process on the CPU by
//! llama.cpp. One model per file is loaded once per process and shared; it answers one turn at a time on
//! its own thread, turns queued in the order they arrive (first come, first served), so the async
//! runtime never waits on inference. Tokens are streamed as they are sampled, and Stop is honoured
//! before the next token. The context keeps what the last turn read and wrote, so the next turn reads
//! only where its prompt departs from that: a thread's new message, or (after another thread or a
//! title) what follows the shared system prompt.

mod grammar;
mod in_context;
mod prompt;
mod utf8;
mod worker;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Mutex, OnceLock, Weak};

use async_trait::async_trait;
use futures::StreamExt;
use tokio_util::sync::CancellationToken;

use warden_llm::{Provider, ProviderError, StreamEvent, TurnRequest, TurnStream};
use warden_types::message::Message;

/// Tokens of context per turn: the prompt and the answer together.
const CONTEXT_TOKENS: u32 = 2048;
/// Room kept for the answer; a prompt that leaves less than this is refused as too long.
const MIN_ANSWER_TOKENS: u32 = 128;
/// A thread title is a few words. Titles are all `complete` is asked of this model: the summariser of
/// long results never asks it (the engine's `run::long_results::summarise`), as its 2,048 tokens cannot hold the
/// results that are for (above 24 KB by default, some 6,000 tokens).
const TITLE_TOKENS: u32 = 24;

pub struct LocalModel {
    name: String,
    jobs: mpsc::Sender<worker::Job>,
    grammars: grammar::GrammarCache,
}

impl LocalModel {
    /// The model in `path`, loaded on first use by this process and shared by every engine after that.
    pub fn shared(path: &Path) -> Result<Arc<LocalModel>, ProviderError> {
        static LOADED: OnceLock<Mutex<HashMap<PathBuf, Weak<LocalModel>>>> = OnceLock::new();
        let key = std::fs::canonicalize(path)
            .map_err(|e| ProviderError::Local(format!("cannot open the model file {}: {e}", path.display())))?;
        let mut loaded = LOADED.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
        if let Some(model) = loaded.get(&key).and_then(Weak::upgrade) {
            return Ok(model);
        }
        let model = Arc::new(Self::load(&key)?);
        loaded.insert(key, Arc::downgrade(&model));
        Ok(model)
    }

    fn load(path: &Path) -> Result<LocalModel, ProviderError> {
        let threads = threads()?;
        let jobs = worker::start(path, worker::Settings { context_tokens: CONTEXT_TOKENS, threads })?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().trim_end_matches(".gguf").to_string())
            .unwrap_or_else(|| "local".into());
        Ok(LocalModel { name, jobs, grammars: grammar::GrammarCache::default() })
    }

    fn submit(
        &self,
        messages: &[Message],
        max_tokens: u32,
        cancel: CancellationToken,
        call_grammar: Option<String>,
    ) -> Result<TurnStream, ProviderError> {
        let (events, rx) = tokio::sync::mpsc::unbounded_channel();
        let job = worker::Job {
            turns: prompt::turns(messages),
            max_tokens,
            min_answer_tokens: MIN_ANSWER_TOKENS.min(max_tokens),
            cancel,
            events,
            call_grammar,
        };
        self.jobs.send(job).map_err(|_| ProviderError::Local("the model's thread has stopped".into()))?;
        Ok(futures::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|event| (event, rx)) }).boxed())
    }
}

/// The built-in model in `path` as the engine uses it: the tools described in its prompt and its calls
/// read out of its text (`warden_llm::TextToolCalls`), held to a grammar as it writes them.
pub fn provider(path: &Path) -> Result<Arc<dyn Provider>, ProviderError> {
    Ok(warden_llm::with_text_tool_calls(LocalModel::shared(path)?))
}

/// The CPU threads inference uses: `WARDEN_LOCAL_THREADS`, else one per core, at most four.
fn threads() -> Result<i32, ProviderError> {
    const MAX: i32 = 256;
    match std::env::var("WARDEN_LOCAL_THREADS") {
        Ok(n) => n.trim().parse::<i32>().ok().filter(|n| (1..=MAX).contains(n)).ok_or_else(|| {
            ProviderError::Local(format!("WARDEN_LOCAL_THREADS must be a whole number from 1 to {MAX}, not {n:?}"))
        }),
        Err(_) => Ok(std::thread::available_parallelism().map_or(1, |n| n.get()).min(4) as i32),
    }
}

#[async_trait]
impl Provider for LocalModel {
    fn name(&self) -> &str {
        "local"
    }

    fn model(&self) -> &str {
        &self.name
    }

    async fn stream_turn(&self, req: TurnRequest, cancel: CancellationToken) -> Result<TurnStream, ProviderError> {
        // Tools come only through `TextToolCalls` (described in the prompt), for the call grammar.
        self.submit(&req.messages, CONTEXT_TOKENS, cancel, self.grammars.for_tools(&req.tools))
    }

    fn constrains_text_calls(&self) -> bool {
        true
    }

    async fn complete(&self, messages: Vec<Message>) -> Result<String, ProviderError> {
        let mut stream = self.submit(&messages, TITLE_TOKENS, CancellationToken::new(), None)?;
        let mut text = String::new();
        while let Some(event) = stream.next().await {
            match event? {
                StreamEvent::TextDelta(t) => text.push_str(&t),
                // `Finished` ends the turn; the built-in model sends no tool calls.
                _ => break,
            }
        }
        Ok(text)
    }
}
