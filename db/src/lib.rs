//! The SQLite file every part of Warden shares. The engine, warden-mcp, warden-outside and
//! warden-sessions each keep their own tables in it and run their own migrations through one
//! [`Database`] handle; this crate opens the file (one writer, WAL checkpoints off the write path,
//! modes for its user alone) and says how times, ids and secrets are written in it.

mod database;
pub mod private_files;
pub mod secret;
pub mod timestamp;

pub use database::Database;

/// Time-ordered unique ids (UUID v7).
pub fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}
