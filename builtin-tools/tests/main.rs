//! The built-in tools' integration tests: the shell parser and its risk reading against bounds, hidden
//! characters, and the real shell (`dash`).
//!
//! One test binary, not one per file: every binary links the whole dependency tree.
#![allow(
    clippy::unwrap_used,
    reason = "test code: a test fails where it unwraps; clippy.toml's allow-unwrap-in-tests covers only #[test] fns, not the helpers"
)]

mod hidden_chars_risk;
mod shell_bounds;
mod shell_grammar_vs_dash;
