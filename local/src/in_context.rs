//! What the model's context already holds. llama.cpp keeps the keys and values of every token it has
//! read, so a turn that begins like the one before (the same thread a message later, or another thread
//! with the same system prompt) reads only what comes after the common beginning: the rest is dropped
//! from the context and the new tail read in one batch.

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;

use warden_llm::ProviderError;

/// The one sequence of the worker's context and the tokens in it.
pub struct InContext<'m> {
    ctx: LlamaContext<'m>,
    /// The tokens whose keys and values are in `ctx` (sequence 0, positions `0..tokens.len()`). Every
    /// method keeps the two equal; where llama.cpp fails midway both are emptied.
    tokens: Vec<LlamaToken>,
    /// Where in the last batch read the logits to sample from are.
    logits_at: i32,
    /// A one-token batch for generated tokens, made once.
    one: LlamaBatch<'static>,
}

impl<'m> InContext<'m> {
    pub fn new(ctx: LlamaContext<'m>) -> Self {
        Self { ctx, tokens: Vec::new(), logits_at: 0, one: LlamaBatch::new(1, 1) }
    }

    /// Makes the context hold exactly `prompt`, with the logits of its last token ready to sample from.
    /// Returns how many tokens had to be read (the rest were in the context already).
    pub fn read_prompt(&mut self, prompt: &[LlamaToken]) -> Result<usize, ProviderError> {
        if prompt.is_empty() {
            return Err(ProviderError::Local("the conversation gave the model nothing to read".into()));
        }
        let kept = self.keep(reusable(&self.tokens, prompt));
        let tail = &prompt[kept..];
        let mut batch = LlamaBatch::new(tail.len(), 1);
        let last = tail.len() - 1;
        for (i, token) in tail.iter().enumerate() {
            batch.add(*token, position(kept + i)?, &[0], i == last).map_err(|e| ProviderError::Local(e.to_string()))?;
        }
        read(&mut self.ctx, &mut self.tokens, &mut batch, tail)
            .map_err(|e| ProviderError::Local(format!("reading the prompt failed: {e}")))?;
        self.logits_at = batch.n_tokens() - 1;
        Ok(tail.len())
    }

    /// Reads the tokens of `ahead` that follow those in the context, when `ahead` begins with all of
    /// them (otherwise nothing). No logits are kept: the next prompt is read with at least its last
    /// token. Returns how many were read.
    pub fn read_ahead(&mut self, ahead: &[LlamaToken]) -> Result<usize, ProviderError> {
        let Some(tail) = beyond(&self.tokens, ahead) else { return Ok(0) };
        let mut batch = LlamaBatch::new(tail.len(), 1);
        for (i, token) in tail.iter().enumerate() {
            batch
                .add(*token, position(self.tokens.len() + i)?, &[0], false)
                .map_err(|e| ProviderError::Local(e.to_string()))?;
        }
        read(&mut self.ctx, &mut self.tokens, &mut batch, tail)
            .map_err(|e| ProviderError::Local(format!("reading ahead failed: {e}")))?;
        Ok(tail.len())
    }

    /// Reads a generated token at the next position, for the logits of the one after it.
    pub fn read_token(&mut self, token: LlamaToken) -> Result<(), ProviderError> {
        self.one.clear();
        self.one
            .add(token, position(self.tokens.len())?, &[0], true)
            .map_err(|e| ProviderError::Local(e.to_string()))?;
        read(&mut self.ctx, &mut self.tokens, &mut self.one, &[token])
            .map_err(|e| ProviderError::Local(format!("generating failed: {e}")))?;
        self.logits_at = 0;
        Ok(())
    }

    /// The next token by `sampler`, from the logits of the last token read.
    pub fn sample(&self, sampler: &mut LlamaSampler) -> LlamaToken {
        sampler.sample(&self.ctx, self.logits_at)
    }

    /// Drops every token from `n` on; returns how many the context holds now (`n`, or none).
    fn keep(&mut self, n: usize) -> usize {
        if n >= self.tokens.len() {
            return self.tokens.len();
        }
        // A model whose memory cannot lose a tail (recurrent ones) is started afresh instead.
        let dropped = u32::try_from(n).ok().is_some_and(|p0| self.ctx.kv_cache_seq_rm(0, Some(p0), None).is_ok());
        if dropped {
            self.tokens.truncate(n);
        } else {
            self.forget();
        }
        self.tokens.len()
    }

