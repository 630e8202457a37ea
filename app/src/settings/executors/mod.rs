//! Settings: the executors Warden dials out to.

pub mod card;
pub mod form;
pub mod section;
pub mod state;
