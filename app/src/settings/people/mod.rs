//! Settings' "People" (owners: everyone, their roles, invitations) and "Your account" (everyone: who
//! they are, their password).

pub mod account;
pub mod invite;
pub mod section;
