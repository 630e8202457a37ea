//! Settings: the outside clients, their tokens and the auto-approve policy.

pub mod client_row;
pub mod clients;
pub mod policy;
pub mod state;
pub mod token_reveal;
