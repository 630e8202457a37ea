//! Settings: the model providers (add, edit, test, remove).

pub mod actions;
pub mod card;
pub mod fields;
pub mod form;
pub mod probe;
pub mod section;
