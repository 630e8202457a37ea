//! warden-outside's integration tests: the hub on a real SQLite file, and the protocol's document
//! and schema against the code.
#![allow(
    clippy::unwrap_used,
    reason = "test code: a test fails where it unwraps; clippy.toml's allow-unwrap-in-tests covers only #[test] fns, not the helpers"
)]

mod hub;
mod protocol_doc;
mod quotas;
