//! The inference thread: owns the loaded model and one context, and answers queued turns one after the
//! other. Everything llama.cpp does happens here, off the async runtime. The context keeps what the
//! last turn read and wrote, so the next reads only where its prompt departs from that (`in_context`).

use std::num::NonZeroU32;
use std::path::Path;
use std::sync::{mpsc, OnceLock};
use std::time::{Duration, Instant};

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use super::grammar::Compiler;
use super::in_context::InContext;
use super::prompt::Turn;
use super::utf8::Utf8Buffer;
use warden_llm::{FinishReason, ProviderError, StreamEvent};

pub struct Settings {
    pub context_tokens: u32,
    pub threads: i32,
}

/// One model turn to answer.
pub struct Job {
    pub turns: Vec<Turn>,
    pub max_tokens: u32,
    /// A prompt that leaves less room than this is refused as too long.
    pub min_answer_tokens: u32,
    pub cancel: CancellationToken,
    pub events: UnboundedSender<Result<StreamEvent, ProviderError>>,
    /// The grammar the answer is held to: free text, or text and then one valid tool call (see `grammar`).
    pub call_grammar: Option<String>,
}

/// llama.cpp's backend is initialised once per process.
fn backend() -> Result<&'static LlamaBackend, ProviderError> {
    static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();
    BACKEND
        .get_or_init(|| {
            let mut backend = LlamaBackend::init().map_err(|e| e.to_string())?;
            backend.void_logs();
            Ok(backend)
        })
        .as_ref()
        .map_err(|e| ProviderError::Local(format!("llama.cpp did not start: {e}")))
}

/// Loads the model and starts its thread; returns once it is ready to take turns.
pub fn start(path: &Path, settings: Settings) -> Result<mpsc::Sender<Job>, ProviderError> {
    let backend = backend()?;
    let model = LlamaModel::load_from_file(backend, path, &LlamaModelParams::default())
        .map_err(|e| ProviderError::Local(format!("cannot load {}: {e}", path.display())))?;
    let (jobs, queue) = mpsc::channel::<Job>();
    let (ready, started) = mpsc::sync_channel::<Result<(), String>>(1);
    std::thread::Builder::new()
        .name("warden-local-model".into())
        .spawn(move || {
            let params = LlamaContextParams::default()
                .with_n_ctx(NonZeroU32::new(settings.context_tokens))
                .with_n_batch(settings.context_tokens)
                .with_n_threads(settings.threads)
                .with_n_threads_batch(settings.threads)
                .with_flash_attention_policy(FLASH_ATTENTION_OFF);
            let mut in_context = match model.new_context(backend, params) {
                Ok(ctx) => InContext::new(ctx),
                Err(e) => {
                    let _ = ready.send(Err(e.to_string()));
                    return;
                }
            };
            let _ = ready.send(Ok(()));
            let template = model.chat_template(None).ok();
            let mut calls = Calls { model: &model, compiler: None };
            let mut waiting = None;
            while let Some(job) = waiting.take().or_else(|| queue.recv().ok()) {
                let outcome =
                    answer(&model, &mut in_context, template.as_ref(), settings.context_tokens, &mut calls, &job);
                let answered = outcome.as_ref().ok().filter(|a| a.reason == FinishReason::Stop).map(|a| a.text.clone());
                let _ = job.events.send(outcome.map(|a| StreamEvent::Finished { reason: a.reason }));
                match queue.try_recv() {
                    Ok(next) => waiting = Some(next),
                    Err(mpsc::TryRecvError::Empty) => {
                        if let Some(answer) = answered {
                            read_ahead(&model, &mut in_context, template.as_ref(), &job.turns, answer);
                        }
                    }
                    Err(mpsc::TryRecvError::Disconnected) => break,
                }
            }
        })
        .map_err(|e| ProviderError::Local(format!("cannot start the model's thread: {e}")))?;
    match started.recv() {
        Ok(Ok(())) => Ok(jobs),
        Ok(Err(e)) => Err(ProviderError::Local(format!("cannot set up the model's context: {e}"))),
        Err(_) => Err(ProviderError::Local("the model's thread ended while starting".into())),
    }
}

