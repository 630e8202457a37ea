//! The inference thread: owns the loaded model and one context, and answers queued turns one after the
//! other. Everything llama.cpp does happens here, off the async runtime.

use std::num::NonZeroU32;
use std::path::Path;
use std::sync::{mpsc, OnceLock};

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use super::prompt::Turn;
use super::utf8::Utf8Buffer;
use crate::llm::{FinishReason, ProviderError, StreamEvent};

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
    /// The grammar a tool call must follow once the model starts one (see `grammar`).
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
                .with_n_threads_batch(settings.threads);
            let mut ctx = match model.new_context(backend, params) {
                Ok(ctx) => ctx,
                Err(e) => {
                    let _ = ready.send(Err(e.to_string()));
                    return;
                }
            };
            let _ = ready.send(Ok(()));
            let template = model.chat_template(None).ok();
            while let Ok(job) = queue.recv() {
                let outcome = answer(&model, &mut ctx, template.as_ref(), settings.context_tokens, &job);
                let _ = job.events.send(outcome.map(|reason| StreamEvent::Finished { reason }));
            }
        })
        .map_err(|e| ProviderError::Local(format!("cannot start the model's thread: {e}")))?;
    match started.recv() {
        Ok(Ok(())) => Ok(jobs),
        Ok(Err(e)) => Err(ProviderError::Local(format!("cannot set up the model's context: {e}"))),
        Err(_) => Err(ProviderError::Local("the model's thread ended while starting".into())),
    }
}

fn answer(
    model: &LlamaModel,
    ctx: &mut LlamaContext<'_>,
    template: Option<&LlamaChatTemplate>,
    context_tokens: u32,
    job: &Job,
) -> Result<FinishReason, ProviderError> {
    let prompt = render(model, template, &job.turns)?;
    let vocab = model.vocab();
    let tokens = vocab.tokenize(prompt.as_bytes(), false, true);
    if tokens.is_empty() {
        return Err(ProviderError::Local("the conversation gave the model nothing to read".into()));
    }
    let room = (context_tokens as usize).saturating_sub(tokens.len());
    if room < job.min_answer_tokens as usize {
        return Err(ProviderError::ContextFull { used: tokens.len(), limit: context_tokens });
    }
    ctx.clear_kv_cache();
    let mut batch = LlamaBatch::new(tokens.len(), 1);
    let last = tokens.len() - 1;
    for (i, token) in tokens.iter().enumerate() {
        batch.add(*token, i as i32, &[0], i == last).map_err(|e| ProviderError::Local(e.to_string()))?;
    }
    ctx.decode(&mut batch).map_err(|e| ProviderError::Local(format!("reading the prompt failed: {e}")))?;
    // Greedy with a repetition penalty: the same answer to the same conversation, and no loops.
    let mut samplers = vec![LlamaSampler::penalties(model.n_vocab(), 64, 1.15, 0.0, 0.0)];
    if let Some(grammar) = &job.call_grammar {
        let trigger = [super::grammar::TRIGGER.to_string()];
        let constrained = LlamaSampler::grammar_lazy_patterns(model, grammar, "root", &trigger, &[])
            .map_err(|e| ProviderError::Local(format!("the tool-call grammar did not load: {e}")))?;
        samplers.push(constrained);
    }
    samplers.push(LlamaSampler::greedy());
    let mut sampler = LlamaSampler::chain_simple(samplers);
    let mut text = Utf8Buffer::default();
    let mut index = batch.n_tokens() - 1;
    let limit = room.min(job.max_tokens as usize);
    for position in (tokens.len() as i32..).take(limit) {
        if job.cancel.is_cancelled() {
            return Err(ProviderError::Cancelled);
        }
        // `sample` also accepts the token into every sampler of the chain (penalties, grammar); accepting
        // it again would count it twice, and break the grammar's state.
        let token = sampler.sample(ctx, index);
        if vocab.is_eog(token) {
            send_text(job, text.finish())?;
            return Ok(FinishReason::Stop);
        }
        send_text(job, text.push(&vocab.token_to_piece(token, false, None)))?;
        batch.clear();
        batch.add(token, position, &[0], true).map_err(|e| ProviderError::Local(e.to_string()))?;
        index = 0;
        ctx.decode(&mut batch).map_err(|e| ProviderError::Local(format!("generating failed: {e}")))?;
    }
    send_text(job, text.finish())?;
    Ok(FinishReason::Length)
}

/// Nobody listening any more (the run was stopped or ended) ends the turn.
fn send_text(job: &Job, text: String) -> Result<(), ProviderError> {
    if text.is_empty() {
        return Ok(());
    }
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