    fn forget(&mut self) {
        forget(&mut self.ctx, &mut self.tokens);
    }
}

/// Reads `batch` (which holds `new`, at the positions after `in_context`) into the context.
fn read(
    ctx: &mut LlamaContext<'_>,
    in_context: &mut Vec<LlamaToken>,
    batch: &mut LlamaBatch,
    new: &[LlamaToken],
) -> Result<(), String> {
    match ctx.decode(batch) {
        Ok(()) => {
            in_context.extend_from_slice(new);
            Ok(())
        }
        // Part of the batch may be in the context: nothing of it is trusted after that.
        Err(e) => {
            forget(ctx, in_context);
            Err(e.to_string())
        }
    }
}

fn forget(ctx: &mut LlamaContext<'_>, in_context: &mut Vec<LlamaToken>) {
    ctx.clear_kv_cache();
    in_context.clear();
}

/// How many of the context's tokens a new prompt can keep: those it begins with, but never all of the
/// prompt, as its last token must be read again for the logits the answer starts from.
fn reusable(in_context: &[LlamaToken], prompt: &[LlamaToken]) -> usize {
    let common = in_context.iter().zip(prompt).take_while(|(a, b)| a == b).count();
    common.min(prompt.len().saturating_sub(1))
}

/// What `ahead` has after all of the context's tokens; `None` when it does not begin with all of them,
/// or has nothing more.
fn beyond<'a>(in_context: &[LlamaToken], ahead: &'a [LlamaToken]) -> Option<&'a [LlamaToken]> {
    ahead.strip_prefix(in_context).filter(|rest| !rest.is_empty())
}

fn position(index: usize) -> Result<i32, ProviderError> {
    i32::try_from(index).map_err(|_| ProviderError::Local("the conversation is too long for the model".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(ids: &[i32]) -> Vec<LlamaToken> {
        ids.iter().copied().map(LlamaToken::new).collect()
    }

    #[test]
    fn the_next_turn_of_a_conversation_reads_only_what_follows_what_the_context_holds() {
        // The system prompt and first exchange are in the context; the next prompt adds a message.
        assert_eq!(reusable(&tokens(&[1, 2, 3, 4, 5]), &tokens(&[1, 2, 3, 4, 5, 6, 7])), 5);
    }

    #[test]
    fn a_prompt_that_differs_keeps_only_the_common_beginning() {
        assert_eq!(reusable(&tokens(&[1, 2, 3, 4, 5]), &tokens(&[1, 2, 9, 4, 5, 6])), 2);
        // Differing at the first token: nothing is kept.
        assert_eq!(reusable(&tokens(&[1, 2, 3]), &tokens(&[7, 2, 3, 4])), 0);
        // The context went further than the new prompt (an answer that is not in it, or a shorter thread).
        assert_eq!(reusable(&tokens(&[1, 2, 3, 4, 5, 6]), &tokens(&[1, 2, 3, 8])), 3);
    }

    #[test]
    fn reading_ahead_only_ever_extends_what_the_context_holds() {
        let held = tokens(&[1, 2, 3]);
        assert_eq!(beyond(&held, &tokens(&[1, 2, 3, 4, 5])), Some(&tokens(&[4, 5])[..]));
        // Anything that would drop or replace a token of the context is left alone.
        assert_eq!(beyond(&held, &tokens(&[1, 2, 9, 4])), None);
        assert_eq!(beyond(&held, &tokens(&[1, 2])), None);
        assert_eq!(beyond(&held, &tokens(&[1, 2, 3])), None);
        assert_eq!(beyond(&[], &tokens(&[7])), Some(&tokens(&[7])[..]));
    }

    #[test]
    fn the_last_prompt_token_is_always_read_again() {
        // The same prompt again, or one the context holds a longer version of: its last token is read
        // for the logits the answer starts from.
        assert_eq!(reusable(&tokens(&[1, 2, 3]), &tokens(&[1, 2, 3])), 2);
        assert_eq!(reusable(&tokens(&[1, 2, 3, 4]), &tokens(&[1, 2])), 1);
        assert_eq!(reusable(&tokens(&[1]), &tokens(&[1])), 0);
        assert_eq!(reusable(&[], &tokens(&[1, 2])), 0);
        assert_eq!(reusable(&tokens(&[1]), &[]), 0);
    }
}