/// llama.cpp's `LLAMA_FLASH_ATTN_TYPE_DISABLED`. Its default (auto) turns flash attention on, which on
/// the CPU makes this model decode markedly slower once the context is deep (see the README's figures).
const FLASH_ATTENTION_OFF: i32 = 0;

/// The call grammars' compiler for the model's vocabulary, made on the first turn that has tools (it
/// walks every token of the vocabulary once).
struct Calls<'m> {
    model: &'m LlamaModel,
    compiler: Option<Compiler>,
}

impl Calls<'_> {
    /// The sampler that holds an answer to `grammar`, or none when llguidance cannot hold it: the answer
    /// then runs free, and the agent loop still checks the calls in it.
    fn sampler(&mut self, grammar: &str) -> Option<LlamaSampler> {
        if self.compiler.is_none() {
            match Compiler::new(&LlamaSampler::llguidance_tok_env(self.model)) {
                Ok(compiler) => self.compiler = Some(compiler),
                Err(e) => {
                    tracing::warn!(error = %e, "no grammar for the built-in model's tool calls; calls are checked afterwards");
                    return None;
                }
            }
        }
        match self.compiler.as_ref()?.matcher(grammar) {
            Ok(matcher) => Some(LlamaSampler::from(matcher)),
            Err(e) => {
                tracing::warn!(error = %e, "no grammar for the built-in model's tool calls; calls are checked afterwards");
                None
            }
        }
    }
}

/// How a turn ended, and the text it answered.
struct Answered {
    reason: FinishReason,
    text: String,
}

/// While no turn waits, after an answer that ended by itself: reads what the thread's next prompt will
/// have after this answer up to its next message (the template's end of turn and the user's turn
/// header), so the next turn has that much less to read before its first token. A prompt that goes on
/// otherwise simply keeps less of it (`InContext::read_prompt`).
fn read_ahead(
    model: &LlamaModel,
    in_context: &mut InContext<'_>,
    template: Option<&LlamaChatTemplate>,
    turns: &[Turn],
    answer: String,
) {
    const NEXT: &str = "\u{1}next message\u{1}";
    let mut next: Vec<Turn> = turns.to_vec();
    next.push(Turn { role: "assistant", text: answer });
    next.push(Turn { role: "user", text: NEXT.into() });
    let Ok(prompt) = render(model, template, &next) else { return };
    let Some(at) = prompt.find(NEXT) else { return };
    let tokens = model.vocab().tokenize(&prompt.as_bytes()[..at], false, true);
    if let Err(e) = in_context.read_ahead(&tokens) {
        tracing::debug!(error = %e, "the built-in model did not read ahead");
    }
}

fn answer(
    model: &LlamaModel,
    in_context: &mut InContext<'_>,
    template: Option<&LlamaChatTemplate>,
    context_tokens: u32,
    calls: &mut Calls<'_>,
    job: &Job,
) -> Result<Answered, ProviderError> {
    let mut spent = Spent::default();
    let outcome = answer_timed(model, in_context, template, context_tokens, calls, job, &mut spent);
    tracing::debug!(
        prompt_tokens = spent.prompt_tokens,
        read_tokens = spent.read_tokens,
        read_ms = spent.reading.as_secs_f64() * 1e3,
        grammar_ms = spent.grammar.as_secs_f64() * 1e3,
        generated = spent.generated,
        generating_ms = spent.generating.as_secs_f64() * 1e3,
        sampling_ms = spent.sampling.as_secs_f64() * 1e3,
        outcome = ?outcome.as_ref().map(|a| &a.reason),
        "the built-in model answered a turn"
    );
    outcome
}

