//! The pages, one per file.

pub mod approval;
pub mod audit;
pub mod chat;
pub mod inbox;
pub mod not_found;
pub mod settings;
pub mod welcome;
