//! Warden's test kit: a scripted OpenAI-compatible Chat Completions server over real HTTP, used by the
//! engine's integration tests (as a library) and by Playwright (as the `fixture-model` binary); and a small
//! OpenID Connect provider on loopback for the sign-in tests (`oidc_issuer`); and notification receivers (`notify`:
//! SMTP, signed webhooks, Slack, Discord, ntfy, Web Push) for the channels' tests and the `fixture-notify` binary.
//! The script format is documented in `testkit/README.md`.

mod anthropic;
mod conversation;
pub mod events;
mod gemini;
pub mod notify;
pub mod oidc_issuer;
pub mod people;
pub mod redirect;
pub mod script;
mod server;
pub mod wire;

pub use oidc_issuer::{OidcIssuer, Tamper};
pub use redirect::{HeaderRecorder, Redirector};
pub use script::{Scenario, Script, ScriptError, ScriptedCall, ScriptedError, Turn};
pub use server::FixtureModel;
