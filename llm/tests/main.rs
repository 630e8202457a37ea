//! The providers' integration tests: each provider over real HTTP to the scripted fixture model (or a
//! redirecting server), its turns streamed, retried, cut and read as the agent loop reads them.
//!
//! One test binary, not one per file: every binary links the whole dependency tree.

mod common;

mod anthropic_provider;
mod gemini_provider;
mod openai_provider;
mod redirects;
mod retrying;
mod text_tool_calls;
