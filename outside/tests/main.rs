//! warden-outside's integration tests: the hub on a real SQLite file.

mod hub;
