//! The pages, one per file.

pub mod audit;
pub mod chat;
pub mod not_found;
pub mod settings;
pub mod welcome;
