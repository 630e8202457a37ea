//! The built-in tools' integration tests: the shell parser and its risk reading against bounds, hidden
//! characters, and the real shell (`dash`).
//!
//! One test binary, not one per file: every binary links the whole dependency tree.

mod hidden_chars_risk;
mod shell_bounds;
mod shell_grammar_vs_dash;
