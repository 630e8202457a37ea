//! The providers' integration tests: each provider over real HTTP to the scripted fixture model (or a
//! redirecting server), its turns streamed, retried, cut and read as the agent loop reads them.
//!
//! One test binary, not one per file: every binary links the whole dependency tree.
#![allow(
    clippy::unwrap_used,
    reason = "test code: a test fails where it unwraps; clippy.toml's allow-unwrap-in-tests covers only #[test] fns, not the helpers"
)]

mod common;

mod anthropic_provider;
mod gemini_provider;
mod openai_provider;
mod redirects;
mod retrying;
mod text_tool_calls;
