//! Threads: a conversation's identity, title and archive state, and what a page needs to show one.

pub use warden_types::thread::{
    SearchHit, Thread, ThreadDetail, ThreadExport, ThreadOptions, ThreadPatch, ThreadQuery,
};