/// Where a turn's time went (logged at debug level): reading the prompt, making the call grammar's
/// matcher, reading each generated token back in, and sampling.
#[derive(Default)]
struct Spent {
    prompt_tokens: usize,
    read_tokens: usize,
    reading: Duration,
    grammar: Duration,
    generated: usize,
    generating: Duration,
    sampling: Duration,
}

fn answer_timed(
    model: &LlamaModel,
    in_context: &mut InContext<'_>,
    template: Option<&LlamaChatTemplate>,
    context_tokens: u32,
    calls: &mut Calls<'_>,
    job: &Job,
    spent: &mut Spent,
) -> Result<Answered, ProviderError> {
    let prompt = render(model, template, &job.turns)?;
    let vocab = model.vocab();
    let tokens = vocab.tokenize(prompt.as_bytes(), false, true);
    spent.prompt_tokens = tokens.len();
    let room = (context_tokens as usize).saturating_sub(tokens.len());
    if !tokens.is_empty() && room < job.min_answer_tokens as usize {
        return Err(ProviderError::ContextFull { used: tokens.len(), limit: context_tokens });
    }
    let started = Instant::now();
    spent.read_tokens = in_context.read_prompt(&tokens)?;
    spent.reading = started.elapsed();
    // Greedy with a repetition penalty: the same answer to the same conversation, and no loops.
    let mut samplers = vec![LlamaSampler::penalties(model.n_vocab(), 64, 1.15, 0.0, 0.0)];
    let started = Instant::now();
    samplers.extend(job.call_grammar.as_deref().and_then(|grammar| calls.sampler(grammar)));
    spent.grammar = started.elapsed();
    samplers.push(LlamaSampler::greedy());
    let mut sampler = LlamaSampler::chain_simple(samplers);
    let mut text = Utf8Buffer::default();
    let mut answered = String::new();
    for _ in 0..room.min(job.max_tokens as usize) {
        if job.cancel.is_cancelled() {
            return Err(ProviderError::Cancelled);
        }
        // `sample` also accepts the token into every sampler of the chain (penalties, grammar); accepting
        // it again would count it twice, and break the grammar's state.
        let started = Instant::now();
        let token = in_context.sample(&mut sampler);
        spent.sampling += started.elapsed();
        if vocab.is_eog(token) {
            send_text(job, text.finish(), &mut answered)?;
            return Ok(Answered { reason: FinishReason::Stop, text: answered });
        }
        send_text(job, text.push(&vocab.token_to_piece(token, false, None)), &mut answered)?;
        let started = Instant::now();
        in_context.read_token(token)?;
        spent.generating += started.elapsed();
        spent.generated += 1;
    }
    send_text(job, text.finish(), &mut answered)?;
    Ok(Answered { reason: FinishReason::Length, text: answered })
}

/// Sends the text on and adds it to the answer. Nobody listening any more (the run was stopped or
/// ended) ends the turn.
fn send_text(job: &Job, text: String, answered: &mut String) -> Result<(), ProviderError> {
    if text.is_empty() {
        return Ok(());
    }
    answered.push_str(&text);
    job.events.send(Ok(StreamEvent::TextDelta(text))).map_err(|_| ProviderError::Cancelled)
}

/// The model's own chat template (from the GGUF file), or plain "role: text" lines for a model without one.
fn render(model: &LlamaModel, template: Option<&LlamaChatTemplate>, turns: &[Turn]) -> Result<String, ProviderError> {
    if let Some(template) = template {
        let chat = turns
            .iter()
            .map(|t| LlamaChatMessage::new(t.role.to_string(), t.text.clone()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| ProviderError::Local(format!("a message cannot be given to the model: {e}")))?;
        if let Ok(prompt) = model.apply_chat_template(template, &chat, true) {
            return Ok(prompt);
        }
    }
    let mut prompt: String = turns.iter().map(|t| format!("{}: {}\n", t.role, t.text)).collect();
    prompt.push_str("assistant: ");
    Ok(prompt)
}
