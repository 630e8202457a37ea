//! warden-outside's integration tests: the hub on a real SQLite file, and the protocol's document
//! and schema against the code.

mod hub;
mod protocol_doc;
mod quotas;
