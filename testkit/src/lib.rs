//! Warden's test kit: a scripted OpenAI-compatible Chat Completions server over real HTTP, used by the
//! engine's integration tests (as a library) and by Playwright (as the `fixture-model` binary).
//! The script format is documented in `testkit/README.md`.

mod anthropic;
mod conversation;
pub mod events;
mod gemini;
pub mod redirect;
pub mod script;
mod server;
pub mod wire;

pub use redirect::{HeaderRecorder, Redirector};
pub use script::{Scenario, Script, ScriptError, ScriptedCall, ScriptedError, Turn};
pub use server::FixtureModel;
